package store_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"iter"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func openSQLite(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// unlisted is the public site's view of db that computes every source's
// origin, as it does when more sites have unreachable origins than it
// lists.
func unlisted(db *store.DB) *store.SiteData {
	d := db.SiteData()
	store.SetMaxUnreachable(d, 0)
	return d
}

// The suite runs on SQLite and PostgreSQL from their packages; here it
// runs once more on the path past the list of unreachable sites.
func TestSiteDataSuiteUnlisted(t *testing.T) {
	storetest.RunSiteDataSuiteOn(t, func(t *testing.T) *store.DB { return openSQLite(t).DB }, unlisted)
}

// TestSiteDataNeverReadsText checks every SQL text of the adapter: none
// names the posts' text column, so no answer can carry it, whatever field
// a later change maps a column to.
func TestSiteDataNeverReadsText(t *testing.T) {
	files, err := filepath.Glob("sitedata*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, "_test.go") })
	column := regexp.MustCompile(`(?i)\btext\b`)
	n := 0
	for f, lit := range stringLiterals(t, files) {
		n++
		if column.MatchString(lit) {
			t.Errorf("%s: a query names the text column: %q", f, lit)
		}
	}
	if n < 50 {
		t.Fatalf("only %d string literals in %v: the check looked at nothing", n, files)
	}
}

// stringLiterals yields every string literal of the Go files, unquoted,
// with its file: the SQL a store's code can send.
func stringLiterals(t *testing.T, files []string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			more := true
			ast.Inspect(file, func(node ast.Node) bool {
				lit, ok := node.(*ast.BasicLit)
				if !more || !ok || lit.Kind != token.STRING {
					return more
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				more = yield(f, s)
				return more
			})
			if !more {
				return
			}
		}
	}
}

// TestSiteDataConcurrent reads and writes at once; under -race it shows
// the adapter keeps no unguarded state.
func TestSiteDataConcurrent(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var ids []int64
	for _, u := range []string{"https://a.example/", "https://blog.a.example/", "https://b.example/"} {
		src, _, err := db.AddSource(ctx, u, t0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, src.ID)
	}
	data := db.SiteData()
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for i := range 6 {
		wg.Go(func() {
			for j := range 20 {
				var err error
				switch (i + j) % 6 {
				case 0:
					_, err = data.PauseSite(ctx, "a.example", "opt-out form", t0)
				case 1:
					err = data.ResumeSite(ctx, "a.example")
				case 2:
					_, err = data.Sites(ctx, model.SitesQuery{Limit: 2})
				case 3:
					_, err = data.Site(ctx, "a.example", t0)
				case 4:
					if _, err = data.Coverage(ctx); err == nil {
						_, err = data.SourcesByState(ctx)
					}
				case 5:
					if _, _, err = db.AddSource(ctx, fmt.Sprintf("https://s%d-%d.a.example/", i, j), t0); err == nil {
						err = data.PauseSource(ctx, ids[2], "claim", t0)
					}
				}
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// However the calls interleaved, a site resumed last has no paused source.
	if err := data.ResumeSite(ctx, "a.example"); err != nil {
		t.Fatal(err)
	}
	d, err := data.Site(ctx, "a.example", t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range d.Sources {
		if s.Paused {
			t.Errorf("%s paused after ResumeSite", s.URL)
		}
	}
}
