package sitemap

import (
	"errors"
	"fmt"
)

// NotSitemapError says that a document is not a sitemap in any form Read
// knows, and why: an HTML error page served with status 200, an empty body,
// JSON, XML of another kind.
type NotSitemapError struct {
	Reason string
}

func (e *NotSitemapError) Error() string { return "not a sitemap: " + e.Reason }

func notSitemap(format string, args ...any) error {
	return &NotSitemapError{Reason: fmt.Sprintf(format, args...)}
}

// errLimit is what the size-limited reader returns past the byte limit.
var errLimit = errors.New("size limit reached")

// syntaxError is malformed XML at a line of the document.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("XML syntax error on line %d: %s", e.line, e.msg)
}

// readError is a failure of the reader the document comes from, as opposed
// to a problem with the document itself.
type readError struct{ err error }

func (e *readError) Error() string { return "read sitemap: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }
