package fetch

import (
	"bytes"
	"mime"
	"strings"

	"corpus.blog/corpusbot/internal/model"
)

// typeVerdict is what the Content-Type header alone says about a body.
type typeVerdict int

const (
	typeWrong typeVerdict = iota // close unread
	typeRight                    // read it
	typeSniff                    // a type sites send wrongly: read the first bytes and decide
)

// sniffLen is how much of a body is read to decide an ambiguous type.
const sniffLen = 512

// MediaType is the lowercase media type of a Content-Type value, without
// parameters; "" when the value is empty or unreadable.
func MediaType(contentType string) string {
	if strings.TrimSpace(contentType) == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		// A value mime rejects (a bad parameter) still usually starts with a
		// good type; take what precedes the first ";".
		mt, _, _ = strings.Cut(contentType, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	if strings.Count(mt, "/") != 1 || strings.ContainsAny(mt, " \t\"") {
		return ""
	}
	return mt
}

var (
	htmlTypes = set("text/html", "application/xhtml+xml")
	feedTypes = set("application/rss+xml", "application/atom+xml", "application/rdf+xml",
		"application/feed+json", "application/xml", "text/xml", "application/json",
		"text/rss+xml", "text/atom+xml", "application/x-rss+xml")
	sitemapTypes = set("application/xml", "text/xml", "application/gzip", "application/x-gzip")
	// Types sites really serve feeds and sitemaps under: decided by sniffing.
	ambiguousTypes = set("", "text/html", "text/plain", "application/octet-stream",
		"binary/octet-stream", "application/x-download", "application/download",
		"application/xhtml+xml", "application/x-httpd-php", "text/x-php")
)

func set(s ...string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, v := range s {
		m[v] = true
	}
	return m
}

// judgeType decides from the header whether a body of this purpose is read.
func judgeType(p model.Purpose, mediaType string) typeVerdict {
	switch p {
	case model.PurposeRobots, model.PurposeClaim, model.PurposeWebSub, model.PurposeIndexNow:
		// RFC 9309 reads what is served; the parser ignores what is not a
		// rule. A claim file (or an IndexNow key file) is a token in
		// whatever type the host gives it; a hub's answer is read only for
		// its error message.
		return typeRight
	case model.PurposePage:
		if htmlTypes[mediaType] {
			return typeRight
		}
		if mediaType == "" {
			return typeSniff
		}
		return typeWrong
	case model.PurposeFeed, model.PurposeCatalogue:
		if feedTypes[mediaType] {
			return typeRight
		}
	case model.PurposeSitemap:
		if sitemapTypes[mediaType] {
			return typeRight
		}
	}
	if ambiguousTypes[mediaType] || strings.HasSuffix(mediaType, "+xml") {
		return typeSniff
	}
	return typeWrong
}

// sniffed is what the first bytes of a body look like.
type sniffed int

const (
	sniffOther sniffed = iota
	sniffHTML
	sniffXML
	sniffJSON
	sniffGzip
	sniffURLList
)

// sniff classifies the start of a (decoded) body.
func sniff(b []byte) sniffed {
	if len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b {
		return sniffGzip
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n\f")
	lower := bytes.ToLower(b[:min(len(b), sniffLen)])
	switch {
	case len(b) == 0:
		return sniffOther
	case b[0] == '{':
		return sniffJSON
	case bytes.HasPrefix(lower, []byte("http://")), bytes.HasPrefix(lower, []byte("https://")):
		return sniffURLList
	case b[0] != '<':
		return sniffOther
	}
	// Skip the prolog (an XML declaration, processing instructions,
	// comments); the first element names the document.
	for {
		var end []byte
		switch {
		case bytes.HasPrefix(lower, []byte("<?")):
			end = []byte("?>")
		case bytes.HasPrefix(lower, []byte("<!--")):
			end = []byte("-->")
		}
		if end == nil {
			break
		}
		i := bytes.Index(lower, end)
		if i < 0 {
			return sniffXML // a prolog longer than we look at: not HTML
		}
		lower = bytes.TrimLeft(lower[i+len(end):], " \t\r\n")
	}
	if len(lower) == 0 {
		return sniffXML
	}
	for _, tag := range []string{"<!doctype html", "<html", "<head", "<body", "<meta", "<title", "<script", "<div", "<p>", "<!doctype"} {
		if bytes.HasPrefix(lower, []byte(tag)) {
			return sniffHTML
		}
	}
	if bytes.HasPrefix(lower, []byte("<")) {
		return sniffXML
	}
	return sniffOther
}

// sniffAccepts decides an ambiguous type from the body's first bytes.
func sniffAccepts(p model.Purpose, s sniffed) bool {
	switch p {
	case model.PurposePage:
		return s == sniffHTML
	case model.PurposeFeed, model.PurposeCatalogue:
		return s == sniffXML || s == sniffJSON
	case model.PurposeSitemap:
		return s == sniffXML || s == sniffGzip || s == sniffURLList
	}
	return true
}
