package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func urlset(n int) string {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://n.example/%d</loc></url>\n", i)
	}
	b.WriteString("</urlset>\n")
	return b.String()
}

func TestEntryLimit(t *testing.T) {
	for _, tt := range []struct {
		name      string
		body      string
		max       int
		want      int
		truncated bool
	}{
		{"urlset at the limit", urlset(DefaultMaxEntries), 0, DefaultMaxEntries, false},
		{"urlset past the limit", urlset(DefaultMaxEntries + 1), 0, DefaultMaxEntries, true},
		{"small limit", urlset(10), 3, 3, true},
		{"text past the limit", strings.Repeat("https://t.example/x\n", DefaultMaxEntries+5), 0, DefaultMaxEntries, true},
		{"dropped locs do not count", `<urlset><url><loc>/a</loc></url><url><loc>/b</loc></url><url><loc>https://a.example/</loc></url></urlset>`, 1, 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := collect(strings.NewReader(tt.body), Options{MaxEntries: tt.max})
			if err != nil || len(got) != tt.want || sum.Truncated != tt.truncated || sum.Broken {
				t.Fatalf("%d entries, %+v, %v", len(got), sum, err)
			}
			if tt.truncated && !strings.Contains(sum.Reason, "entries") {
				t.Fatalf("reason %q", sum.Reason)
			}
		})
	}
}

func TestByteLimit(t *testing.T) {
	doc := urlset(3)
	n := int64(len(doc))
	got, sum, _ := collect(strings.NewReader(doc), Options{MaxBytes: n})
	if len(got) != 3 || !sum.Whole() || sum.Bytes != n {
		t.Fatalf("exactly at the limit: %d entries, %+v", len(got), sum)
	}
	// Two bytes short (the last is the newline after the root), the root cannot close: all entries are there, but the
	// file is not known whole.
	got, sum, _ = collect(strings.NewReader(doc), Options{MaxBytes: n - 2})
	if len(got) != 3 || !sum.Truncated || sum.Bytes != n-2 || !strings.Contains(sum.Reason, fmt.Sprint(n-2)) {
		t.Fatalf("one byte short: %d entries, %+v", len(got), sum)
	}
	// Cut inside the last url: it is not given.
	cut := int64(strings.LastIndex(doc, "</loc>"))
	got, sum, _ = collect(strings.NewReader(doc), Options{MaxBytes: cut})
	if len(got) != 2 || !sum.Truncated {
		t.Fatalf("cut in a loc: %d entries, %+v", len(got), sum)
	}
	// A text sitemap cut inside a line drops that line rather than giving a
	// shorter URL.
	text := "https://t.example/one\nhttps://t.example/two\nhttps://t.example/three\n"
	got, sum, _ = collect(strings.NewReader(text), Options{MaxBytes: int64(strings.Index(text, "three") + 2)})
	if len(got) != 2 || got[1].Loc != "https://t.example/two" || !sum.Truncated {
		t.Fatalf("text cut in a line: %v, %+v", got, sum)
	}
}

// gzipBomb is a few hundred kilobytes of gzip that inflate to size bytes: a
// urlset with three urls and then spaces, never closed. It is one compressed
// MiB of spaces repeated, which gzip reads as one stream of many members.
func gzipBomb(size int) []byte {
	var head, chunk bytes.Buffer
	zw := gzip.NewWriter(&head)
	zw.Write([]byte(urlset(3)[:len(urlset(3))-len("</urlset>\n")]))
	zw.Close()
	zw, _ = gzip.NewWriterLevel(&chunk, gzip.BestCompression)
	zw.Write(bytes.Repeat([]byte{' '}, 1<<20))
	zw.Close()
	return append(head.Bytes(), bytes.Repeat(chunk.Bytes(), size>>20)...)
}

func TestGzipBomb(t *testing.T) {
	bomb := gzipBomb(64 << 20)
	if len(bomb) > 256<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	got, sum, err := collect(bytes.NewReader(bomb), Options{})
	if err != nil || len(got) != 3 || !sum.Gzip || !sum.Truncated || sum.Bytes != DefaultMaxBytes {
		t.Fatalf("%d entries, %+v, %v", len(got), sum, err)
	}
	if !strings.Contains(sum.Reason, "52428800 bytes uncompressed") {
		t.Fatalf("reason %q", sum.Reason)
	}
}

