package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

func sourcesRetry(env environment, args []string) error {
	fs := newFlags("sources retry", "sources retry [--db PATH] SITE\n\n"+
		"Clears by hand what the crawl holds back for a site on guesses and back-off, so that the next\n"+
		"run asks it again at once: the stored robots.txt entries of its origins (an unreachable guess\n"+
		"waits out ROBOTS_GUESS_TTL otherwise), its record on the 403 refusal list, its stored wait (the\n"+
		"back-off and Retry-After a new process would honour), and the retry times\n"+
		"and failed tries of its sources' feeds, sitemaps, posts and discoveries. States and last errors\n"+
		"stay. SITE is a registrable domain (blog.example) or any URL of the site. A crawler running\n"+
		"meanwhile keeps its own copy of the robots.txt entries until it expires.\n"+
		"Prints one line of what was cleared; fails with \"no source of SITE\" for a site with no source.")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageError("sources retry takes one argument, the site (see --help)")
	}
	site := siteArg(positional[0])
	if site == "" {
		return usageError("%q names no site", positional[0])
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	db, err := openExistingStore(ctx, s)
	var noDB *noDatabaseError
	if errors.As(err, &noDB) {
		return fmt.Errorf("no source of %s: %w", site, err)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	c, err := db.RetrySite(ctx, site)
	if errors.Is(err, model.ErrNotFound) {
		return fmt.Errorf("no source of %s", site)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, clearedLine(site, c))
	return nil
}

// siteArg is the site an argument names: the registrable domain of a URL's
// host, or of the argument taken as a host.
func siteArg(arg string) string {
	arg = strings.TrimSpace(arg)
	if strings.Contains(arg, "://") {
		u, err := url.Parse(arg)
		if err != nil || u.Host == "" {
			return ""
		}
		return model.Site(u.Host)
	}
	return model.Site(arg)
}

// clearedLine says what RetrySite cleared, in one line.
func clearedLine(site string, c store.SiteRetryCleared) string {
	refusal, wait := 0, 0
	if c.Refusal {
		refusal = 1
	}
	if c.Wait {
		wait = 1
	}
	return fmt.Sprintf("%s: %s; cleared %s, %s, %s, and the back-off of %s, %s, %s and %s",
		site, count(c.Sources, "source", "sources"), count(c.Robots, "robots.txt entry", "robots.txt entries"),
		count(refusal, "refusal record", "refusal records"), count(wait, "stored wait", "stored waits"), count(c.Feeds, "feed", "feeds"),
		count(c.Sitemaps, "sitemap", "sitemaps"), count(c.Posts, "post", "posts"), count(c.Discoveries, "discovery", "discoveries"))
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
