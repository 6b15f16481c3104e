package crawl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// Two sitemaps of several chunks of long URLs, read at once with their
// bodies ending together and other writes going on, store every entry of
// both and are marked read (issue 31: together they froze the writer).
func TestTwoBigSitemapsStored(t *testing.T) {
	const entries = 3*store.SitemapChunk + 500
	w := sitemapWorld(t)
	gens, sms := bigSitemapSites(t, w, 2, entries, 1300)
	stop := otherWrites(t, w)
	readTogether(t, w, sms)
	if n, _ := stop(); n == 0 {
		t.Error("no other write was committed while the sitemaps were stored")
	}
	for i, g := range gens {
		if got := postsOf(t, w, sms[i].SourceID); got[model.PostPending] != entries || len(got) != 1 {
			t.Errorf("%s: posts by state %v, want %d pending", g.Host, got, entries)
		}
		for _, k := range []int{0, store.SitemapChunk, entries - 1} {
			if p := w.post(g.URL(k)); p.Lastmod.IsZero() || p.SourceID != sms[i].SourceID {
				t.Errorf("%s: entry %d stored as %+v", g.Host, k, p)
			}
		}
		read, err := w.db.SourceSitemaps(context.Background(), sms[i].SourceID)
		if err != nil {
			t.Fatal(err)
		}
		if len(read) != 1 || read[0].State != "active" || read[0].LastRead.IsZero() {
			t.Errorf("%s: sitemap after the read %+v", g.Host, read)
		}
	}
	w.clean()
}

// A read cancelled while its entries are being stored returns at once with
// the context's error, keeps the chunks stored, marks nothing removed and
// leaves the sitemap due; the next read stores the rest and withdraws only
// what the sitemap no longer lists.
func TestBigSitemapReadCancelled(t *testing.T) {
	const entries = 8 * store.SitemapChunk
	w := sitemapWorld(t)
	_, sms := bigSitemapSites(t, w, 1, entries, 1300)
	sm := sms[0]
	ctx := context.Background()
	// Day 1: a sitemap of two posts that are gone by day 2.
	old := simweb.BigSitemap{Host: "big0.example", Entries: 2, URLBytes: 40}
	if _, err := w.db.IngestSitemap(ctx, sm, w.clock.Now(), []store.SitemapURL{{Loc: old.URL(0)}, {Loc: old.URL(1)}}, true); err != nil {
		t.Fatal(err)
	}

	gen := simweb.BigSitemap{Host: "big0.example", Entries: entries, URLBytes: 1300}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.c.ReadSitemap(cctx, sm) }()
	// Cancelled once the first chunk is committed: the read is then
	// parsing and storing the next ones.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if p, err := w.db.Post(ctx, gen.URL(store.SitemapChunk-1)); err == nil && p.ID != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no chunk stored in a minute")
		}
	}
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled read: %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the read did not return within 30 s of its cancellation")
	}
	t.Logf("returned %s after the cancellation", time.Since(cancelled).Round(time.Millisecond))
	got := postsOf(t, w, sm.SourceID)
	if got[model.PostRemoved] != 0 || got[model.PostPending] < store.SitemapChunk+2 || got[model.PostPending] >= entries+2 {
		t.Errorf("after the cancelled read: posts by state %v, want some chunks stored and none removed", got)
	}
	due, err := w.db.SitemapsDue(ctx, w.clock.Now(), w.clock.Now(), false, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(due) != 1 || due[0].ID != sm.ID || !due[0].LastRead.IsZero() {
		t.Fatalf("after the cancelled read, sitemaps due: %+v, want it due, never read", due)
	}
	// The next read stores the rest and withdraws day 1's two posts.
	if err := w.c.ReadSitemap(ctx, due[0]); err != nil {
		t.Fatal(err)
	}
	if got := postsOf(t, w, sm.SourceID); got[model.PostPending] != entries || got[model.PostRemoved] != 2 {
		t.Errorf("after the next read: posts by state %v, want %d pending and 2 removed", got, entries)
	}
}

// A long sitemap found at a well-known path is recorded once a chunk of its
// entries has shown it is one, and stored as read; found again by a later
// discovery, when it is held already, its entries are not stored by that
// fetch (its own schedule reads it).
func TestBigWellKnownSitemapDiscovered(t *testing.T) {
	const entries = 2*store.SitemapChunk + 500
	ctx := context.Background()
	w := sitemapWorld(t)
	h := w.web.Host("wellknown.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage())
	g := simweb.BigSitemap{Host: h.Name(), Entries: entries, URLBytes: 1300}
	h.Handle("/sitemap.xml", g)
	src, _, err := w.db.AddSource(ctx, h.URL("/"), w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	sms := readSitemaps(t, w, src) // discovers it, storing it as its first read
	if len(sms) != 1 || sms[0].URL != h.URL("/sitemap.xml") || sms[0].Via != model.ViaWellKnown || sms[0].LastRead.IsZero() {
		t.Fatalf("sitemaps %+v", sms)
	}
	if got := postsOf(t, w, src.ID); got[model.PostPending] != entries {
		t.Fatalf("posts by state %v, want %d pending", got, entries)
	}

	// A day later the sitemap lists more; a discovery fetches it again as a
	// candidate but leaves the new entries to the sitemap's own read.
	w.clock.Advance(25 * time.Hour)
	g.Entries = entries + 10
	h.Handle("/sitemap.xml", g)
	if err := w.c.DiscoverSitemaps(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := postsOf(t, w, src.ID); got[model.PostPending] != entries {
		t.Errorf("after a second discovery: posts by state %v, want still %d pending", got, entries)
	}
	sms, err = w.db.SourceSitemaps(ctx, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.c.ReadSitemap(ctx, sms[0]); err != nil {
		t.Fatal(err)
	}
	if got := postsOf(t, w, src.ID); got[model.PostPending] != entries+10 {
		t.Errorf("after its own read: posts by state %v, want %d pending", got, entries+10)
	}
}
