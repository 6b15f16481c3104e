package demo

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
)

// BenchmarkProposalSite measures the decent-crawling proposal's own example
// on exactly its site: one blog of 10,000 posts with 50 changes a day (20 new
// and 30 modified), with a feed and a sitemap named in robots.txt. Day 1 is
// the first crawl, day 2 the day after; the figures are requests and bytes
// (as the server sent them) per new-or-modified post, for corpusbot and for
// the naive link-walking crawler, each on its own copy of the site:
//
//	go test -run '^$' -bench ProposalSite -benchtime 1x ./internal/demo
//
// -proposal.posts and friends are not flags: the site is the proposal's.
// ns/op is the wall time of the whole two-day run and not a figure of
// interest.
func BenchmarkProposalSite(b *testing.B) {
	const posts, newPerDay, modifiedPerDay = 10000, 20, 30
	ctx := context.Background()
	var last *Report
	for b.Loop() {
		rep, err := Run(ctx, Options{
			DB: filepath.Join(fastDir(b), "proposal.db"), Days: 2,
			Specs: []Spec{ProposalSpec(posts, newPerDay, modifiedPerDay)},
			Log:   slog.New(slog.DiscardHandler),
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Violations) > 0 {
			b.Fatalf("%d politeness violations, first: %s", len(rep.Violations), rep.Violations[0])
		}
		last = rep
	}
	d1, d2 := last.Days[0], last.Days[1]
	if d2.Changed != newPerDay+modifiedPerDay {
		b.Fatalf("day 2 changed %d posts, want %d", d2.Changed, newPerDay+modifiedPerDay)
	}
	perPost := func(bytes int64, n int) float64 { return float64(bytes) / float64(n) }
	b.ReportMetric(d1.BotPerPost(), "d1-bot-req/post")
	b.ReportMetric(d1.NaivePerPost(), "d1-naive-req/post")
	b.ReportMetric(perPost(d1.Bot.Total.Bytes, d1.Changed), "d1-bot-B/post")
	b.ReportMetric(perPost(d1.Naive.Total.Bytes, d1.Changed), "d1-naive-B/post")
	b.ReportMetric(d2.BotPerPost(), "d2-bot-req/post")
	b.ReportMetric(d2.NaivePerPost(), "d2-naive-req/post")
	b.ReportMetric(perPost(d2.Bot.Total.Bytes, d2.Changed), "d2-bot-B/post")
	b.ReportMetric(perPost(d2.Naive.Total.Bytes, d2.Changed), "d2-naive-B/post")
	b.ReportMetric(float64(d2.Bot.Total.Requests), "d2-bot-requests")
	b.ReportMetric(float64(d2.Naive.Total.Requests), "d2-naive-requests")
	b.ReportMetric(100*d2.FewerRequests(), "d2-%fewer-requests")
	b.ReportMetric(100*d2.FewerBytes(), "d2-%fewer-bytes")
	b.ReportMetric(float64(d2.BotSeen), "d2-bot-changes-seen")
	// SITEMAP_RECHECK's cost: the proposal's site has one sitemap and no
	// index, so none; the demo's indexed blogs show what an index costs.
	b.ReportMetric(last.Findings.RecheckPerWeek(), "recheck-req/site/week")
}
