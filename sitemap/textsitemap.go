package sitemap

import (
	"bytes"
	"io"
)

// readText reads a text sitemap: one absolute http(s) URL a line, in UTF-8.
// Every such line is an entry; a blank line is passed over and counted in
// Summary.BlankLines, any other line (a comment, a PHP warning, a relative
// path, a line with markup) in Summary.Skipped. The document is first
// judged on its first 64 KiB, before any entry is given (judgeText), so
// that an error page is refused rather than mined for URLs.
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
			if skipping || len(b) == 0 {
				return nil // the rest of a long line, or nothing after the last newline
			}
			return rd.textLine(b)
		default:
			// A cut line is dropped rather than given as a shorter URL.
			return s.err
		}
	}
}

// textLine gives line if it is a URL and counts it if not.
func (rd *reader) textLine(line []byte) error {
	line = trimSpace(line)
	switch {
	case len(line) == 0:
		rd.sum.BlankLines++
		return nil
	case hasMarkup(line):
		// Not a URL, even if net/url would take one with "<b>" in it.
		rd.sum.Skipped++
		return nil
	}
	return rd.emit(URL, line, nil) // counts a line that is not a URL as skipped
}

// isTextURL reports whether a non-blank, trimmed line of a text sitemap is
// an entry, as textLine decides it.
func isTextURL(line []byte) bool { return !hasMarkup(line) && validLoc(trimLoc(line)) }

// judgeText decides whether the start of a document that is neither XML nor
// JSON is a text sitemap. A text sitemap is one URL a line, and lines that
// are not URLs do not unmake it: however many there are, each is passed over
// and counted, and every absolute http(s) URL line is kept (a generator's
// banner, comments or PHP warnings above a list lose no entry). A document
// is not a sitemap at all when its first 64 KiB (b)
//   - hold the tags of an HTML document (<html, <head, <body or <!doctype
//     html) anywhere: an error or login page is never mined for URLs;
//   - hold no line that is an absolute http(s) URL.
//
// complete says b is the whole document; otherwise its last line may be
// cut and is not judged.
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
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, newline)
		if line = trimSpace(line); len(line) > 0 && isTextURL(line) {
			return nil
		}
	}
	return notSitemap("neither XML nor a list of URLs")
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
