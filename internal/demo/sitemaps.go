package demo

import (
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// sitemapDoc is one sitemap file of a blog, by path.
type sitemapDoc struct {
	path, body string
}

// sitemapDocs renders a blog's sitemaps: one urlset at /sitemap.xml, or an
// index at /sitemap_index.xml with one child per year of publication (each
// with the lastmod of its newest change, so that a reader skips the years
// where nothing moved).
func sitemapDocs(b *Blog, live []*Post) []sitemapDoc {
	switch b.Sitemap {
	case farm.SitemapNone:
		return nil
	case farm.SitemapIndex:
	default:
		return []sitemapDoc{{"/sitemap.xml", urlset(b, live)}}
	}
	byYear := map[int][]*Post{}
	var years []int
	for i := len(live) - 1; i >= 0; i-- { // oldest first
		y := live[i].Published.Year()
		if _, ok := byYear[y]; !ok {
			years = append(years, y)
		}
		byYear[y] = append(byYear[y], live[i])
	}
	var idx strings.Builder
	idx.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	docs := []sitemapDoc{}
	for _, y := range years {
		path := fmt.Sprintf("/sitemap-posts-%d.xml", y)
		fmt.Fprintf(&idx, "<sitemap><loc>%s</loc><lastmod>%s</lastmod></sitemap>\n", b.URL(path), newest(byYear[y]).Format(time.RFC3339))
		docs = append(docs, sitemapDoc{path, urlset(b, byYear[y])})
	}
	idx.WriteString("</sitemapindex>\n")
	return append([]sitemapDoc{{"/sitemap_index.xml", idx.String()}}, docs...)
}

func urlset(b *Blog, posts []*Post) string {
	var s strings.Builder
	s.Grow(len(posts)*120 + 200)
	s.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, p := range posts {
		fmt.Fprintf(&s, "<url><loc>%s</loc><lastmod>%s</lastmod></url>\n", b.URL(p.Path), p.Updated.Format(time.RFC3339))
	}
	s.WriteString("</urlset>\n")
	return s.String()
}
