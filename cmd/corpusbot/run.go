package main

import (
	"context"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
)

func runCrawl(env environment, args []string) error {
	fs := newFlags("run", "run [--once] [--every DURATION] [setting flags]\n\n"+
		"The scheduler: discovers new sources, polls the feeds that are due, walks catalogues, discovers\n"+
		"and reads sitemaps and fetches the pages owed, then again every --every (the hourly cadence of\n"+
		"the crawler page). --once does all the work that is due and exits. Ctrl-C stops cleanly.")
	once := fs.Bool("once", false, "do all the work that is due, then exit")
	every := fs.Duration("every", time.Hour, "how often a round starts")
	configPath := crawlFlags(fs)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("run takes no arguments (see --help)")
	}
	if *every <= 0 {
		return usageError("--every must be positive")
	}
	return crawlCommand(env, *configPath, fs, func(ctx context.Context, c *crawl.Crawler) error {
		if *once {
			return c.Once(ctx)
		}
		return c.Loop(ctx, *every)
	})
}
