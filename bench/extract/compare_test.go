// Package compare measures corpusbot's page extraction beside the two Go
// extractors it is most often compared with, go-readability called plainly
// and go-trafilatura, on the same pages in one run: F1 of 4-gram shingles
// against a hand-cut text (the metric of the article-extraction benchmark)
// and CPU milliseconds per page. It is its own module so that
// go-trafilatura and what it brings (a WebAssembly regexp engine among
// them) are compiled only here, not into the crawler or its tests.
//
// The pages are testdata/NAME.html with NAME.txt, the article as a careful
// reader would cut it out; testdata/gen.py wrote them, each after a kind of
// template common on the web. They are made up, so they say which
// extractor handles which kind of page, not how good any is on the web.
package compare

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"corpus.blog/corpusbot/internal/extract"
)

type page struct {
	name  string
	body  []byte
	url   *url.URL
	truth string
}

func loadPages(tb testing.TB) []page {
	tb.Helper()
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	if len(names) < 10 {
		tb.Fatalf("only %d pages", len(names))
	}
	var out []page
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			tb.Fatal(err)
		}
		truth, err := os.ReadFile(strings.TrimSuffix(n, ".html") + ".txt")
		if err != nil {
			tb.Fatal(err)
		}
		stem := filepath.Base(strings.TrimSuffix(n, ".html"))
		u, _ := url.Parse("https://plotnotes.example/2026/03/" + stem + "/")
		out = append(out, page{stem, body, u, string(truth)})
	}
	return out
}

// extractors are the three, each reading a page body into its text.
var extractors = []struct {
	name string
	run  func(body []byte, u *url.URL) string
}{
	{"corpusbot", func(body []byte, u *url.URL) string {
		p, err := extract.ParseResponse(body, u, "text/html; charset=utf-8", "CorpusBot")
		if err != nil {
			return ""
		}
		return p.Text
	}},
	{"go-readability", func(body []byte, u *url.URL) string {
		a, err := readability.FromReader(bytes.NewReader(body), u)
		if err != nil || a.Node == nil {
			return ""
		}
		var b strings.Builder
		if a.RenderText(&b) != nil {
			return ""
		}
		return b.String()
	}},
	{"go-trafilatura", func(body []byte, u *url.URL) string {
		r, err := trafilatura.Extract(bytes.NewReader(body), trafilatura.Options{OriginalURL: u})
		if err != nil || r == nil {
			return ""
		}
		return r.ContentText
	}},
}

// TestCompare prints each extractor's F1, precision and recall over the
// pages, and each page's F1, so that a regression is seen page by page.
// corpusbot must not fall below the others' best by more than a little.
func TestCompare(t *testing.T) {
	pages := loadPages(t)
	best, ours := 0.0, 0.0
	var report strings.Builder
	fmt.Fprintf(&report, "%-16s %6s %6s %6s   per page (F1)\n", "extractor", "F1", "prec", "recall")
	for _, x := range extractors {
		var ps, rs []float64
		var per []string
		for _, p := range pages {
			pr, rc := shingleScore(p.truth, x.run(p.body, p.url))
			ps, rs = append(ps, pr), append(rs, rc)
			per = append(per, fmt.Sprintf("%s %.2f", p.name, f1(pr, rc)))
		}
		pr, rc := mean(ps), mean(rs)
		fmt.Fprintf(&report, "%-16s %6.3f %6.3f %6.3f   %s\n", x.name, f1(pr, rc), pr, rc, strings.Join(per, ", "))
		if x.name == "corpusbot" {
			ours = f1(pr, rc)
		} else if f1(pr, rc) > best {
			best = f1(pr, rc)
		}
	}
	t.Log("\n" + report.String())
	if ours < best-0.02 {
		t.Errorf("corpusbot F1 %.3f, the best other %.3f", ours, best)
	}
}

// BenchmarkExtract runs each extractor over all the pages; ms/page is the
// CPU figure (run with -cpu 1), f1 the quality beside it.
func BenchmarkExtract(b *testing.B) {
	pages := loadPages(b)
	for _, x := range extractors {
		b.Run("lib="+x.name, func(b *testing.B) {
			var ps, rs []float64
			for _, p := range pages {
				pr, rc := shingleScore(p.truth, x.run(p.body, p.url))
				ps, rs = append(ps, pr), append(rs, rc)
			}
			b.ResetTimer()
			for b.Loop() {
				for _, p := range pages {
					x.run(p.body, p.url)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(pages)), "ms/page")
			b.ReportMetric(f1(mean(ps), mean(rs)), "f1")
		})
	}
}

var tokenRE = regexp.MustCompile(`\w+`)

// shingleScore is the article-extraction benchmark's metric for one page:
// 4-gram shingles of \w+ tokens counted with multiplicity, precision and
// recall of the predicted text's against the true text's.
func shingleScore(truth, pred string) (precision, recall float64) {
	t, p := shingles(truth), shingles(pred)
	var tp, fp, fn float64
	keys := map[string]bool{}
	for k := range t {
		keys[k] = true
	}
	for k := range p {
		keys[k] = true
	}
	for k := range keys {
		tc, pc := float64(t[k]), float64(p[k])
		tp += min(tc, pc)
		fp += max(0, pc-tc)
		fn += max(0, tc-pc)
	}
	precision, recall = 1, 1
	if fp+fn > 0 {
		if tp+fp > 0 {
			precision = tp / (tp + fp)
		} else {
			precision = 0
		}
		if tp+fn > 0 {
			recall = tp / (tp + fn)
		} else {
			recall = 0
		}
	}
	return precision, recall
}

func shingles(s string) map[string]int {
	toks := tokenRE.FindAllString(s, -1)
	out := map[string]int{}
	for i := 0; i < max(1, len(toks)-3); i++ {
		end := min(len(toks), i+4)
		if i < end {
			out[strings.Join(toks[i:end], " ")]++
		}
	}
	return out
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
