package warc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// TestDiskCostPerPage measures what keeping pages costs on disk: real
// pages (a directory of .html or .html.gz files named by
// CORPUSBOT_WARC_SIZE_PAGES, such as ../shared/extraction/aeb/html) written
// through the Writer as the crawler writes them, with a crawler's request
// and a server's response headers, and the files' size divided by the
// pages. Skipped without the variable: the pages are not the
// repository's.
//
//	CORPUSBOT_WARC_SIZE_PAGES=/work/shared/extraction/aeb/html go test ./internal/warc -run DiskCostPerPage -v
func TestDiskCostPerPage(t *testing.T) {
	dir := os.Getenv("CORPUSBOT_WARC_SIZE_PAGES")
	if dir == "" {
		t.Skip("CORPUSBOT_WARC_SIZE_PAGES names no directory of pages")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.html*"))
	if len(paths) == 0 {
		t.Fatalf("no .html or .html.gz files in %s", dir)
	}
	out := t.TempDir()
	w, err := Open(out, Options{Now: fixedClock(), Prefix: "size"})
	if err != nil {
		t.Fatal(err)
	}
	var html int64
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		html += int64(len(b))
		err = w.Write(context.Background(), Exchange{
			URL: fmt.Sprintf("https://blog%d.example.org/2025/06/a-post-about-something-%d/", i%40, i),
			RequestHeader: http.Header{"User-Agent": {"CorpusBot/1.0 (+https://corpus.blog/crawler)"},
				"Accept": {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}, "Accept-Encoding": {"gzip, br"}},
			Status: 200,
			ResponseHeader: http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Date": {"Sun, 01 Mar 2026 12:00:00 GMT"},
				"Last-Modified": {"Sat, 28 Feb 2026 09:13:00 GMT"}, "Etag": {`W/"5f3c-18e2a0b1c40"`}, "Content-Encoding": {"gzip"},
				"Server": {"nginx"}, "Cache-Control": {"max-age=600"}, "Vary": {"Accept-Encoding"}},
			Body:       b,
			RemoteAddr: "192.0.2.10:443",
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var disk int64
	for _, f := range w.Files() {
		info, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		disk += info.Size()
	}
	n := int64(len(paths))
	t.Logf("%d pages: %d bytes of HTML (%.1f KiB a page); WARC files %d bytes: %.1f KiB a page (%.0f%% of the HTML); 1,000,000 pages: %.1f GiB",
		n, html, float64(html)/float64(n)/1024, disk, float64(disk)/float64(n)/1024, 100*float64(disk)/float64(html),
		float64(disk)/float64(n)*1e6/(1<<30))
}
