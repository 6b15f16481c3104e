package sitemap

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// genReader streams a generated document: head, n entries, tail. It holds
// one entry at a time, so that a test can read a 50 MB sitemap without
// holding 50 MB.
type genReader struct {
	head, tail []byte
	n, next    int
	entry      func(dst []byte, i int) []byte
	pending    []byte
	scratch    []byte
	stage      int // 0 head, 1 entries, 2 tail
}

func (g *genReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if len(g.pending) == 0 {
			switch {
			case g.stage == 0:
				g.pending, g.stage = g.head, 1
			case g.stage == 1 && g.next < g.n:
				g.scratch = g.entry(g.scratch[:0], g.next)
				g.pending = g.scratch
				g.next++
			case g.stage == 1:
				g.pending, g.stage = g.tail, 2
			default:
				if total == 0 {
					return 0, io.EOF
				}
				return total, nil
			}
		}
		c := copy(p, g.pending)
		g.pending, p, total = g.pending[c:], p[c:], total+c
	}
	return total, nil
}

const urlsetHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
	`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` + "\n"

// typicalEntry is a url as WordPress and Yoast write them, about 200 bytes:
// 50,000 of them make the ~10 MB sitemap of the benchmarks.
func typicalEntry(dst []byte, i int) []byte {
	return fmt.Appendf(dst, "  <url>\n    <loc>https://www.example-blog.com/%d/%02d/a-post-with-a-fairly-long-title-number-%d/</loc>\n"+
		"    <lastmod>2025-%02d-%02dT%02d:%02d:%02d+00:00</lastmod>\n    <changefreq>weekly</changefreq>\n  </url>\n",
		2010+i%16, 1+i%12, i, 1+i%12, 1+i%28, i%24, i%60, (i*7)%60)
}

// heavyEntry is a worst case of about 1,000 bytes a url: a long loc with
// entities split by CDATA, a fractional lastmod with an offset, images,
// hreflang alternates, news, a comment — everything the decoder must walk
// through or skip. 50,000 of them are just under the 50 MB limit.
func heavyEntry(dst []byte, i int) []byte {
	start := len(dst)
	dst = fmt.Appendf(dst, "<url><!-- entry %d -->\n<loc>https://www.example-news-site.com/section/sub-section/%d/a-very-long-headline-about-something-that-happened-today?utm_source=sitemap&amp;id=%d<![CDATA[&ref=cdata]]></loc>\n"+
		"<lastmod>2025-06-%02dT12:%02d:%02d.%03d-07:00</lastmod>\n"+
		"<image:image><image:loc>https://cdn.example.com/images/%d/large.jpg</image:loc><image:caption><![CDATA[A caption with <b>markup</b> & more]]></image:caption></image:image>\n"+
		"<image:image><image:loc>https://cdn.example.com/images/%d/small.jpg</image:loc></image:image>\n"+
		"<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://www.example-news-site.com/de/%d\"/>\n"+
		"<xhtml:link rel=\"alternate\" hreflang=\"fr\" href=\"https://www.example-news-site.com/fr/%d\"/>\n"+
		"<news:news><news:publication><news:name>Example News</news:name><news:language>en</news:language></news:publication>"+
		"<news:publication_date>2025-06-01T12:00:00Z</news:publication_date><news:title>Headline &amp; &#8220;quotes&#8221;</news:title></news:news>\n",
		i, i, i, 1+i%28, i%60, (i*7)%60, i%1000, i, i, i, i)
	// Pad to 1,000 bytes with a changefreq element and spaces.
	dst = append(dst, "<changefreq>daily</changefreq>"...)
	for len(dst)-start < 1000-len("</url>\n") {
		dst = append(dst, ' ')
	}
	return append(dst, "</url>\n"...)
}

func urlsetGen(n int, entry func([]byte, int) []byte) *genReader {
	return &genReader{head: []byte(urlsetHead), tail: []byte("</urlset>\n"), n: n, entry: entry}
}

// corpus is a benchmark and memory-test input.
type corpus struct {
	name  string
	n     int
	entry func([]byte, int) []byte
	gzip  bool
}

var corpora = []corpus{
	{"urlset-10MB", 50_000, typicalEntry, false},
	{"urlset-10MB-gz", 50_000, typicalEntry, true},
	{"worst-50MB", 50_000, heavyEntry, false},
}

// bytes is the whole document, compressed if the corpus is.
func (c corpus) bytes() []byte {
	var b bytes.Buffer
	if !c.gzip {
		io.Copy(&b, urlsetGen(c.n, c.entry))
		return b.Bytes()
	}
	zw, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
	io.Copy(zw, urlsetGen(c.n, c.entry))
	zw.Close()
	return b.Bytes()
}

// size is the uncompressed length of the document.
func (c corpus) size() int64 {
	n, _ := io.Copy(io.Discard, urlsetGen(c.n, c.entry))
	return n
}

// reader streams the document: generated as read when plain, from the
// (small) compressed bytes when gzipped.
func (c corpus) reader() io.Reader {
	if c.gzip {
		return bytes.NewReader(c.bytes())
	}
	return urlsetGen(c.n, c.entry)
}
