package main

import (
	"context"

	"corpus.blog/corpusbot/internal/crawl"
)

func sitemapsDiscover(env environment, args []string) error {
	return sitemapsCommand(env, args, "sitemaps discover", "sitemaps discover [--truncated] --limit N\n\n"+
		"Looks for the sitemaps of up to N sources not yet looked at: robots.txt Sitemap: lines, else the\n"+
		"well-known paths, each verified by content. --truncated: only sources whose feed cannot reach\n"+
		"their archive.", func(ctx context.Context, c *crawl.Crawler, truncated bool, limit int) error {
		_, err := c.DiscoverSitemapsBatch(ctx, truncated, limit)
		return err
	})
}

func sitemapsFetch(env environment, args []string) error {
	return sitemapsCommand(env, args, "sitemaps fetch", "sitemaps fetch [--truncated] --limit N\n\n"+
		"Reads up to N sitemaps not read for SITEMAP_INTERVAL (conditionally), stores every lastmod,\n"+
		"and fetches the new and modified pages; URLs gone from a sitemap read whole are marked removed.\n"+
		"--truncated: only sources whose archive is not filled in yet.", func(ctx context.Context, c *crawl.Crawler, truncated bool, limit int) error {
		_, err := c.FetchSitemaps(ctx, truncated, limit)
		return err
	})
}

func sitemapsCommand(env environment, args []string, name, synopsis string, job func(context.Context, *crawl.Crawler, bool, int) error) error {
	fs := newFlags(name, synopsis)
	truncated := fs.Bool("truncated", false, "only the truncated population")
	limit := fs.Int("limit", 20, "how many to work on")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 || *limit <= 0 {
		return usageError("want --limit N with N > 0 and no arguments (see --help)")
	}
	return crawlCommand(env, *configPath, fs, func(ctx context.Context, c *crawl.Crawler) error {
		return job(ctx, c, *truncated, *limit)
	})
}
