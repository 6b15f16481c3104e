package simweb

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
)

// BigSitemap is a urlset of Entries URLs on Host, each about URLBytes long
// (a slug padded out, as some generators make them), written as it is
// generated so that a body near the protocol's 50 MB is never held whole by
// the test serving it. 38,000 entries of 1,300 bytes make a body of about
// 51.7 MB (49.3 MiB), just inside the 50 MiB a sitemap may be.
type BigSitemap struct {
	Host     string
	Entries  int
	URLBytes int
	// BeforeEnd, when set, is called after the last entry is written and
	// before the closing tag: a test holds the end of the body there, to
	// make two reads finish together.
	BeforeEnd func()
}

// URL is entry i's URL.
func (s BigSitemap) URL(i int) string {
	head := fmt.Sprintf("http://%s/%d/%02d/", s.Host, 2010+i%16, 1+i%12)
	tail := fmt.Sprintf("-%06d/", i)
	pad := max(0, s.URLBytes-len(head)-len(tail))
	const words = "a-post-with-a-very-long-title-that-goes-on-and-on-"
	return head + strings.Repeat(words, pad/len(words)+1)[:pad] + tail
}

// ServeHTTP writes the urlset.
func (s BigSitemap) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/xml")
	b := bufio.NewWriterSize(w, 64<<10)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range s.Entries {
		_, err := fmt.Fprintf(b, "<url><loc>%s</loc><lastmod>2025-%02d-%02dT10:00:00+00:00</lastmod></url>\n", s.URL(i), 1+i%12, 1+i%28)
		if err != nil {
			return // the reader went away (bufio keeps the first failure)
		}
	}
	if err := b.Flush(); err != nil {
		return
	}
	if s.BeforeEnd != nil {
		s.BeforeEnd()
	}
	b.WriteString("</urlset>\n")
	_ = b.Flush()
}
