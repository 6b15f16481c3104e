package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// RunSitemapChunkSuite checks sitemap reads longer than a chunk
// (store.SitemapChunk), stored a chunk to a transaction: every
// entry stored, the removal diff right across chunks, two long reads at
// once, and a read cut off partway (an error, a cancelled context) that
// marks nothing removed. newStore returns an empty store, closed by the
// test's cleanup.
func RunSitemapChunkSuite(t *testing.T, newStore func(t *testing.T) *store.DB) {
	tests := []struct {
		name string
		fn   func(*testing.T, *store.DB)
	}{
		{"Diff", testChunkedDiff},
		{"Together", testChunkedTogether},
		{"Abandoned", testChunkedAbandoned},
		{"Cancelled", testChunkedCancelled},
		{"SmallRead", testSmallRead},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// longURL is post i of host, about 1.3 KB long, as some generators make
// them.
func longURL(host string, i int) string {
	return fmt.Sprintf("https://%s/%s-%06d/", host, strings.Repeat("a-very-long-title-", 70), i)
}

// longURLs lists posts from to to-1 of host, with lastmod at.
func longURLs(host string, from, to int, at time.Time) []store.SitemapURL {
	out := make([]store.SitemapURL, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, store.SitemapURL{Loc: longURL(host, i), Lastmod: at})
	}
	return out
}

// chunkSitemap records a source of host and its sitemap.
func chunkSitemap(t *testing.T, s *store.DB, host string) store.Sitemap {
	t.Helper()
	src := source(t, s, "https://"+host+"/")
	sm, err := s.AddSitemap(bg, store.Sitemap{SourceID: src.ID, URL: "https://" + host + "/sitemap.xml", Via: model.ViaRobots})
	must(t, err)
	return sm
}

// postStates counts host's posts by state, listed as longURLs lists them.
func postStates(t *testing.T, s *store.DB, host string, n int) map[string]int {
	t.Helper()
	out := map[string]int{}
	for i := range n {
		p, err := s.Post(bg, longURL(host, i))
		if errors.Is(err, model.ErrNotFound) {
			out["absent"]++
			continue
		}
		must(t, err)
		out[p.State]++
	}
	return out
}

// ingestEach stores urls through a SitemapIngest, one Add per entry as the
// crawler's parser hands them over.
func ingestEach(ctx context.Context, s *store.DB, sm store.Sitemap, urls []store.SitemapURL, whole bool) (store.Diff, error) {
	in := s.SitemapIngest(sm, T0)
	for _, u := range urls {
		if err := in.Add(ctx, u); err != nil {
			return in.Stored(), err
		}
	}
	return in.Finish(ctx, whole)
}

// A read of three chunks and a bit stores every entry; the next whole read
// withdraws what it no longer lists, across more than one chunk of
// removals, counts the modified and new ones, and brings one back.
func testChunkedDiff(t *testing.T, s *store.DB) {
	const host, n = "chunks.example", 3*store.SitemapChunk + 17
	sm := chunkSitemap(t, s, host)
	d, err := ingestEach(bg, s, sm, longURLs(host, 0, n, T0), true)
	must(t, err)
	if d != (store.Diff{New: n}) {
		t.Fatalf("first read: %+v, want %d new", d, n)
	}
	if got := postStates(t, s, host, n); got[model.PostPending] != n {
		t.Fatalf("first read: posts %v", got)
	}
	// Day 2: the first 1,500 gone, 10 modified, 5 new, listed out of order.
	gone := store.SitemapChunk + store.SitemapChunk/2
	day2 := longURLs(host, gone, n+5, T0)
	for i := range 10 {
		day2[i].Lastmod = T0.Add(time.Hour)
	}
	day2[0], day2[len(day2)-1] = day2[len(day2)-1], day2[0]
	d, err = s.IngestSitemap(bg, sm, T0, day2, true)
	must(t, err)
	if d != (store.Diff{New: 5, Modified: 10, Removed: gone}) {
		t.Fatalf("second read: %+v, want 5 new, 10 modified, %d removed", d, gone)
	}
	if got := postStates(t, s, host, n+5); got[model.PostRemoved] != gone || got[model.PostPending] != n+5-gone {
		t.Fatalf("second read: posts %v", got)
	}
	// Day 3: post 0 listed again comes back; a read cut short removes
	// nothing whatever it leaves out.
	d, err = ingestEach(bg, s, sm, longURLs(host, 0, 2*store.SitemapChunk+1, T0), false)
	must(t, err)
	if d.Returned != gone || d.Removed != 0 {
		t.Fatalf("partial read: %+v, want %d returned and none removed", d, gone)
	}
	if got := postStates(t, s, host, n+5); got[model.PostRemoved] != 0 {
		t.Fatalf("partial read: posts %v", got)
	}
}

// Two long reads stored at once, as two sites in flight give them, store
// every entry of each.
func testChunkedTogether(t *testing.T, s *store.DB) {
	const n = 2*store.SitemapChunk + 300
	hosts := []string{"one.example", "two.example"}
	var wg sync.WaitGroup
	diffs := make([]store.Diff, len(hosts))
	errs := make([]error, len(hosts))
	for i, h := range hosts {
		sm := chunkSitemap(t, s, h)
		wg.Go(func() { diffs[i], errs[i] = ingestEach(bg, s, sm, longURLs(h, 0, n, T0), true) })
	}
	wg.Wait()
	for i, h := range hosts {
		must(t, errs[i])
		if diffs[i] != (store.Diff{New: n}) {
			t.Errorf("%s: %+v, want %d new", h, diffs[i], n)
		}
		if got := postStates(t, s, h, n); got[model.PostPending] != n {
			t.Errorf("%s: posts %v", h, got)
		}
	}
}

// A long read abandoned partway (its body broke off, the process died)
// keeps the chunks it stored and marks nothing removed; the next whole
// read withdraws only what it does not list.
func testChunkedAbandoned(t *testing.T, s *store.DB) {
	const host, n = "abandoned.example", 2 * store.SitemapChunk
	sm := chunkSitemap(t, s, host)
	_, err := s.IngestSitemap(bg, sm, T0, longURLs(host, 0, n, T0), true)
	must(t, err)
	// A read listing only new posts, abandoned after two chunks.
	in := s.SitemapIngest(sm, T0)
	must(t, in.Add(bg, longURLs(host, n, 2*n+1, T0)...))
	if got := postStates(t, s, host, 2*n+1); got[model.PostRemoved] != 0 || got[model.PostPending] != 2*n {
		t.Fatalf("abandoned read: posts %v, want %d pending (one chunk still held) and none removed", got, 2*n)
	}
	// The next read lists the first half and the new ones.
	d, err := s.IngestSitemap(bg, sm, T0, append(longURLs(host, 0, n/2, T0), longURLs(host, n, 2*n+1, T0)...), true)
	must(t, err)
	if d != (store.Diff{New: 1, Removed: n / 2}) {
		t.Fatalf("next read: %+v, want 1 new and %d removed", d, n/2)
	}
	if got := postStates(t, s, host, 2*n+1); got[model.PostRemoved] != n/2 || got[model.PostPending] != n+n/2+1 {
		t.Fatalf("next read: posts %v", got)
	}
}

// A long read whose context ends partway stops at once with the context's
// error, keeps what it stored and removes nothing.
func testChunkedCancelled(t *testing.T, s *store.DB) {
	const host, n = "cancelled.example", 3 * store.SitemapChunk
	sm := chunkSitemap(t, s, host)
	_, err := s.IngestSitemap(bg, sm, T0, longURLs(host, 0, n, T0), true)
	must(t, err)
	ctx, cancel := context.WithCancel(bg)
	in := s.SitemapIngest(sm, T0)
	urls := longURLs(host, n, 2*n, T0)
	must(t, in.Add(ctx, urls[:store.SitemapChunk+1]...)) // one chunk stored
	cancel()
	start := time.Now()
	err = in.Add(ctx, urls[store.SitemapChunk+1:]...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Add after cancel: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Add took %s to notice its context ended", took)
	}
	if got := postStates(t, s, host, 2*n); got[model.PostRemoved] != 0 || got[model.PostPending] != n+store.SitemapChunk {
		t.Fatalf("cancelled read: posts %v, want %d pending, none removed", got, n+store.SitemapChunk)
	}
	if _, err := in.Finish(ctx, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("Finish after cancel: %v, want context.Canceled", err)
	}
	if got := postStates(t, s, host, 2*n); got[model.PostRemoved] != 0 {
		t.Fatalf("Finish after cancel removed: posts %v", got)
	}
}

// A read of at most a chunk, and an empty whole read, keep the one-write
// behaviour: everything stored, everything unlisted removed.
func testSmallRead(t *testing.T, s *store.DB) {
	const host, n = "small.example", store.SitemapChunk
	sm := chunkSitemap(t, s, host)
	d, err := ingestEach(bg, s, sm, longURLs(host, 0, n, T0), true)
	must(t, err)
	if d != (store.Diff{New: n}) {
		t.Fatalf("read of a chunk: %+v", d)
	}
	d, err = ingestEach(bg, s, sm, nil, true)
	must(t, err)
	if d != (store.Diff{Removed: n}) {
		t.Fatalf("empty whole read: %+v, want %d removed", d, n)
	}
}