func TestCallbackError(t *testing.T) {
	stop := errors.New("enough")
	calls := 0
	sum, err := Read(strings.NewReader(urlset(10)), Options{}, func(Entry) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 || sum.URLs != 2 {
		t.Fatalf("err %v after %d calls, %+v", err, calls, sum)
	}
}

func TestReaderError(t *testing.T) {
	broken := errors.New("connection reset")
	doc := urlset(5)
	cut := strings.Index(doc, "/3<")
	for _, tt := range []struct {
		name string
		r    io.Reader
		want int // -1: some
	}{
		{"at once", iotest.ErrReader(broken), 0},
		{"partway", io.MultiReader(strings.NewReader(doc[:cut]), iotest.ErrReader(broken)), 3},
		{"partway through gzip", func() io.Reader {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(urlset(2000)))
			zw.Close()
			return io.MultiReader(bytes.NewReader(b.Bytes()[:b.Len()/2]), iotest.ErrReader(broken))
		}(), -1},
		{"text partway", io.MultiReader(strings.NewReader("https://a.example/\nhttps://b.example/\nhttps://c.ex"), iotest.ErrReader(broken)), 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := collect(tt.r, Options{})
			var ns *NotSitemapError
			if !errors.Is(err, broken) || errors.As(err, &ns) || len(got) != tt.want && !(tt.want < 0 && len(got) > 0) {
				t.Fatalf("%d entries, err %v", len(got), err)
			}
			if !strings.HasPrefix(err.Error(), "read sitemap: ") {
				t.Fatalf("error %q", err)
			}
		})
	}
}

// TestLongTokens checks the bounds on what one token can make the decoder
// hold, and that what streams (comments, CDATA, skipped text) streams.
func TestLongTokens(t *testing.T) {
	big := func(n int) string { return strings.Repeat("x", n) }
	for _, tt := range []struct {
		name   string
		body   string
		want   int
		broken string
	}{
		{"a loc past maxField is dropped", `<urlset><url><loc>https://a.example/` + big(maxField) + `</loc></url><url><loc>https://b.example/</loc></url></urlset>`, 1, ""},
		{"a 5 MB comment", `<urlset><url><loc>https://a.example/</loc></url><!--` + big(5<<20) + `--><url><loc>https://b.example/</loc></url></urlset>`, 2, ""},
		{"5 MB of CDATA in an ignored element", `<urlset><url><loc>https://a.example/</loc><x><![CDATA[` + big(5<<20) + `]]></x></url></urlset>`, 1, ""},
		{"5 MB of text in an ignored element", `<urlset><url><x>` + big(5<<20) + `</x><loc>https://a.example/</loc></url></urlset>`, 1, ""},
		{"a 500 KB attribute", `<urlset><url><loc>https://a.example/</loc><x a="` + big(500<<10) + `"/></url></urlset>`, 1, ""},
		{"a 2 MB tag", `<urlset><url><loc>https://a.example/</loc></url><url><x a="` + big(2<<20) + `"/></url></urlset>`, 1, "longer than"},
		{"nested 2,000 deep", `<urlset><url><loc>https://a.example/</loc></url>` + strings.Repeat("<a>", 2000) + strings.Repeat("</a>", 2000) + `</urlset>`, 1, "nested deeper"},
		{"a 2 MB text line", "https://a.example/\n" + strings.Repeat("https://b.example/\n", 20) + big(2<<20) + "\nhttps://c.example/\n", 22, ""},
		{"a 2 MB doctype", `<!DOCTYPE urlset [` + big(2<<20) + `]><urlset/>`, 0, "not a sitemap"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := collect(strings.NewReader(tt.body), Options{})
			switch {
			case tt.broken == "not a sitemap":
				if err == nil || !strings.Contains(err.Error(), "longer than") {
					t.Fatalf("err %v", err)
				}
			case err != nil || len(got) != tt.want || sum.Broken != (tt.broken != "") || !strings.Contains(sum.Reason, tt.broken):
				t.Fatalf("%d entries, %+v, %v", len(got), sum, err)
			}
		})
	}
}

