package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// backends runs fn on SQLite and, when CORPUSBOT_TEST_POSTGRES is set, on
// PostgreSQL: the queries are shared, and so are their tests.
func backends(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "push.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db.DB)
	})
	t.Run("postgres", func(t *testing.T) {
		db, err := postgres.Open(context.Background(), pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		fn(t, db.DB)
	})
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func pause(t *testing.T, db *store.DB, sourceID int64) {
	t.Helper()
	if _, err := db.Writer().ExecContext(context.Background(), `UPDATE sources SET paused = 1 WHERE id = $1`, sourceID); err != nil {
		t.Fatal(err)
	}
}

func TestSubscriptions(t *testing.T) {
	backends(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		src, _, err := db.AddSource(ctx, "https://blog.example/", t0)
		if err != nil {
			t.Fatal(err)
		}
		f, err := db.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: "https://blog.example/feed"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.FeedSubscription(ctx, f.ID); !errors.Is(err, model.ErrNotFound) {
			t.Fatalf("no subscription yet: %v", err)
		}
		want := store.Subscription{Callback: "cb1", Secret: "sec", FeedID: f.ID, SourceID: src.ID, Hub: "https://hub.example/",
			Topic: "https://blog.example/feed", State: model.SubscriptionWanted, NextAction: t0}
		s, err := db.WantSubscription(ctx, want)
		if err != nil || s.Callback != "cb1" || s.State != model.SubscriptionWanted || !s.NextAction.Equal(t0) || s.SourcePaused {
			t.Fatalf("WantSubscription = %+v, %v", s, err)
		}
		// Asked again (another poll): nothing changes, not even the callback.
		again := want
		again.Callback, again.Secret = "cb2", "other"
		if s, err = db.WantSubscription(ctx, again); err != nil || s.Callback != "cb1" || s.Secret != "sec" {
			t.Fatalf("again: %+v, %v", s, err)
		}

		// Due, checked out once.
		due, err := db.SubscriptionsDue(ctx, t0, t0.Add(10*time.Minute), 10)
		if err != nil || len(due) != 1 || due[0].Callback != "cb1" {
			t.Fatalf("due: %+v, %v", due, err)
		}
		if due, err = db.SubscriptionsDue(ctx, t0, t0.Add(10*time.Minute), 10); err != nil || len(due) != 0 {
			t.Fatalf("checked out, yet due again: %+v, %v", due, err)
		}
		// Active, stored with every time; the checkout released.
		s.State, s.Lease, s.Verified, s.Expires, s.NextAction = model.SubscriptionActive, 240*time.Hour, t0, t0.Add(240*time.Hour), t0.Add(216*time.Hour)
		s.Requested, s.Attempts, s.Error = t0.Add(-time.Second), 2, "e"
		if err := db.PutSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
		got, err := db.Subscription(ctx, "cb1")
		if err != nil || got != s {
			t.Fatalf("round trip\n got  %+v\n want %+v (%v)", got, s, err)
		}
		if due, _ = db.SubscriptionsDue(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), 10); len(due) != 0 {
			t.Errorf("not due before its time: %+v", due)
		}
		if due, _ = db.SubscriptionsDue(ctx, t0.Add(216*time.Hour), t0.Add(217*time.Hour), 10); len(due) != 1 {
			t.Errorf("due at its renewal: %+v", due)
		}
		db.PutSubscription(ctx, s) // release
		// A paused source's active subscription is due at once.
		pause(t, db, src.ID)
		if due, _ = db.SubscriptionsDue(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), 10); len(due) != 1 || !due[0].SourcePaused {
			t.Errorf("paused source: %+v", due)
		}
		s.State = model.SubscriptionInactive
		db.PutSubscription(ctx, s)
		if due, _ = db.SubscriptionsDue(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), 10); len(due) != 0 {
			t.Errorf("inactive yet due: %+v", due)
		}

		// A new hub starts over.
		moved := want
		moved.Hub = "https://hub2.example/"
		if s, err = db.WantSubscription(ctx, moved); err != nil || s.Callback != "cb1" || s.Hub != moved.Hub || s.State != model.SubscriptionWanted || !s.Expires.IsZero() {
			t.Errorf("moved hub: %+v, %v", s, err)
		}
		if _, err := db.Subscription(ctx, "nosuch"); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("unknown callback: %v", err)
		}
	})
}

func TestPushRead(t *testing.T) {
	backends(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		src, _, _ := db.AddSource(ctx, "https://blog.example/", t0)
		f, _ := db.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: "https://blog.example/feed"})
		f.ETag, f.LastModified, f.Catalogue, f.NextPage, f.LastRead = `"v1"`, "Mon, 01 Jan 2026 00:00:00 GMT", model.CataloguePending, "https://blog.example/feed?paged=3", t0
		if err := db.UpdateFeed(ctx, f); err != nil {
			t.Fatal(err)
		}
		db.WantSubscription(ctx, store.Subscription{Callback: "cb", Secret: "s", FeedID: f.ID, SourceID: src.ID, Hub: "https://hub.example/", Topic: f.URL, State: model.SubscriptionActive})
		now := t0.Add(time.Hour)
		res, err := db.PushRead(ctx, "cb", now, []store.NewPost{{URL: "https://blog.example/new", SourceID: src.ID, Title: "New", Published: now}},
			func(r store.AddResult) store.Feed {
				g := f
				g.LastRead, g.Checked, g.History, g.NextDue, g.Title = now, now, "h1", now.Add(7*24*time.Hour), "Blog"
				g.ETag, g.Catalogue, g.NextPage = "ignored", model.CatalogueDone, ""
				return g
			})
		if err != nil || res.Added != 1 {
			t.Fatalf("PushRead = %+v, %v", res, err)
		}
		feeds, _ := db.SourceFeeds(ctx, src.ID)
		g := feeds[0]
		if g.ETag != `"v1"` || g.Catalogue != model.CataloguePending || g.NextPage == "" {
			t.Errorf("a delivery changed the poll's validators or the walk: %+v", g)
		}
		if !g.LastRead.Equal(now) || g.History != "h1" || !g.NextDue.Equal(now.Add(7*24*time.Hour)) || g.Title != "Blog" {
			t.Errorf("read standing not stored: %+v", g)
		}
		if p, err := db.Post(ctx, "https://blog.example/new"); err != nil || !p.Due || p.State != model.PostPending {
			t.Errorf("post %+v, %v", p, err)
		}
		if s, _ := db.Subscription(ctx, "cb"); s.Deliveries != 1 || !s.Delivered.Equal(now) {
			t.Errorf("delivery not counted: %+v", s)
		}
	})
}

