package sitemap_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/sitemap"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files from what Read gives")

// goldenBase is the URL every fixture is read as if fetched from; only feeds
// use it.
var goldenBase, _ = url.Parse("https://base.example/feeds/feed.xml")

// TestGolden reads every fixture testdata/NAME.EXT and compares what Read
// gives with testdata/NAME.golden: one JSON line per entry, as `corpusbot
// sitemap parse` prints them, then "#" lines with the Summary or the error.
// Run with -update to rewrite the golden files, then read the diff.
func TestGolden(t *testing.T) {
	fixtures, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range fixtures {
		if strings.HasSuffix(path, ".golden") || strings.HasPrefix(filepath.Base(path), ".") {
			continue
		}
		info, err := os.Stat(path)
		if err != nil || info.IsDir() {
			continue
		}
		n++
		name := filepath.Base(path)
		stem, _, _ := strings.Cut(name, ".")
		goldenPath := filepath.Join("testdata", stem+".golden")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(body, sitemap.Options{Base: goldenBase})
			if *update {
				if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(goldenPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s\ngot:\n%s\nwant:\n%s", name, goldenPath, got, want)
			}
		})
	}
	if n < 40 {
		t.Fatalf("only %d fixtures found", n)
	}
}

// readAll renders what Read gives for body in the golden form.
func readAll(body []byte, opts sitemap.Options) string {
	var out bytes.Buffer
	sum, err := sitemap.Read(bytes.NewReader(body), opts, func(e sitemap.Entry) error {
		out.WriteString(entryJSON(e))
		out.WriteByte('\n')
		return nil
	})
	if err != nil {
		fmt.Fprintf(&out, "# error: %v\n", err)
		return out.String()
	}
	fmt.Fprintf(&out, "# format=%s gzip=%t encoding=%q urls=%d sitemaps=%d skipped=%d badlastmod=%d whole=%t\n",
		sum.Format, sum.Gzip, sum.Encoding, sum.URLs, sum.Sitemaps, sum.Skipped, sum.BadLastmod, sum.Whole())
	switch {
	case sum.Truncated:
		fmt.Fprintf(&out, "# truncated: %s\n", sum.Reason)
	case sum.Broken:
		fmt.Fprintf(&out, "# broken: %s\n", sum.Reason)
	}
	return out.String()
}

// entryJSON is an entry as the command prints it.
func entryJSON(e sitemap.Entry) string {
	v := struct {
		Type    string `json:"type"`
		Loc     string `json:"loc"`
		Lastmod string `json:"lastmod,omitempty"`
	}{Type: e.Type.String(), Loc: e.Loc}
	if !e.Lastmod.IsZero() {
		v.Lastmod = e.Lastmod.Format(time.RFC3339Nano)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Reads at once, each with buffers kept from earlier reads (read.go's
// pools), give what one read alone gives: no read sees another's bytes.
func TestGoldenConcurrently(t *testing.T) {
	fixtures, err := filepath.Glob("testdata/*.golden")
	if err != nil || len(fixtures) == 0 {
		t.Fatal("no golden files", err)
	}
	type fixture struct{ body, want []byte }
	var all []fixture
	for _, golden := range fixtures {
		stem := strings.TrimSuffix(golden, ".golden")
		inputs, _ := filepath.Glob(stem + ".*")
		for _, in := range inputs {
			if in == golden {
				continue
			}
			body, err1 := os.ReadFile(in)
			want, err2 := os.ReadFile(golden)
			if err1 == nil && err2 == nil {
				all = append(all, fixture{body, want})
			}
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 3 * len(all) {
				f := all[(i+g*7)%len(all)]
				if got := readAll(f.body, sitemap.Options{Base: goldenBase}); got != string(f.want) {
					t.Errorf("a read beside others gave\n%s\nwant\n%s", got, f.want)
					return
				}
			}
		})
	}
	wg.Wait()
}
