package sitemap

import (
	"bytes"
	"io"
)

// readText reads a text sitemap: one absolute URL a line, in UTF-8. Blank
// lines and lines that are not URLs are passed over. The document is first
// judged on its first 64 KiB, before any entry is given, so that an error
// page is refused rather than mined for URLs.
func (rd *reader) readText() error {
	s := rd.src
	s.ensure(bufSize)
	if err := judgeText(s.buf[s.pos:s.end], s.err != nil); err != nil {
		return err
	}
	rd.sum.Format = FormatText
	skipping := false // inside a line too long to hold
	for {
		b := s.buf[s.pos:s.end]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			s.pos += i + 1
			if skipping {
				skipping = false
				continue
			}
			if err := rd.textLine(b[:i]); err != nil {
				return err
			}
			continue
		}
		if s.grow() {
			continue
		}
		switch s.err {
		case nil: // the buffer is full of one line
			if !skipping {
				rd.sum.Skipped++
			}
			skipping = true
			s.pos = s.end
		case io.EOF:
			s.pos = s.end
			if skipping {
				return nil
			}
			return rd.textLine(b)
		default:
			// A cut line is dropped rather than given as a shorter URL.
			return s.err
		}
	}
}

func (rd *reader) textLine(line []byte) error {
	line = trimSpace(line)
	if len(line) == 0 {
		return nil
	}
	return rd.emit(URL, line, nil)
}

// judgeText decides whether the start of a document that is neither XML nor
// JSON is a text sitemap: nine in ten of its non-blank lines, and at least
// one, must be absolute http(s) URLs, and none may hold markup, so that an
// HTML page (or a fragment of one) never passes. complete says b is the
// whole document; otherwise its last line may be cut and is not judged.
func judgeText(b []byte, complete bool) error {
	if !complete {
		i := bytes.LastIndexByte(b, '\n')
		if i < 0 {
			return notSitemap("neither XML nor a list of URLs: the first line is longer than %d bytes", len(b))
		}
		b = b[:i]
	}
	if looksLikeHTML(b) {
		return notSitemap("an HTML page")
	}
	lines, urls := 0, 0
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, newline)
		if line = trimSpace(line); len(line) == 0 {
			continue
		}
		if hasMarkup(line) {
			return notSitemap("text with markup in it, not a list of URLs")
		}
		lines++
		if validLoc(line) {
			urls++
		}
	}
	if urls == 0 {
		return notSitemap("neither XML nor a list of URLs")
	}
	if urls*10 < lines*9 {
		return notSitemap("neither XML nor a list of URLs: only %d of the first %d lines are URLs", urls, lines)
	}
	return nil
}

// hasMarkup reports whether a line holds what looks like a tag: "<" and
// then a letter, "/", "!" or "?". A URL cannot, as "<" must be escaped in it.
func hasMarkup(line []byte) bool {
	for {
		i := bytes.IndexByte(line, '<')
		if i < 0 || i == len(line)-1 {
			return false
		}
		c := line[i+1] | 0x20
		if 'a' <= c && c <= 'z' || line[i+1] == '/' || line[i+1] == '!' || line[i+1] == '?' {
			return true
		}
		line = line[i+1:]
	}
}

func looksLikeHTML(b []byte) bool {
	for _, tag := range [...]string{"<html", "<!doctype html", "<head", "<body"} {
		if containsFold(b, tag) {
			return true
		}
	}
	return false
}

// containsFold reports whether b contains the lower-case ASCII string s, in
// any case.
func containsFold(b []byte, s string) bool {
	for i := bytes.IndexByte(b, s[0]); i >= 0 && i+len(s) <= len(b); {
		if bytes.EqualFold(b[i:i+len(s)], []byte(s)) {
			return true
		}
		j := bytes.IndexByte(b[i+1:], s[0])
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
