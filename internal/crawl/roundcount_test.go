package crawl_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// roundLines keeps the "round done" lines a crawler logs.
type roundLines struct {
	mu    sync.Mutex
	lines []map[string]string
}

func (h *roundLines) Enabled(context.Context, slog.Level) bool { return true }
func (h *roundLines) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *roundLines) WithGroup(string) slog.Handler            { return h }
func (h *roundLines) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "round done" {
		return nil
	}
	attrs := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lines = append(h.lines, attrs)
	return nil
}

// last is the last round line; the test fails without one.
func (h *roundLines) last(t *testing.T) map[string]string {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.lines) == 0 {
		t.Fatal("no round done line")
	}
	return h.lines[len(h.lines)-1]
}

// failingWrites makes the store refuse a kind of write, as a full disk
// would: a trigger that aborts it (the statement, its transaction with it).
func failingWrites(t *testing.T, w *world, name, table, when string) {
	t.Helper()
	q := fmt.Sprintf(`CREATE TRIGGER %s BEFORE UPDATE ON %s WHEN %s BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`, name, table, when)
	if _, err := w.db.Writer().Exec(q); err != nil {
		t.Fatal(err)
	}
}

// countedBlog is a blog of n posts whose feed gives summaries only, so
// that each post owes a page fetch.
func countedBlog(w *world, host string, n int) *simweb.Host {
	h := w.web.Host(host)
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	var items []item
	for i := 1; i <= n; i++ {
		items = append(items, item{h.URL(fmt.Sprintf("/posts/%d", i)), fmt.Sprintf("Post %d", i), day0.Add(-time.Duration(i) * time.Hour), false})
		h.Put(fmt.Sprintf("/posts/%d", i), htmlType, article(fmt.Sprintf("Post %d", i), "text of a post", ""))
	}
	h.Put("/feed", rssType, rss(items))
	h.Handle("/feed?paged=2", simweb.Status(404))
	return h
}

// Pages fetched and not saved (the store refusing the write) are failures
// of the round: its line counts them, with their reason, and `run --once`
// says so; it used to say errors=0, every request having been answered.
func TestRoundCountsPagesNotSaved(t *testing.T) {
	w := newWorld(t, "")
	rounds := &roundLines{}
	w.c.Log = slog.New(rounds)
	countedBlog(w, "unsaved.example", 3)
	addSource(t, w, "http://unsaved.example/")
	failingWrites(t, w, "pages_not_saved", "posts", "NEW.fetched <> OLD.fetched")
	err := w.c.Once(context.Background())
	if err == nil || !strings.Contains(err.Error(), "database or disk is full") {
		t.Errorf("run --once: %v, want the pages' failure", err)
	}
	line := rounds.last(t)
	if line["errors"] != "3" || !strings.Contains(line["error_reasons"], "job failed×3") {
		t.Errorf("round done errors=%s error_reasons=%q, want 3 pages not saved", line["errors"], line["error_reasons"])
	}
	w.clean()
}

// A write the job only logs (a feed's permanent move) that fails is
// counted too.
func TestRoundCountsWritesOnlyLogged(t *testing.T) {
	w := newWorld(t, "")
	rounds := &roundLines{}
	w.c.Log = slog.New(rounds)
	h := countedBlog(w, "moved.example", 1)
	h.Put("/feed.xml", rssType, rss([]item{{h.URL("/posts/1"), "Post 1", day0, true}}))
	h.Handle("/feed", simweb.Redirect(301, h.URL("/feed.xml")))
	addSource(t, w, "http://moved.example/")
	failingWrites(t, w, "moves_not_saved", "feeds", "NEW.url <> OLD.url")
	if err := w.c.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	line := rounds.last(t)
	if line["errors"] != "1" || !strings.Contains(line["error_reasons"], "not recorded×1") {
		t.Errorf("round done errors=%s error_reasons=%q, want the move not recorded", line["errors"], line["error_reasons"])
	}
	w.clean()
}

