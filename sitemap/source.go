package sitemap

import (
	"bytes"
	"io"
)

// Buffer sizes. A token that must be seen whole (a tag, a doctype, a line of a
// text sitemap) may grow the buffer up to maxBuf; text, comments and CDATA
// stream through it in pieces whatever their length.
const (
	bufSize = 64 << 10
	maxBuf  = 1 << 20
)

// source is the document's bytes, read from r into one reusable buffer:
// buf[pos:end] is read but not yet consumed. Slices of buf stay valid only
// until the next fill.
type source struct {
	r        io.Reader
	buf      []byte
	pos, end int
	err      error // why r stopped: io.EOF, errLimit, a *readError, a gzip error
	lines    int   // newlines in the bytes already discarded
}

func newSource(r io.Reader) *source {
	return &source{r: r, buf: *bufPool.Get().(*[]byte)}
}

// fill reads more of r, keeping the unconsumed bytes. It reports whether new
// bytes arrived; when none can, s.err says why, or, when it is nil, the
// buffer is full with maxBuf unconsumed bytes.
func (s *source) fill() bool {
	if s.err != nil {
		return false
	}
	if s.pos > 0 {
		s.lines += bytes.Count(s.buf[:s.pos], newline)
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxBuf {
			return false
		}
		grown := make([]byte, min(2*len(s.buf), maxBuf))
		copy(grown, s.buf[:s.end])
		s.buf = grown
	}
	// An io.Reader may return no bytes and no error; give it a few chances,
	// as bufio does, before calling that a failure.
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.err = &readError{io.ErrNoProgress}
	return false
}

var newline = []byte{'\n'}

// grow is fill for a token that did not fit in what is buffered: it reads
// until the unconsumed bytes have doubled, so that re-reading the token from
// its start after each arrival costs, in all, a constant times its length
// however small the reads of r.
func (s *source) grow() bool {
	want := min(2*(s.end-s.pos)+1, maxBuf)
	if !s.fill() {
		return false
	}
	for s.end-s.pos < want && s.fill() {
	}
	return true
}

// ensure tries to have n unconsumed bytes and reports whether it does.
func (s *source) ensure(n int) bool {
	for s.end-s.pos < n {
		if !s.fill() {
			return false
		}
	}
	return true
}

// line is the 1-based line of the next unconsumed byte.
func (s *source) line() int {
	return s.lines + bytes.Count(s.buf[:s.pos], newline) + 1
}

// rest is the unconsumed bytes, copied, followed by whatever r still holds:
// the input of a character decoder that takes over from here.
func (s *source) rest() io.Reader {
	pending := bytes.Clone(s.buf[s.pos:s.end])
	if s.err != nil {
		return io.MultiReader(bytes.NewReader(pending), errReader{s.err})
	}
	return io.MultiReader(bytes.NewReader(pending), s.r)
}

// switchTo makes r the source of the bytes from here on.
func (s *source) switchTo(r io.Reader) {
	s.lines += bytes.Count(s.buf[:s.pos], newline)
	s.r, s.pos, s.end, s.err = r, 0, 0, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// limitReader gives at most max bytes of r; past them it says errLimit, so
// that a document exactly max bytes long is still read whole.
type limitReader struct {
	r   io.Reader
	max int64
	n   int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n > l.max {
		return 0, errLimit
	}
	if room := l.max + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.max {
		return n - int(l.n-l.max), errLimit
	}
	return n, err
}

// read is the number of document bytes given out.
func (l *limitReader) read() int64 { return min(l.n, l.max) }

// rawReader marks the errors of the caller's reader, so that a failing
// connection is told apart from a corrupt gzip stream above it.
type rawReader struct{ r io.Reader }

func (r rawReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = &readError{err}
	}
	return n, err
}
