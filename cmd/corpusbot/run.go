package main

import (
	"context"

	"corpus.blog/corpusbot/internal/crawl"
)

func runCrawl(env environment, args []string) error {
	fs := newFlags("run", "run [--once] [setting flags]\n\n"+
		"The scheduler: discovers new sources, polls the feeds that are due, walks catalogues, discovers\n"+
		"and reads sitemaps and fetches the pages owed, then again every RUN_INTERVAL (--run-interval;\n"+
		"hourly by default, the cadence of the crawler page). --once does all the work that is due and\n"+
		"exits: with status 1 when requests were made and not one was answered (no network, DNS down,\n"+
		"every target refused by the private-address guard), the reasons in the message. Each round\n"+
		"ends with one summary line: requests, 304s, new, modified and removed posts, errors by\n"+
		"reason, how long it took and when the next round starts; a round that found nothing to do says\n"+
		"why (nothing_due: no source, or the sources waiting for a retry, the soonest and its last\n"+
		"failure). Ctrl-C stops cleanly.")
	once := fs.Bool("once", false, "do all the work that is due, then exit")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at /metrics and the health check at /healthz on this address (e.g. 127.0.0.1:9090); empty: off")
	configPath := crawlFlags(fs)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("run takes no arguments (see --help)")
	}
	return crawlCommandServing(env, *configPath, fs, *metricsAddr, openStore, func(ctx context.Context, c *crawl.Crawler) error {
		if *once {
			return c.Once(ctx)
		}
		return c.Loop(ctx, c.Settings.RunInterval)
	})
}
