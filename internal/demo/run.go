package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// Options configure a demo run.
type Options struct {
	DB    string       // path of the SQLite file to create (it must not exist)
	Days  int          // simulated days, from 1 (default 2)
	Specs []Spec       // the population (default DemoSpecs(1))
	Seed  uint64       // varies the posts and the changes (default 1)
	Log   *slog.Logger // the crawler's log; nil: slog.Default (logging.OrDefault, in app.NewCrawl)
}

// Run crawls the population for Days simulated days with the real crawler,
// then with the naive one on an identical web, and reports both. The SQLite
// file is left at o.DB with what the real crawler stored.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.DB == "" {
		return nil, errors.New("demo: no database path")
	}
	if o.Days <= 0 {
		o.Days = 2
	}
	if o.Specs == nil {
		o.Specs = DemoSpecs(1)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	began := time.Now()
	botPop, naivePop := NewPopulation(o.Specs, o.Seed), NewPopulation(o.Specs, o.Seed)
	b, err := newBot(ctx, botPop, o.DB, o.Log)
	if err != nil {
		return nil, err
	}
	defer b.close()
	naiveClock := simweb.NewClock(DayStart(1))
	naiveWeb := simweb.New(simweb.WithClock(naiveClock.Now))
	defer naiveWeb.Close()
	naivePop.Serve(naiveWeb)
	naive := NewNaive(naiveWeb)

	rep := &Report{Blogs: len(o.Specs), DB: o.DB, Posts: len(liveChanges(botPop))}
	for _, c := range liveChanges(botPop) {
		if c.Allowed {
			rep.Allowed++
		}
	}
	for d := 1; d <= o.Days; d++ {
		changes := liveChanges(botPop)
		if d > 1 {
			changes = botPop.Advance(d)
			naivePop.Advance(d)
		}
		day := Day{N: d, BotMissed: map[string]int{}}
		for _, c := range changes {
			switch c.Kind {
			case ChangeNew:
				day.New++
			case ChangeModified:
				day.Modified++
			case ChangeRemoved:
				day.Removed++
			}
			if c.Allowed && c.Kind != ChangeRemoved {
				day.Changed++
			}
		}
		reqs, recs, err := b.runDay(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("demo day %d, corpusbot: %w", d, err)
		}
		day.Bot, day.BotNotSent = tally(reqs, botPop), notSent(recs)
		day.BotDisallowedRequested = disallowedRequested(reqs, botPop)

		if now := naiveClock.Now(); now.Before(DayStart(d)) {
			naiveClock.Advance(DayStart(d).Sub(now))
		}
		before := len(naiveWeb.Requests())
		if day.NaiveWalk, err = naive.Crawl(ctx, naivePop.Homepages()); err != nil {
			return nil, fmt.Errorf("demo day %d, naive crawler: %w", d, err)
		}
		day.Naive = tally(naiveWeb.Requests()[before:], naivePop)

		held, err := posts(ctx, b.st)
		if err != nil {
			return nil, err
		}
		for _, c := range changes {
			if !c.Allowed {
				continue
			}
			u := c.Blog.URL(c.Post.Path)
			p, ok := held[u]
			switch c.Kind {
			case ChangeRemoved:
				if ok && p.State == model.PostRemoved {
					day.BotRemovalsSeen++
				}
			default:
				// Picked up: known, with the date of this change (from the feed
				// or the sitemap) and its text read since, or none owed.
				if ok && !p.Lastmod.Before(c.At.Truncate(time.Second)) && !p.Due {
					day.BotSeen++
				} else {
					day.BotMissed[c.Blog.Host]++
				}
				if day.Naive.PostPages[u] > 0 {
					day.NaiveSeen++
				}
			}
		}
		rep.Days = append(rep.Days, day)
	}
	rep.Violations = b.violations()
	if rep.Findings, err = findings(ctx, b); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(began)
	return rep, nil
}

// disallowedRequested counts the requests for URLs the blog's own
// robots.txt disallows CorpusBot, judged from the population's rules
// independently of both the fetcher and simweb's checker.
func disallowedRequested(reqs []simweb.Request, p *Population) int {
	rules := map[string]*robots.Rules{}
	for _, b := range p.Blogs {
		rules[b.Host] = b.robotsRules(agentToken)
	}
	n := 0
	for _, r := range reqs {
		if rs, ok := rules[r.Host]; ok && r.URI != "/robots.txt" && !rs.Allowed(r.URI) {
			n++
		}
	}
	return n
}

// liveChanges is day 1 as a crawler meets it: every live post is new.
func liveChanges(p *Population) []Change {
	var out []Change
	for _, b := range p.Blogs {
		rules := b.rules(agentToken)
		for _, post := range b.live() {
			out = append(out, Change{Blog: b, Post: post, Kind: ChangeNew, At: post.Updated, Allowed: rules.Allowed(post.Path)})
		}
	}
	return out
}

// notSent counts the requests the fetcher declined, by reason.
func notSent(recs []model.RequestRecord) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		switch r.Outcome {
		case model.OutcomeDisallowed:
			var de *fetch.DisallowedError
			if errors.As(r.Err, &de) && de.Rule == "" {
				m["robots.txt "+string(de.State)+": "+string(r.Purpose)]++
			} else {
				m["disallowed by a robots.txt rule: "+string(r.Purpose)]++
			}
		case model.OutcomeRefused:
			m["site on the 403 refusal list: "+string(r.Purpose)]++
		}
	}
	return m
}

func posts(ctx context.Context, st *store.DB) (map[string]store.Post, error) {
	m := map[string]store.Post{}
	err := st.EachPost(ctx, func(p store.Post) error {
		m[p.URL] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("demo: read posts: %w", err)
	}
	return m, nil
}
