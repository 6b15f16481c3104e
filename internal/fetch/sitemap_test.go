package fetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/sitemap"
)

// bigSitemap is a urlset of n entries of about 175 bytes: 50,000 make
// the ~8.7 MB sitemap of a large blog, over BODY_MAX and far under the
// protocol's 50 MB.
func bigSitemap(host string, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "<url><loc>https://%s/%d/%02d/a-post-with-a-fairly-long-title-number-%06d/</loc>"+
			"<lastmod>2025-%02d-%02dT10:00:00+00:00</lastmod><changefreq>weekly</changefreq></url>\n",
			host, 2010+i%16, 1+i%12, i, 1+i%12, 1+i%28)
	}
	b.WriteString("</urlset>\n")
	return b.Bytes()
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = z.Write(b)
	_ = z.Close()
	return buf.Bytes()
}

// preencoded serves body as it is, with the given headers: a sitemap
// compressed once, so that serving it allocates nothing.
func preencoded(body []byte, header ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write(body)
	})
}

// sitemapForms are the three ways a large sitemap is served: plain, with
// Content-Encoding: gzip, and as a .gz file; wire is the bytes sent.
type sitemapForm struct {
	name, path string
	handler    http.Handler
	wire       int
}

func sitemapForms(doc []byte) []sitemapForm {
	z := gzipped(doc)
	return []sitemapForm{
		{"plain", "/sitemap.xml", preencoded(doc, "Content-Type", "application/xml"), len(doc)},
		{"content-encoding-gzip", "/sitemap-ce.xml", preencoded(z, "Content-Type", "application/xml", "Content-Encoding", "gzip"), len(z)},
		{"gz-file", "/sitemap.xml.gz", preencoded(z, "Content-Type", "application/x-gzip"), len(z)},
	}
}

// longReads gives the whole exchange the default minute, for the race
// detector's sake: inflating and parsing 50 MB under it takes seconds.
func longReads(_ *config.Settings, o *fetch.Options) { o.Timeouts.Total = time.Minute }

// streamSitemap fetches u with the sitemap read as it arrives, as the
// crawler does.
func streamSitemap(r *rig, u string) (fetch.Result, sitemap.Summary, error) {
	var sum sitemap.Summary
	var perr error
	res := r.f.Fetch(context.Background(), fetch.Request{URL: u, Purpose: model.PurposeSitemap,
		Stream: func(_ string, body io.Reader) {
			sum, perr = sitemap.Read(body, sitemap.Options{}, func(sitemap.Entry) error { return nil })
		}})
	return res, sum, perr
}

// A valid sitemap over BODY_MAX is read whole, in each form, under the
// sitemap protocol's limits; pages and feeds keep BODY_MAX.
func TestSitemapOverBodyMax(t *testing.T) {
	doc := bigSitemap("big.example", sitemap.DefaultMaxEntries)
	r := newRig(t, false, longReads)
	if len(doc) < 7_500_000 || int64(len(doc)) <= r.s.BodyMax {
		t.Fatalf("the sitemap is %d bytes, BODY_MAX %d", len(doc), r.s.BodyMax)
	}
	h := r.web.Host("big.example")
	h.Robots("User-agent: *\nAllow: /\n")
	for _, form := range sitemapForms(doc) {
		h.Handle(form.path, form.handler)
		t.Run(form.name, func(t *testing.T) {
			res, sum, err := streamSitemap(r, h.URL(form.path))
			want(t, res, model.OutcomeFetched)
			if err != nil || sum.URLs != sitemap.DefaultMaxEntries || !sum.Whole() {
				t.Fatalf("read %+v, %v", sum, err)
			}
			if res.Body != nil {
				t.Errorf("a streamed body is also in Result.Body (%d bytes)", len(res.Body))
			}
			recs := r.records()
			decoded := len(doc)
			if form.name == "gz-file" {
				decoded = form.wire // the fetcher hands the file on compressed; the parser inflates it
			}
			if rec := recs[len(recs)-1]; rec.Bytes != int64(decoded) {
				t.Errorf("record says %d bytes read, want %d", rec.Bytes, decoded)
			}
			t.Logf("%s: %d bytes sent, %d entries", form.name, form.wire, sum.URLs)

			// Buffered, the same sitemap is read too: the sitemap limit is
			// the purpose's, not the stream's.
			res = r.get(h.URL(form.path), model.PurposeSitemap)
			want(t, res, model.OutcomeFetched)
			if len(res.Body) != decoded {
				t.Errorf("buffered: %d bytes, want %d", len(res.Body), decoded)
			}
		})
	}
	t.Run("pages and feeds keep BODY_MAX", func(t *testing.T) {
		h.Handle("/big.html", preencoded(doc, "Content-Type", "text/html"))
		h.Handle("/big.rss", preencoded(doc, "Content-Type", "application/rss+xml"))
		want(t, r.get(h.URL("/big.html"), model.PurposePage), model.OutcomeTooLarge)
		want(t, r.get(h.URL("/big.rss"), model.PurposeFeed), model.OutcomeTooLarge)
	})
}

