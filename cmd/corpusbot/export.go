package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

// postLine and sourceLine are the contract's JSON lines, field for field.
type postLine struct {
	URL       string   `json:"url"`
	Source    string   `json:"source"`
	Title     string   `json:"title"`
	Published string   `json:"published"`
	Lastmod   string   `json:"lastmod"`
	State     string   `json:"state"`
	TextFrom  string   `json:"text_from"`
	TextBytes int      `json:"text_bytes"`
	Citations []string `json:"citations"`
}

type sourceLine struct {
	Source   string             `json:"source"`
	Robots   robotsLine         `json:"robots"`
	Refusal  bool               `json:"refusal"`
	Feeds    []feedStateLine    `json:"feeds"`
	Sitemaps []sitemapStateLine `json:"sitemaps"`
}

type robotsLine struct {
	Status int    `json:"status"`
	State  string `json:"state"`
}

type feedStateLine struct {
	URL       string `json:"url"`
	State     string `json:"state"`
	Catalogue string `json:"catalogue"`
}

type sitemapStateLine struct {
	URL   string `json:"url"`
	State string `json:"state"`
	Via   string `json:"via"`
}

func export(env environment, args []string) error {
	fs := newFlags("export", "export [--sources]\n\n"+
		"Prints the posts (or, with --sources, the sources) as JSON lines. Text is never printed:\n"+
		"only its size and where it came from.")
	sources := fs.Bool("sources", false, "print sources with their robots, refusal, feeds and sitemaps")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("export takes no arguments (see --help)")
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	out := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if *sources {
		err = exportSources(ctx, st, enc)
	} else {
		err = exportPosts(ctx, st, enc)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

func exportPosts(ctx context.Context, st store.Store, enc *json.Encoder) error {
	urls := map[int64]string{}
	if err := st.EachSource(ctx, func(s store.Source) error { urls[s.ID] = s.URL; return nil }); err != nil {
		return err
	}
	return st.EachPost(ctx, func(p store.Post) error {
		cites := p.Citations
		if cites == nil {
			cites = []string{}
		}
		return enc.Encode(postLine{URL: p.URL, Source: urls[p.SourceID], Title: p.Title, Published: exportTime(p.Published),
			Lastmod: exportTime(p.Lastmod), State: p.State, TextFrom: p.TextFrom, TextBytes: len(p.Text), Citations: cites})
	})
}

func exportSources(ctx context.Context, st store.Store, enc *json.Encoder) error {
	var srcs []store.Source
	if err := st.EachSource(ctx, func(s store.Source) error { srcs = append(srcs, s); return nil }); err != nil {
		return err
	}
	for _, s := range srcs {
		line := sourceLine{Source: s.URL, Feeds: []feedStateLine{}, Sitemaps: []sitemapStateLine{}}
		if u, err := url.Parse(s.URL); err == nil {
			o, err := st.Origin(ctx, fetch.Origin(u))
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			line.Robots = robotsLine{Status: o.Status, State: o.State}
			r, err := st.Refusal(ctx, fetch.Site(u.Host))
			if err != nil {
				return err
			}
			line.Refusal = r.Refused
		}
		feeds, err := st.SourceFeeds(ctx, s.ID)
		if err != nil {
			return err
		}
		for _, f := range feeds {
			line.Feeds = append(line.Feeds, feedStateLine{URL: f.URL, State: f.State, Catalogue: f.Catalogue})
		}
		sms, err := st.SourceSitemaps(ctx, s.ID)
		if err != nil {
			return err
		}
		for _, m := range sms {
			line.Sitemaps = append(line.Sitemaps, sitemapStateLine{URL: m.URL, State: m.State, Via: m.Via})
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

func exportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
