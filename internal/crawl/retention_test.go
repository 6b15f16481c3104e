package crawl_test

import (
	"context"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
)

// TestRequestLogRetention: on the simulated clock, a round deletes the
// request-log rows older than REQUEST_LOG_RETENTION (more than one prune
// batch of them) and keeps the newer ones; 0 keeps everything.
func TestRequestLogRetention(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		keep      time.Duration
		wantCount int
	}{{24 * time.Hour, 10}, {0, 7010}} {
		w := newWorldWith(t, "", false, func(s *config.Settings) { s.RequestLogRetention = tc.keep })
		now := w.clock.Now()
		var recs []model.RequestRecord
		for i := range 7000 { // older than a day: pruned, in two batches
			recs = append(recs, model.RequestRecord{Site: "old.example", URL: "https://old.example/feed", Purpose: model.PurposeFeed,
				Status: 200, Outcome: model.OutcomeFetched, Start: now.Add(-48*time.Hour + time.Duration(i)*time.Second)})
		}
		for i := range 10 { // within the day: kept
			recs = append(recs, model.RequestRecord{Site: "new.example", URL: "https://new.example/feed", Purpose: model.PurposeFeed,
				Status: 200, Outcome: model.OutcomeFetched, Start: now.Add(-time.Hour + time.Duration(i)*time.Second)})
		}
		if err := w.db.LogRequests(ctx, recs); err != nil {
			t.Fatal(err)
		}
		if err := w.c.Once(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := w.db.RequestCount(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if n != tc.wantCount {
			t.Errorf("retention %v: %d rows left, want %d", tc.keep, n, tc.wantCount)
		}
	}
}
