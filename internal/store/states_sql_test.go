package store_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
)

// TestSQLSpellsNoState holds the store's queries to states_sql.go: no SQL
// string in the store's code (its SQLite and PostgreSQL packages included)
// spells a state a row can hold, or a request's outcome, by hand, so that
// the words written and the words read are the model's constants. The
// migrations and the schema are history, written once with the words of
// their day, and are not read; store_meta's markers ('done') are no state.
func TestSQLSpellsNoState(t *testing.T) {
	stored := map[string]bool{}
	for _, list := range [][]string{model.FeedStates, model.CatalogueStates, model.SitemapStates,
		model.PostStates, model.SourceStates, model.SubscriptionStates} {
		for _, s := range list {
			stored[s] = true
		}
	}
	for _, s := range []robots.State{robots.StateParsed, robots.StateRefused, robots.StateNoFile, robots.StateRedirect,
		robots.StateUnreachable, robots.StateStaleCopy, robots.StateAbandoned} {
		stored[string(s)] = true
	}
	for _, o := range model.Outcomes() {
		stored[string(o)] = true
	}
	var files []string
	for _, dir := range []string{".", "sqlite", "postgres"} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	quoted := regexp.MustCompile(`'([a-z][a-z-]*)'`)
	var read []string
	for _, f := range files {
		switch base := filepath.Base(f); {
		case strings.HasSuffix(base, "_test.go"), base == "migrate.go", base == "schema.go", base == "states_sql.go":
			continue
		}
		read = append(read, f)
	}
	n := 0
	for f, lit := range stringLiterals(t, read) {
		n++
		if strings.Contains(lit, "store_meta") {
			continue
		}
		for _, m := range quoted.FindAllStringSubmatch(lit, -1) {
			if stored[m[1]] {
				t.Errorf("%s: SQL spells the state %q by hand (use states_sql.go): %q", f, m[1], lit)
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d string literals in %d files: the check looked at nothing", n, len(files))
	}
}

// A record the fetcher declined before any connection (model.Outcome.Declined)
// is withheld on the public site, never a request sent: a site's waiting
// record as much as its disallowed one.
func TestDeclinedRecordsAreWithheld(t *testing.T) {
	db := openSQLite(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var recs []model.RequestRecord
	sent, declined := 0, 0
	for i, o := range model.Outcomes() {
		if o == model.OutcomeRedirect {
			continue // a hop of a request counted by its last record
		}
		recs = append(recs, model.RequestRecord{Site: "w.example", URL: "https://w.example/" + strconv.Itoa(i), Purpose: model.PurposePage,
			Start: now.Add(-time.Duration(i) * time.Minute), Outcome: o})
		if o.Declined() {
			declined++
		} else {
			sent++
		}
	}
	if err := db.LogRequests(ctx, recs); err != nil {
		t.Fatal(err)
	}
	d, err := db.SiteData().Site(ctx, "w.example", now)
	if err != nil {
		t.Fatal(err)
	}
	if d.Requests.Total != sent || d.Requests.Withheld != declined {
		t.Errorf("requests %d, withheld %d; want %d sent, %d withheld", d.Requests.Total, d.Requests.Withheld, sent, declined)
	}
}
