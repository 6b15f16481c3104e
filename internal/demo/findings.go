package demo

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// Findings is what the real crawler's store holds at the end: every post
// by state, and each source's gaps in its own words.
type Findings struct {
	PostStates map[string]int
	FeedStates map[string]int
	Sitemaps   int
	Gaps       []Gap
	// Children counts the child sitemaps the crawl reads (listed by an
	// index, not skipped), of ChildSites sites: each is re-read at least
	// once per SITEMAP_RECHECK though its index entry did not change
	// (Recheck is the setting in force, RecheckPerWeek the cost).
	Children, ChildSites int
	Recheck              time.Duration
	SitemapInterval      time.Duration
}

// RecheckPerWeek is what SITEMAP_RECHECK costs the sites in a week at
// most: each child sitemap read once per SITEMAP_RECHECK, or per
// SITEMAP_INTERVAL if that is longer (a child is only looked at when its
// index is read). Most of these reads are answered 304.
func (f Findings) RecheckPerWeek() float64 {
	every := max(f.Recheck, f.SitemapInterval)
	if every <= 0 || f.Children == 0 {
		return 0
	}
	return float64(f.Children) * float64(7*24*time.Hour) / float64(every)
}

// Gap is why some or all of a source was not indexed.
type Gap struct {
	Source  string
	Reasons []string
}

// findings reads the store as the coverage page would.
func findings(ctx context.Context, b *bot) (Findings, error) {
	f := Findings{PostStates: map[string]int{}, FeedStates: map[string]int{}, Recheck: b.s.SitemapRecheck, SitemapInterval: b.s.SitemapInterval}
	held, err := posts(ctx, b.st)
	if err != nil {
		return f, err
	}
	bySource := map[int64]map[string]int{}
	for _, p := range held {
		f.PostStates[p.State]++
		if bySource[p.SourceID] == nil {
			bySource[p.SourceID] = map[string]int{}
		}
		bySource[p.SourceID][p.State]++
	}
	declined := map[string]int{} // site -> requests declined by robots.txt
	b.mu.Lock()
	for _, r := range b.recs {
		if r.Outcome == model.OutcomeDisallowed {
			declined[r.Site]++
		}
	}
	b.mu.Unlock()
	err = b.st.EachSource(ctx, func(src store.Source) error {
		g, err := sourceGap(ctx, b.st, src, bySource[src.ID], declined, &f)
		if err != nil {
			return err
		}
		if len(g.Reasons) > 0 {
			f.Gaps = append(f.Gaps, g)
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("demo: read sources: %w", err)
	}
	return f, nil
}

func sourceGap(ctx context.Context, st *store.DB, src store.Source, states map[string]int, declined map[string]int, f *Findings) (Gap, error) {
	g := Gap{Source: src.URL}
	u, err := url.Parse(src.URL)
	if err != nil {
		return g, err
	}
	feeds, err := st.SourceFeeds(ctx, src.ID)
	if err != nil {
		return g, err
	}
	sms, err := st.SourceSitemaps(ctx, src.ID)
	if err != nil {
		return g, err
	}
	f.Sitemaps += len(sms)
	children := 0
	for _, sm := range sms {
		kids, err := st.ChildSitemaps(ctx, sm.ID)
		if err != nil {
			return g, err
		}
		f.Sitemaps += len(kids) // SourceSitemaps lists the top level only
		for _, k := range kids {
			if k.State != model.SitemapSkipped {
				children++
			}
		}
	}
	if children > 0 {
		f.Children += children
		f.ChildSites++
	}
	site := model.Site(u.Host)
	origin, _ := st.Origin(ctx, model.OriginOf(u)) // absent: never asked
	refusal, _ := st.Refusal(ctx, site)
	switch {
	case refusal.Refused:
		g.Reasons = append(g.Reasons, fmt.Sprintf("answered 403 to every request (%d in a row): on the refusal list, asked again in a week", refusal.Consecutive403))
	case origin.State == string(robots.StateUnreachable):
		g.Reasons = append(g.Reasons, fmt.Sprintf("robots.txt unreachable (status %d): crawling paused, asked again every 6 hours", origin.Status))
	case origin.State == string(robots.StateRefused):
		g.Reasons = append(g.Reasons, fmt.Sprintf("robots.txt refused us (status %d): nothing fetched", origin.Status))
	case len(states) == 0 && declined[site] > 0:
		g.Reasons = append(g.Reasons, fmt.Sprintf("robots.txt disallows CorpusBot: nothing fetched, %d requests not sent", declined[site]))
	case len(feeds) == 0 && len(sms) == 0:
		g.Reasons = append(g.Reasons, "no feed and no sitemap: not walked page by page (a known gap)")
	}
	for _, fd := range feeds {
		f.FeedStates[fd.State]++
		if fd.State == model.FeedDisallowed {
			g.Reasons = append(g.Reasons, "feed "+fd.URL+" disallowed by robots.txt (kept, re-checked weekly)")
		}
	}
	for _, s := range []struct{ state, words string }{
		{model.PostDisallowed, "under a disallowed path"},
		{model.PostNoindex, "marked noindex"},
		{model.PostShell, "rendered only in a browser (shell)"},
		{model.PostRefused, "refused"},
		{model.PostError, "failed"},
		{model.PostSkipped, "not HTML"},
		{model.PostRemoved, "removed by the site"},
	} {
		if n := states[s.state]; n > 0 {
			g.Reasons = append(g.Reasons, fmt.Sprintf("%d %s %s", n, plural(n, "post", "posts"), s.words))
		}
	}
	return g, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// host is a source URL without its scheme and slash, for the tables.
func host(src string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(src, "http://"), "https://"), "/")
}
