package sitemap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode/utf32"

	"corpus.blog/corpusbot/internal/dates"
)

// reader is the state of one Read.
type reader struct {
	opts Options
	fn   func(Entry) error
	sum  Summary
	lim  *limitReader
	src  *source
	br   *bufio.Reader // the raw bytes' buffer, from rawPool
}

// Each Read's two buffers (96 KiB) are kept for the next: a crawler reads
// thousands of small sitemaps a minute, and allocating them afresh each
// time was about a seventh of all it allocated (BenchmarkFarmThroughput's
// memory profile), paid again in garbage collection.
var (
	rawPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}
	bufPool = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}
)

// release gives the buffers back once nothing of the document is read
// any more (every Entry's strings are copies).
func (rd *reader) release() {
	if rd.br != nil {
		rd.br.Reset(nil)
		rawPool.Put(rd.br)
		rd.br = nil
	}
	if rd.src != nil && cap(rd.src.buf) == bufSize {
		b := rd.src.buf[:bufSize]
		bufPool.Put(&b)
	}
	rd.src = nil
}

// errStop ends the reading when the entry limit is reached.
var errStop = errors.New("entry limit reached")

// callbackError carries fn's error out, untouched.
type callbackError struct{ err error }

func (e *callbackError) Error() string { return e.err.Error() }

// read decides from the first bytes what the document is — after gzip, a
// byte order mark and whitespace: "<" is XML, "{" or "[" JSON, anything else
// perhaps a text sitemap — and reads it as that.
func (rd *reader) read(r io.Reader) error {
	if err := rd.open(r); err != nil {
		return err
	}
	if err := rd.unicode(); err != nil {
		return err
	}
	s := rd.src
	for {
		for s.pos < s.end && isSpace(s.buf[s.pos]) {
			s.pos++
		}
		if s.pos < s.end || !s.fill() {
			break
		}
	}
	if s.pos == s.end {
		if err := beforeContent(s.err); err != nil {
			return err
		}
		return notSitemap("empty body")
	}
	switch s.buf[s.pos] {
	case '<':
		return rd.finish(rd.readXML())
	case '{', '[':
		return notSitemap("a JSON document")
	}
	return rd.finish(rd.readText())
}

// open undoes gzip, found by its magic bytes, and puts the size limit on
// the bytes of the document itself.
func (rd *reader) open(r io.Reader) error {
	br := rawPool.Get().(*bufio.Reader)
	br.Reset(rawReader{r})
	rd.br = br
	var doc io.Reader = br
	magic, err := br.Peek(2)
	var re *readError
	if errors.As(err, &re) {
		return re
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if errors.As(err, &re) {
			return re
		}
		if err != nil {
			return notSitemap("gzip data that cannot be read: %v", err)
		}
		rd.sum.Gzip = true
		doc = zr
	}
	rd.lim = &limitReader{r: doc, max: rd.opts.MaxBytes}
	rd.src = newSource(rd.lim)
	return nil
}

// unicode skips a byte order mark, and decodes UTF-32 and UTF-16 (told by
// their BOM or by how "<" looks in them) to UTF-8. UTF-32 is looked for
// first: its little-endian BOM and "<" begin as UTF-16's do.
func (rd *reader) unicode() error {
	s := rd.src
	s.ensure(4)
	b := s.buf[s.pos:s.end]
	switch {
	case bytes.HasPrefix(b, []byte("\x00\x00\xFE\xFF")):
		s.pos += 4
		rd.decodeWith(utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM), "utf-32be")
	case bytes.HasPrefix(b, []byte("\xFF\xFE\x00\x00")):
		s.pos += 4
		rd.decodeWith(utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM), "utf-32le")
	case bytes.HasPrefix(b, []byte("\x00\x00\x00<")):
		rd.decodeWith(utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM), "utf-32be")
	case bytes.HasPrefix(b, []byte("<\x00\x00\x00")):
		rd.decodeWith(utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM), "utf-32le")
	case bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")):
		s.pos += 3
	case bytes.HasPrefix(b, []byte("\xFF\xFE")):
		s.pos += 2
		return rd.decodeFrom("utf-16le", false)
	case bytes.HasPrefix(b, []byte("\xFE\xFF")):
		s.pos += 2
		return rd.decodeFrom("utf-16be", false)
	case bytes.HasPrefix(b, []byte("<\x00?\x00")):
		return rd.decodeFrom("utf-16le", false)
	case bytes.HasPrefix(b, []byte("\x00<\x00?")):
		return rd.decodeFrom("utf-16be", false)
	}
	return nil
}

