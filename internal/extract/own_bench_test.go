package extract

import (
	"log/slog"
	"strings"
	"testing"

	"codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
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
	for _, p := range farmRealPages(b) {
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