// TestTextWindow checks that a text sitemap is judged on its first 64 KiB.
func TestTextWindow(t *testing.T) {
	urls := strings.Repeat("https://w.example/page\n", bufSize/23+10)
	got, sum, err := collect(strings.NewReader(urls+"some junk\n<html>\nhttps://w.example/last\n"), Options{})
	if err != nil || sum.Skipped != 2 || got[len(got)-1].Loc != "https://w.example/last" {
		t.Fatalf("junk past the window: %d entries, %+v, %v", len(got), sum, err)
	}
	_, _, err = collect(strings.NewReader(strings.Repeat("j", bufSize+10)+"\nhttps://w.example/\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "first line is longer") {
		t.Fatalf("long first line: %v", err)
	}
}

// TestBoundaries reads documents split at every byte, so that each token is
// cut across two reads somewhere, and checks they read as when whole.
func TestBoundaries(t *testing.T) {
	docs := []string{
		`<?xml version="1.0" encoding="windows-1252"?><urlset><url><loc>https://a.example/caf` + "\xe9" + `?a=1&amp;b=&#x32;</loc><lastmod>2026-01-02</lastmod></url><!-- c --><url><loc><![CDATA[https://b.example/]]></loc></url></urlset>`,
		`<rss><channel><item><link>https://a.example/1</link><pubDate>Mon, 05 Jan 2026 09:00:00 EST</pubDate></item></channel></rss>`,
		"\xEF\xBB\xBFhttps://a.example/\r\nhttps://b.example/\r\n",
	}
	for _, doc := range docs {
		want, wantSum, _ := collect(strings.NewReader(doc), Options{})
		wantSum.Bytes = 0
		for i := 1; i < len(doc); i++ {
			r := io.MultiReader(strings.NewReader(doc[:i]), strings.NewReader(doc[i:]))
			got, sum, err := collect(r, Options{})
			sum.Bytes = 0
			if err != nil || !sameEntries(got, want) || sum != wantSum {
				t.Fatalf("split at %d of %q: %v %+v %v, want %v %+v", i, doc, got, sum, err, want, wantSum)
			}
		}
	}
}

func TestTypeAndFormatNames(t *testing.T) {
	if URL.String() != "url" || Sitemap.String() != "sitemap" || Type(0).String() != "unknown" {
		t.Fatal("type names")
	}
	for f, want := range map[Format]string{FormatURLSet: "urlset", FormatIndex: "sitemapindex", FormatText: "text",
		FormatRSS: "rss", FormatAtom: "atom", FormatUnknown: "unknown"} {
		if f.String() != want {
			t.Errorf("%d is %q, want %q", f, f, want)
		}
	}
}

// A text sitemap is whole only when no more of its lines are junk than
// URLs: one that is mostly not URLs may be an error page quoting a URL,
// and must not make the crawl take every other post as removed.
func TestTextSitemapWhole(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		urls      int
		whole     bool
	}{
		{"all URLs", "https://a.example/1\nhttps://a.example/2\n", 2, true},
		{"a junk line among URLs", "https://a.example/1\n# comment\nhttps://a.example/2\n", 2, true},
		{"as much junk as URLs", "https://a.example/1\nnot a url\n", 1, true},
		{"an error page quoting a URL", "Service moved.\nPlease see:\nhttps://a.example/moved\nThank you.\n", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := 0
			sum, err := Read(strings.NewReader(c.doc), Options{}, func(Entry) error { n++; return nil })
			if err != nil {
				t.Fatal(err)
			}
			if sum.Format != FormatText || n != c.urls || sum.Whole() != c.whole {
				t.Errorf("format %v, %d URLs, whole %v; want text, %d, %v (skipped %d)", sum.Format, n, sum.Whole(), c.urls, c.whole, sum.Skipped)
			}
		})
	}
}
