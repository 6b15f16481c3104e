package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sitemap"
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
	// Skipped counts the entries of the source's sitemaps (index children
	// included) that their last read did not queue for a page fetch, by
	// the kind their URL's shape says; SitemapsSkipped counts its sitemaps
	// (index children included) never read because their name says they
	// list no posts, by that kind. Both always carry all four kinds.
	Skipped         kindCounts `json:"skipped"`
	SitemapsSkipped kindCounts `json:"sitemaps_skipped"`
}

// kindCounts are counts by the kinds of things that are not posts
// (sitemap.Kind).
type kindCounts struct {
	Pages      int `json:"pages"`
	Taxonomies int `json:"taxonomies"`
	Authors    int `json:"authors"`
	Other      int `json:"other"`
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
	Kind  string `json:"kind"` // what its name says it lists: posts, pages, taxonomies, authors, other, unknown
}

// maxSitemapDepth bounds the walk down a source's sitemap indexes (the
// crawl reads two levels below the top; a third is recorded, not read).
const maxSitemapDepth = 3

func export(env environment, args []string) error {
	fs := newFlags("export", "export [--sources]\n\n"+
		"Prints the posts (or, with --sources, the sources) as JSON lines. Text is never printed:\n"+
		"only its size and where it came from.\n\n"+
		"A source line's sitemaps (the top-level ones) carry \"kind\", what the sitemap's name says it\n"+
		"lists: posts, pages, taxonomies, authors, other or unknown. Sitemaps of pages, taxonomies,\n"+
		"authors and other things are never read (state \"skipped\"); the entries of a sitemap that is\n"+
		"read are queued for a page fetch only when their URL's shape may be a post. The line counts both,\n"+
		"over all the source's sitemaps, index children included, each with all four kinds:\n"+
		"  \"skipped\":{\"pages\":3,\"taxonomies\":12,\"authors\":2,\"other\":1}   entries not queued, by shape\n"+
		"  \"sitemaps_skipped\":{\"pages\":1,\"taxonomies\":2,\"authors\":1,\"other\":0}   sitemaps not read, by name")
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
			o, err := st.Origin(ctx, model.OriginOf(u))
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
			line.Robots = robotsLine{Status: o.Status, State: o.State}
			r, err := st.Refusal(ctx, model.Site(u.Host))
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
			line.Sitemaps = append(line.Sitemaps, sitemapStateLine{URL: m.URL, State: m.State, Via: m.Via, Kind: sitemapKind(m)})
			if err := countSkipped(ctx, st, m, 0, &line); err != nil {
				return err
			}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// countSkipped adds to line what m and the sitemaps below it skipped.
func countSkipped(ctx context.Context, st store.Store, m store.Sitemap, depth int, line *sourceLine) error {
	line.Skipped.Pages += m.SkippedPages
	line.Skipped.Taxonomies += m.SkippedTaxonomies
	line.Skipped.Authors += m.SkippedAuthors
	line.Skipped.Other += m.SkippedOther
	if m.State == model.SitemapSkipped {
		switch m.Kind {
		case sitemap.KindPages.String():
			line.SitemapsSkipped.Pages++
		case sitemap.KindTaxonomies.String():
			line.SitemapsSkipped.Taxonomies++
		case sitemap.KindAuthors.String():
			line.SitemapsSkipped.Authors++
		default:
			line.SitemapsSkipped.Other++
		}
		return nil // never read: no children
	}
	if depth >= maxSitemapDepth {
		return nil
	}
	kids, err := st.ChildSitemaps(ctx, m.ID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := countSkipped(ctx, st, k, depth+1, line); err != nil {
			return err
		}
	}
	return nil
}

// sitemapKind is the kind the crawl recorded for m, or, for a sitemap it
// has not met since kinds were recorded, the kind its name says.
func sitemapKind(m store.Sitemap) string {
	if m.Kind != "" {
		return m.Kind
	}
	return sitemap.ClassifySitemap(m.URL).Kind.String()
}

func exportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