// decodeFrom makes the rest of the document read through a decoder from the
// named character encoding to UTF-8. The size limit stays on the bytes as
// they came. declared says the name comes from the XML declaration rather
// than from the bytes themselves.
func (rd *reader) decodeFrom(label string, declared bool) error {
	if declared && rd.sum.Encoding != "" {
		return nil // already decoding from UTF-16, which the bytes showed
	}
	e, name := charset.Lookup(label)
	if e == nil || name == "replacement" {
		// Read as UTF-8, as the feed parser does: a sitemap's locs are
		// nearly always ASCII, and a misspelt label is no reason to lose them.
		return nil
	}
	if name == "utf-8" || declared && strings.HasPrefix(name, "utf-16") {
		// A UTF-16 declaration that could be read as ASCII is wrong: the
		// bytes win.
		return nil
	}
	rd.decodeWith(e, name)
	return nil
}

// decodeWith makes the rest of the document read through e's decoder, and
// the Summary name the encoding.
func (rd *reader) decodeWith(e encoding.Encoding, name string) {
	rd.src.switchTo(e.NewDecoder().Reader(rd.src.rest()))
	rd.sum.Encoding = name
}

// beforeContent is the error for a source that failed before the document
// could be recognised: the reader's failure, or else not a sitemap.
func beforeContent(err error) error {
	var re *readError
	switch {
	case err == nil || err == io.EOF || err == errLimit:
		return nil
	case errors.As(err, &re):
		return re
	}
	return notSitemap("gzip data that cannot be read: %v", err)
}

// finish sorts out how the reading ended: the limits and broken documents go
// in the Summary, failures of the reader and of fn are the caller's errors.
func (rd *reader) finish(err error) error {
	var ce *callbackError
	var re *readError
	var se *syntaxError
	var ns *NotSitemapError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return ce.err
	case errors.As(err, &ns):
		return ns
	case err == errStop:
		rd.sum.Truncated = true
		rd.sum.Reason = fmt.Sprintf("more than %d entries", rd.opts.MaxEntries)
		return nil
	case err == errLimit:
		rd.sum.Truncated = true
		rd.sum.Reason = fmt.Sprintf("larger than %d bytes", rd.opts.MaxBytes)
		if rd.sum.Gzip {
			rd.sum.Reason += " uncompressed"
		}
		return nil
	case errors.As(err, &re):
		return re
	case errors.As(err, &se):
		rd.sum.Broken = true
		rd.sum.Reason = se.Error()
		return nil
	}
	// What else can end the bytes is the gzip stream: corrupt, or cut short.
	rd.sum.Broken = true
	rd.sum.Reason = "gzip stream broken: " + err.Error()
	return nil
}

// emit gives one entry to fn, unless its loc is unusable or the entry limit
// is reached. lastmod is its W3C lastmod, if it has one.
func (rd *reader) emit(typ Type, loc []byte, lastmod *field) error {
	loc = trimLoc(loc)
	if !validLoc(loc) {
		rd.sum.Skipped++
		return nil
	}
	if rd.sum.Entries() == rd.opts.MaxEntries {
		return errStop
	}
	var t time.Time
	if lastmod != nil && lastmod.seen {
		var ok bool
		if t, ok = dates.W3C(string(lastmod.value())); !ok {
			rd.sum.BadLastmod++
		}
	}
	return rd.give(Entry{Type: typ, Loc: string(loc), Lastmod: t})
}

// give counts an entry and hands it to fn.
func (rd *reader) give(e Entry) error {
	if rd.sum.Entries() == rd.opts.MaxEntries {
		return errStop
	}
	typ := e.Type
	if typ == Sitemap {
		rd.sum.Sitemaps++
	} else {
		rd.sum.URLs++
	}
	if err := rd.fn(e); err != nil {
		return &callbackError{err}
	}
	return nil
}

func (rd *reader) bytesRead() int64 {
	if rd.lim == nil {
		return 0
	}
	return rd.lim.read()
}
