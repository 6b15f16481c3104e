package extract

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// BenchmarkOwnPasses is the part of BenchmarkFarmReal's pages' extraction
// that is this package's own, without the HTML parser and readability
// (each page parsed and its article chosen once, before the timing): the
// facts' walk, the text's rendering and pruning, its normalising and its
// Markdown. Those two take three quarters of ParseResponse, and their
// noise hides a change to the rest; here it shows.
func BenchmarkOwnPasses(b *testing.B) {
	type prepared struct {
		served, article *html.Node
		host, self      string
	}
	var pages []prepared
	for _, p := range farmPagesForOwnPasses(b) {
		served, err := parseHTML(p.body, p.ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := parseHTML(p.body, p.ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		parser := readability.NewParser()
		parser.KeepClasses, parser.KeepMediaURLs = true, true
		parser.Logger = slog.New(slog.DiscardHandler)
		article, err := parser.ParseAndMutate(doc, p.u)
		if err != nil || article.Node == nil {
			continue
		}
		pages = append(pages, prepared{served, article.Node, p.u.Hostname(), p.u.String()})
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			readFacts(p.served, "CorpusBot")
			r, _ := renderText(p.article, prunedUnder(p.article, p.host))
			normal := normalise(strings.ToValidUTF8(r.text, "\uFFFD"))
			if text := withoutSelf(normal, p.self); text != "" {
				ownPassesMarkdown(r, normal, text, p.self)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
}

func ownPassesMarkdown(r rendered, normal, text, self string) string {
	return r.markdown(normal, text != normal, self)
}

type ownPassesPage struct {
	body []byte
	u    *url.URL
	ct   string
}

// farmPagesForOwnPasses are farmRealPages' pages (BenchmarkFarmReal's,
// in the external test package), got the same way.
func farmPagesForOwnPasses(tb testing.TB) []ownPassesPage {
	tb.Helper()
	day1 := time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC)
	f := farm.New(farm.Config{Now: func() time.Time { return day1 }, Sizes: farm.SizesReal, HTTPS: true})
	var pages []ownPassesPage
	for i := range 20 {
		s := f.Site(fmt.Sprintf("blog%d.example", i), 1)
		urls := []string{s.URL("/")}
		for n := 1; n <= min(s.Posts, 3); n++ {
			urls = append(urls, s.URL(s.Post(n).Path))
		}
		for _, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil {
				tb.Fatal(err)
			}
			rec := httptest.NewRecorder()
			f.Handler(u.Hostname()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, raw, nil))
			if rec.Code == http.StatusOK {
				pages = append(pages, ownPassesPage{rec.Body.Bytes(), u, rec.Header().Get("Content-Type")})
			}
		}
	}
	return pages
}