func TestIndexNowStore(t *testing.T) {
	backends(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, _, _ := db.AddSource(ctx, "https://blog.example/", t0)
		b, _, _ := db.AddSource(ctx, "https://news.blog.example/", t0)
		p, _, _ := db.AddSource(ctx, "https://paused.example/", t0)
		pause(t, db, p.ID)
		for host, want := range map[string]bool{"blog.example": true, "www.blog.example": true, "news.blog.example": true,
			"paused.example": false, "other.example": false, "": false} {
			if got, err := db.IndexNowHolds(ctx, host); err != nil || got != want {
				t.Errorf("IndexNowHolds(%q) = %v, %v", host, got, err)
			}
		}
		db.AddPosts(ctx, []store.NewPost{{URL: "https://blog.example/old", SourceID: a.ID}, {URL: "https://paused.example/x", SourceID: p.ID}})
		old, _ := db.Post(ctx, "https://blog.example/old")
		db.SavePage(ctx, store.PageResult{PostID: old.ID, State: model.PostIndexed, ETag: `"e1"`, LastModified: "lm", Fetched: t0})
		n, err := db.IndexNowDue(ctx, t0, []string{"https://blog.example/old", "https://news.blog.example/n", "https://www.blog.example/w",
			"https://paused.example/x", "https://paused.example/y", "https://other.example/z"})
		if err != nil || n != 3 {
			t.Fatalf("IndexNowDue = %d, %v", n, err)
		}
		if p, _ := db.Post(ctx, "https://blog.example/old"); !p.Due || p.ETag != `"e1"` || p.LastModified != "lm" || p.State != model.PostIndexed {
			t.Errorf("known post: %+v", p)
		}
		if p, _ := db.Post(ctx, "https://blog.example/old"); !p.FirstSeen.IsZero() {
			t.Errorf("known post first seen %v by the submission, want its own (unrecorded) date kept", p.FirstSeen)
		}
		if p, _ := db.Post(ctx, "https://news.blog.example/n"); p.SourceID != b.ID || !p.Due || p.State != model.PostPending || !p.FirstSeen.Equal(t0) {
			t.Errorf("new post on the second source's host: %+v", p)
		}
		if p, _ := db.Post(ctx, "https://www.blog.example/w"); p.SourceID != a.ID {
			t.Errorf("new post of no source's host: source %d, want the oldest %d", p.SourceID, a.ID)
		}
		for _, u := range []string{"https://paused.example/y", "https://other.example/z"} {
			if _, err := db.Post(ctx, u); !errors.Is(err, model.ErrNotFound) {
				t.Errorf("%s added: %v", u, err)
			}
		}
	})
}

func TestDeliveries(t *testing.T) {
	backends(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		add := func(home string, feeds ...string) (store.Source, []store.Feed) {
			s, _, _ := db.AddSource(ctx, home, t0)
			var out []store.Feed
			for _, u := range feeds {
				f, err := db.AddFeed(ctx, store.Feed{SourceID: s.ID, URL: u})
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, f)
			}
			return s, out
		}
		sub := func(f store.Feed, state string) {
			db.WantSubscription(ctx, store.Subscription{Callback: f.URL, Secret: "s", FeedID: f.ID, SourceID: f.SourceID, Hub: "https://hub.example/", Topic: f.URL, State: state})
		}
		pushed, pf := add("https://a.example/", "https://a.example/feed")
		sub(pf[0], model.SubscriptionActive)
		both, bf := add("https://b.example/", "https://b.example/feed", "https://b.example/other")
		sub(bf[0], model.SubscriptionActive)
		polled, qf := add("https://c.example/", "https://c.example/feed")
		sub(qf[0], model.SubscriptionRequested) // not yet verified: still polled
		add("https://d.example/")               // no feed: neither
		www, _ := add("https://www.a.example/", "https://www.a.example/feed")
		p, n, bo, err := db.Deliveries(ctx)
		if err != nil || p != 1 || n != 2 || bo != 1 {
			t.Errorf("Deliveries = %d pushed, %d polled, %d both, %v", p, n, bo, err)
		}
		m, err := db.SiteDelivery(ctx, "a.example")
		if err != nil || len(m) != 2 || m[pushed.ID] != "pushed" || m[www.ID] != "polled" {
			t.Errorf("SiteDelivery(a.example) = %v, %v", m, err)
		}
		if m, _ := db.SiteDelivery(ctx, "b.example"); m[both.ID] != "both" {
			t.Errorf("b.example: %v", m)
		}
		if m, _ := db.SiteDelivery(ctx, "c.example"); m[polled.ID] != "polled" {
			t.Errorf("c.example: %v", m)
		}
	})
}