// A site whose work failed (a page not saved) and that then left to wait
// (a Retry-After of a day) keeps its failure: the round counts it beside
// the 503, and `run --once` reports it instead of ending as if all were
// well.
func TestSiteLeftToWaitKeepsItsFailure(t *testing.T) {
	w := newWorld(t, "")
	rounds := &roundLines{}
	w.c.Log = slog.New(rounds)
	h := countedBlog(w, "waits.example", 3)
	h.Handle("/posts/2", simweb.Unavailable("86400"))
	addSource(t, w, "http://waits.example/")
	failingWrites(t, w, "first_not_saved", "posts", "NEW.fetched <> OLD.fetched AND NEW.url LIKE '%/posts/1'")
	err := w.c.Once(context.Background())
	if err == nil || !strings.Contains(err.Error(), "posts/1") {
		t.Errorf("run --once: %v, want the failure of /posts/1", err)
	}
	line := rounds.last(t)
	if line["errors"] != "2" || !strings.Contains(line["error_reasons"], "job failed×1") || !strings.Contains(line["error_reasons"], "status 503×1") {
		t.Errorf("round done errors=%s error_reasons=%q, want the page not saved and the 503", line["errors"], line["error_reasons"])
	}
	if line["sites_waiting"] != "1" {
		t.Errorf("round done sites_waiting=%q, want the site left waiting", line["sites_waiting"])
	}
	if n := len(pageURIs(w.web, "waits.example", map[string]bool{"/posts/3": true})); n != 0 {
		t.Errorf("/posts/3 asked %d times within the day's wait", n)
	}
	w.clean()
}

// A page whose post cannot be looked up before its fetch (a read of the
// store failing) is not fetched, and that is a failure of the round, not
// a page silently passed by.
func TestRoundCountsPagesNotLookedUp(t *testing.T) {
	w := newWorld(t, "")
	rounds := &roundLines{}
	w.c.Log = slog.New(rounds)
	countedBlog(w, "unread.example", 3)
	addSource(t, w, "http://unread.example/")
	// Once the last well-known sitemap path has answered, the next thing
	// the site's sequence does is look its pages up: from then on the
	// table of URL aliases every lookup reads is gone, as a damaged
	// database would have it.
	fo := w.fetchOptions(w.db, w.clock)
	observe := fo.Observe
	fo.Observe = func(r model.RequestRecord) {
		observe(r)
		if strings.HasSuffix(r.URL, crawl.WellKnownSitemapPaths[len(crawl.WellKnownSitemapPaths)-1]) {
			if _, err := w.db.Writer().Exec(`ALTER TABLE url_aliases RENAME TO url_aliases_gone`); err != nil {
				t.Error(err)
			}
		}
	}
	f, err := fetch.New(fo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.CloseIdleConnections)
	w.c.Fetcher = f
	err = w.c.Once(context.Background())
	if err == nil || !strings.Contains(err.Error(), "url_aliases") {
		t.Errorf("run --once: %v, want the lookups' failure", err)
	}
	if n := len(pageURIs(w.web, "unread.example", map[string]bool{"/posts/1": true, "/posts/2": true, "/posts/3": true})); n != 0 {
		t.Errorf("%d pages fetched whose post could not be looked up", n)
	}
	line := rounds.last(t)
	if line["errors"] != "3" || !strings.Contains(line["error_reasons"], "job failed×3") {
		t.Errorf("round done errors=%s error_reasons=%q, want 3 pages not looked up", line["errors"], line["error_reasons"])
	}
	w.clean()
}

// failingCheckouts are checkouts the store cannot make.
type failingCheckouts struct{}

func (failingCheckouts) CheckOutSites(context.Context, string, []string) ([]store.Checkout, error) {
	return nil, errors.New("checkout: database or disk is full")
}

// failingPush is a WebSub store whose subscriptions due cannot be read.
type failingPush struct{ store.Push }

func (failingPush) SubscriptionsDue(context.Context, time.Time, time.Time, int) ([]store.Subscription, error) {
	return nil, errors.New("subscriptions due: database or disk is full")
}

// The round's own work failing — its checkouts of sites, its WebSub
// subscriptions — is counted among its errors as the sites' is.
func TestRoundCountsItsOwnFailures(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		fault        func(w *world)
	}{
		{"checkouts", "round query failed×1", func(w *world) { crawl.SetCheckouts(w.c, failingCheckouts{}) }},
		{"websub", "websub×1", func(w *world) { w.c.Push, w.c.CallbackBase = failingPush{w.db}, "https://corpus.blog" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "")
			rounds := &roundLines{}
			w.c.Log = slog.New(rounds)
			countedBlog(w, "own.example", 1)
			addSource(t, w, "http://own.example/")
			tc.fault(w)
			if err := w.c.Once(context.Background()); err == nil || !strings.Contains(err.Error(), "database or disk is full") {
				t.Errorf("run --once: %v, want the failure", err)
			}
			line := rounds.last(t)
			if line["errors"] != "1" || !strings.Contains(line["error_reasons"], tc.reason) {
				t.Errorf("round done errors=%s error_reasons=%q, want %s", line["errors"], line["error_reasons"], tc.reason)
			}
		})
	}
}