// writeHugeSitemap writes a urlset of n entries of about 1,100 bytes each,
// so that the 50 MB limit comes before the 50,000 entries.
func writeHugeSitemap(out io.Writer, n int) error {
	tail := strings.Repeat("x", 1000)
	if _, err := io.WriteString(out, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`+"\n"); err != nil {
		return err
	}
	for i := range n {
		if _, err := fmt.Fprintf(out, "<url><loc>https://huge.example/%d/%s</loc></url>\n", i, tail); err != nil {
			return err
		}
	}
	_, err := io.WriteString(out, "</urlset>\n")
	return err
}

// hugeSitemap serves writeHugeSitemap as it is written, with
// Content-Encoding: gzip when encode is set.
func hugeSitemap(n int, encode bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		if !encode {
			_ = writeHugeSitemap(w, n)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		z, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		defer z.Close()
		_ = writeHugeSitemap(z, n)
	})
}

// An oversized sitemap keeps what it read up to the limit and says it was
// truncated, whatever the transfer encoding; the rest is not downloaded.
func TestSitemapTruncated(t *testing.T) {
	r := newRig(t, false, longReads)
	h := r.web.Host("huge.example")
	h.Robots("User-agent: *\nAllow: /\n")
	const entries = 52_000 // about 55 MB
	var gzFile bytes.Buffer
	z, _ := gzip.NewWriterLevel(&gzFile, gzip.BestSpeed)
	if err := writeHugeSitemap(z, entries); err != nil || z.Close() != nil {
		t.Fatal(err)
	}
	h.Handle("/plain.xml", hugeSitemap(entries, false))
	h.Handle("/encoded.xml", hugeSitemap(entries, true))
	h.Handle("/file.xml.gz", preencoded(gzFile.Bytes(), "Content-Type", "application/x-gzip"))
	h.Handle("/many.xml", preencoded(bigSitemap("huge.example", sitemap.DefaultMaxEntries+1), "Content-Type", "application/xml"))
	for _, tc := range []struct{ path, reason string }{
		{"/plain.xml", "larger than 52428800 bytes"},
		{"/encoded.xml", "larger than 52428800 bytes"},
		{"/file.xml.gz", "larger than 52428800 bytes uncompressed"},
		{"/many.xml", "more than 50000 entries"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if testing.Short() && tc.path != "/many.xml" {
				t.Skip("reads 50 MB")
			}
			res, sum, err := streamSitemap(r, h.URL(tc.path))
			want(t, res, model.OutcomeFetched)
			if err != nil || !sum.Truncated || sum.Whole() || sum.Reason != tc.reason {
				t.Fatalf("read %+v, %v; want truncated: %s", sum, err, tc.reason)
			}
			if tc.path != "/many.xml" && (sum.URLs < 45_000 || sum.URLs >= 50_000) {
				t.Errorf("%d entries kept before the 50 MB cut", sum.URLs)
			}
			if tc.path == "/many.xml" && sum.URLs != sitemap.DefaultMaxEntries {
				t.Errorf("%d entries kept, want the first 50,000", sum.URLs)
			}
		})
	}
	// What a stream leaves unread is not downloaded: a read that stops at
	// the first entry (as discovery's check does) hangs up on the rest.
	var entries0 int
	res := r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/plain.xml"), Purpose: model.PurposeSitemap,
		Stream: func(_ string, body io.Reader) {
			_, _ = sitemap.Read(body, sitemap.Options{}, func(sitemap.Entry) error { entries0++; return io.EOF })
		}})
	want(t, res, model.OutcomeFetched)
	reqs := r.web.RequestsTo(h.Name())
	if sent := reqs[len(reqs)-1].Bytes; entries0 != 1 || sent > 30<<20 {
		t.Errorf("stopped after %d entries, the server sent %d bytes of 55 MB", entries0, sent)
	}
	if rec := r.records(); rec[len(rec)-1].Bytes > 1<<20 {
		t.Errorf("%d bytes read to find the first entry", rec[len(rec)-1].Bytes)
	}
	// Buffered, a sitemap is read as far as the fetcher's cap, a little
	// past 50 MB, and refused beyond it: the cut is the parser's to make.
	h.Handle("/plain-over-cap.xml", hugeSitemap(entries*2, false))
	want(t, r.get(h.URL("/plain-over-cap.xml"), model.PurposeSitemap), model.OutcomeTooLarge)
}
