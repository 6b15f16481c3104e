package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
)

// The opt-out form's promise, end to end: once PauseSite returns, the
// crawler, mid-run, sends nothing more to the site, robots.txt included;
// the site's unfetched posts stay owed rather than failed, the other site
// is crawled on, and resuming the site picks its work up again.
func TestOptOutMidCrawl(t *testing.T) {
	w := newWorld(t, "")
	blogFarm(w.web, 2, 2, 20) // blog0 and blog1, 40 posts each
	ctx := context.Background()
	for s := range 2 {
		if _, _, err := w.db.AddSource(ctx, "http://"+clusterHost(s)+"/", w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// The form is submitted while the crawler is in the middle of blog0's
	// pages: the server holds the answer to /post/4 until it has been.
	reached, release := make(chan struct{}), make(chan struct{})
	page := simweb.NewResource(htmlType, article("Post 4", "cluster text", ""))
	w.web.Host("blog0.example").Handle("/post/4", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		close(reached)
		<-release
		page.ServeHTTP(rw, r)
	}))
	data := w.db.SiteData()
	done := make(chan error, 1)
	go func() { done <- w.c.Once(ctx) }()
	select {
	case <-reached:
	case err := <-done:
		t.Fatalf("the crawl ended before reaching blog0's pages (%v)", err)
	}
	if _, err := data.PauseSite(ctx, "blog0.example", "opt-out form", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	pausedAt := w.clock.Now()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, r := range w.web.RequestsTo("blog0.example") {
		if r.Start.After(pausedAt) {
			t.Errorf("%s requested at %v, after the opt-out at %v", r.URI, r.Start, pausedAt)
		}
	}
	owed := 0
	err := w.db.EachPost(ctx, func(p store.Post) error {
		if p.SourceID == 1 && p.State == model.PostPending && p.Due {
			owed++
		}
		if p.SourceID == 1 && p.State == model.PostError {
			t.Errorf("%s marked error by the opt-out", p.URL)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if owed == 0 {
		t.Errorf("no post of the opted-out site left owed")
	}
	if n := len(pageURIs(w.web, "blog1.example", onlyPosts(w, "blog1.example"))); n != 40 {
		t.Errorf("the other site: %d of 40 pages fetched", n)
	}
	// Resumed by a verified claim: the owed pages are fetched.
	if err := data.ResumeSite(ctx, "blog0.example"); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(time.Hour)
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(pageURIs(w.web, "blog0.example", onlyPosts(w, "blog0.example"))); n != 40 {
		t.Errorf("after resuming: %d of 40 pages fetched", n)
	}
	w.clean()
}

// onlyPosts are the post paths blogFarm gave host.
func onlyPosts(w *world, host string) map[string]bool {
	m := map[string]bool{}
	for i := range 40 {
		m[fmt.Sprintf("/post/%d", i)] = true
	}
	return m
}
