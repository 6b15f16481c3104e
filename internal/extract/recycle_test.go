package extract_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"corpus.blog/corpusbot/internal/extract"
)

// TestConcurrentRecycled: parses running at once, in several goroutines,
// over pages of different sizes, give what parsing each page alone gives,
// while the slabs and node chunks one parse recycles are taken by the
// others (run with -race: a node of one parse written by another would
// show).
func TestConcurrentRecycled(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	type page struct {
		body []byte
		stem string
		want extract.Page
	}
	var pages []page
	for _, path := range names {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stem := strings.TrimSuffix(path, ".html")
		p, err := extract.ParseResponse(body, fixtureURL(t, stem), fixtureContentType(t, stem), agent)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, page{body, stem, p})
	}
	if len(pages) < 20 {
		t.Fatalf("only %d fixtures found", len(pages))
	}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for r := range rounds {
				for i := range pages {
					// Each goroutine in its own order, so that different
					// pages are parsed at once.
					pg := pages[(i*(2*g+1)+r*7)%len(pages)]
					got, err := extract.ParseResponse(pg.body, fixtureURL(t, pg.stem), fixtureContentType(t, pg.stem), agent)
					if err != nil {
						t.Error(err)
						return
					}
					if !reflect.DeepEqual(got, pg.want) {
						t.Errorf("%s: parsed with others, the page differs from parsed alone", pg.stem)
					}
				}
			}
		})
	}
	wg.Wait()
}
