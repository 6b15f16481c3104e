package main

import (
	"errors"
	"fmt"
	"strings"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/reextract"
	"corpus.blog/corpusbot/internal/sourcelist"
)

// pathList is a flag given any number of times.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }

func reextractCmd(env environment, args []string) error {
	fs := newFlags("reextract", "reextract [--db PATH] [--site SITE] [--warc FILE|DIR...]\n\n"+
		"Runs today's extractor over the page bodies kept as WARC files, updating the posts' text, title,\n"+
		"metadata (author, language, ...), citations and duplicates exactly as a crawl fetching them\n"+
		"today would, and sends no request: it has no fetcher. The crawl's own record of each post (when\n"+
		"it was fetched, whether it is due, its validators) is left as it was.\n\n"+
		"Without --warc it reads WARC_DIR, where the crawler keeps the pages it fetches. --warc reads\n"+
		"other WARC files too, .warc or .warc.gz, any crawler's (a directory: its *.warc and *.warc.gz\n"+
		"files, recursively); more paths may follow it. Only pages of posts of known sources are used:\n"+
		"another URL is skipped and counted. The newest record of each URL wins; a redirect is followed\n"+
		"within the files. Only a 200 HTML page rebuilds a post, and only a post whose state a page\n"+
		"decides (indexed, noindex, shell) with a page's text.\n\n"+
		"--site SITE rebuilds only the posts of that site's sources (a registrable domain, example.com).\n\n"+
		"Prints one summary line: files, pages read, posts updated, unchanged, skipped (of which not a\n"+
		"known post), errors. A file that is not WARC fails the run before anything is changed; a torn\n"+
		"file (cut short, damaged) gives its records before the tear, one warning line, and exit status 1.")
	site := fs.String("site", "", "only the posts of this site's sources (example.com)")
	var paths pathList
	fs.Var(&paths, "warc", "a WARC `FILE or DIR` to read instead of WARC_DIR (more paths may follow)")
	configPath := crawlFlags(fs, "DB", "WARC_DIR", "USER_AGENT", "BODY_MAX")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 && len(paths) == 0 {
		return usageError("reextract takes no arguments but the paths after --warc (see --help)")
	}
	paths = append(paths, positional...)
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		dir := s.PagesDir()
		if dir == "" {
			return usageError("no WARC files to read: WARC_DIR is off (pages are not kept); give --warc FILE|DIR")
		}
		paths = pathList{dir}
	}
	var siteName string
	if *site != "" {
		if siteName = siteArg(*site); siteName == "" {
			return usageError("--site %q: want a site's domain, such as example.com", *site)
		}
	}
	ctx, stop := interruptible()
	defer stop()
	db, err := openExistingStore(ctx, s)
	if err != nil {
		return err
	}
	defer db.Close()
	var sources map[int64]bool
	if siteName != "" {
		found, err := db.SelectSources(ctx, []sourcelist.Selector{{Arg: siteName, Site: siteName}})
		if errors.Is(err, model.ErrNotFound) {
			return fmt.Errorf("--site %s: no source of %s", *site, siteName)
		}
		if err != nil {
			return err
		}
		sources = map[int64]bool{}
		for _, f := range found {
			sources[f.ID] = true
		}
	}
	// No Fetcher: the page function cannot send a request.
	pages := crawl.New(crawl.Config{Store: db.DB, Settings: s})
	sum, err := reextract.Run(ctx, reextract.Options{Store: db.DB, Pages: pages, Paths: paths, Sources: sources, BodyMax: s.BodyMax,
		Warn: func(line string) { fmt.Fprintf(env.stderr, "corpusbot: warning: %s\n", oneLine(line)) }})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "reextract: %d files, %d pages read, %d posts updated, %d unchanged, %d skipped (%d not a known post), %d errors\n",
		sum.Files, sum.Pages, sum.Updated, sum.Unchanged, sum.Skipped, sum.Unknown, sum.Errors)
	if len(sum.Torn) > 0 {
		return fmt.Errorf("%d WARC files torn (their records before the tear were used)", len(sum.Torn))
	}
	if sum.Errors > 0 {
		return fmt.Errorf("%d pages could not be re-extracted", sum.Errors)
	}
	return nil
}
