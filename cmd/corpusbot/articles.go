package main

import (
	"context"

	"corpus.blog/corpusbot/internal/crawl"
)

func articlesFetch(env environment, args []string) error {
	fs := newFlags("articles fetch", "articles fetch --limit N\n\n"+
		"Reads page one of the N feeds waiting longest (new sources are discovered first), stores\n"+
		"their new entries (full-content ones from the feed itself), walks each feed's catalogue once,\n"+
		"and fetches the pages new and modified entries owe.")
	limit := fs.Int("limit", 300, "how many feeds to read")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 || *limit <= 0 {
		return usageError("want --limit N with N > 0 and no arguments (see --help)")
	}
	return crawlCommand(env, *configPath, fs, func(ctx context.Context, c *crawl.Crawler) error {
		if _, err := c.DiscoverSources(ctx, *limit); err != nil {
			return err
		}
		_, err := c.FetchArticles(ctx, *limit)
		return err
	})
}
