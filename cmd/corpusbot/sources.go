package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
)

func sourcesAdd(env environment, args []string) error {
	fs := newFlags("sources add", "sources add [--db FILE] URL...\n"+
		"       sources add [--db FILE] --file FILE|-\n\n"+
		"Adds sources by their homepage URL. Adding a known source again changes nothing: a source is\n"+
		"one homepage whatever its spelling (host case, an international name in Unicode or punycode, a\n"+
		"default port, a fragment, a final slash), stored with its host in lowercase ASCII. A source\n"+
		"added by its feed's URL becomes the blog the feed names, and one source with that blog's homepage.\n\n"+
		"--file reads the sources from FILE (- for standard input): an OPML document, as feed readers\n"+
		"export their subscriptions, or one URL a line (blank lines and lines starting with # skipped).\n"+
		"An OPML outline adds its site (htmlUrl), or its feed (xmlUrl) when it names no site; the crawl\n"+
		"finds the feeds from either. One line is printed for each entry, in input order:\n"+
		"  added URL                  a new source\n"+
		"  known URL                  already a source, or named earlier in the input\n"+
		"  rejected line N: reason    not an http or https URL, say; the other entries are still added\n"+
		"then a summary: \"N added, N known, N rejected\". An OPML document that is not well-formed XML (an\n"+
		"unescaped < or \" in a title, say) is read outline by outline, with a warning on stderr; an outline\n"+
		"whose URL cannot be read is rejected on its line. The exit status is non-zero only when the input\n"+
		"could not be read at all (no such file, or no outline with a URL found), never for rejected entries.\n\n"+
		"A source URL must be an absolute http or https URL with no user name or password (sources are\n"+
		"fetched without credentials, and their URLs are published) and a port, if any, from 1 to 65535.\n"+
		"Given as arguments, one bad URL refuses them all (exit non-zero, nothing added). A source whose\n"+
		"host the private-address guard will refuse (a loopback, private or link-local address, or a local\n"+
		"name such as localhost or *.internal) is added with a warning on stderr while ALLOW_PRIVATE is off.")
	file := fs.String("file", "", "read the sources from this file (OPML, or one URL a line); - for standard input")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if *file != "" {
		if len(positional) != 0 {
			return usageError("give URLs or --file, not both (see --help)")
		}
		return sourcesAddFile(env, *file, *configPath, fs)
	}
	if len(positional) == 0 {
		return usageError("want at least one homepage URL, or --file (see --help)")
	}
	var urls []string
	for _, raw := range positional {
		u, err := sourcelist.SourceURL(raw)
		if err != nil {
			return usageError("source %q refused: %v", sourcelist.Redact(raw), err)
		}
		urls = append(urls, u)
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
	for _, u := range urls {
		src, isNew, err := addSource(ctx, st.DB, u)
		if err != nil {
			return err
		}
		if isNew {
			fmt.Fprintf(env.stdout, "added %s\n", src.URL)
		} else {
			fmt.Fprintf(env.stdout, "known %s\n", src.URL)
		}
		warnGuarded(env, s.AllowPrivate, src.URL)
	}
	return nil
}

// warnGuarded warns on stderr when the private-address guard will refuse
// every fetch of source u, judging its host by its spelling as the guard
// does (fetch.RefusedHost; no lookup): the source is kept, as the operator
// may mean to set ALLOW_PRIVATE, but would otherwise learn of it only from
// the crawl's errors.
func warnGuarded(env environment, allowPrivate bool, u string) {
	if allowPrivate {
		return
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return
	}
	if refused, why := fetch.RefusedHost(parsed.Hostname()); refused {
		fmt.Fprintf(env.stderr, "corpusbot: warning: %s: %s is %s, which the crawl refuses while ALLOW_PRIVATE is off\n", u, parsed.Hostname(), why)
	}
}

func addSource(ctx context.Context, st *store.DB, u string) (store.Source, bool, error) {
	src, isNew, err := st.AddSource(ctx, u, time.Now())
	if err != nil {
		return src, false, fmt.Errorf("add %s: %w", u, err)
	}
	return src, isNew, nil
}

// sourcesAddFile adds the sources of a list (sourcelist.Parse), printing a
// line for each entry and a summary. The list is read whole before the
// store is opened, so that a file that cannot be read changes nothing.
func sourcesAddFile(env environment, path, configPath string, fs *flags) error {
	var in io.Reader = env.stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("source list: %w", err)
		}
		defer f.Close()
		in = f
	}
	list, err := sourcelist.ParseList(in)
	if err != nil {
		return fmt.Errorf("source list %s: %w", path, err)
	}
	entries := list.Entries
	if list.Malformed != nil {
		fmt.Fprintf(env.stderr, "corpusbot: warning: %s is not well-formed XML (line %d: %v): read outline by outline\n",
			path, list.Malformed.Line, list.Malformed.Err)
	}
	s, err := loadSettings(env, configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()

	var added, known, rejected int
	for _, o := range inInputOrder(entries) {
		e := o.entry
		switch {
		case e.Err != nil:
			rejected++
			fmt.Fprintf(env.stdout, "rejected line %d: %v\n", e.Line, e.Err)
			continue
		case o.repeat:
			known++
			fmt.Fprintf(env.stdout, "known %s\n", listedURL(e.URL))
			continue
		}
		u := listedURL(e.URL)
		src, isNew, err := addSource(ctx, st.DB, u)
		if err != nil {
			return err
		}
		if isNew && e.Feed != "" && e.Feed == e.URL {
			// An outline with a feed and no site: the source is recorded
			// with its feed known, which its discovery reads first.
			if _, err := st.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: e.Feed}); err != nil {
				return fmt.Errorf("add feed %s: %w", e.Feed, err)
			}
		}
		if isNew {
			added++
			fmt.Fprintf(env.stdout, "added %s\n", src.URL)
		} else {
			known++
			fmt.Fprintf(env.stdout, "known %s\n", src.URL)
		}
		warnGuarded(env, s.AllowPrivate, src.URL)
	}
	fmt.Fprintf(env.stdout, "%d added, %d known, %d rejected\n", added, known, rejected)
	return nil
}

// listedURL is the URL of a good entry as a source is stored (sourcelist
// has checked it with the same rule).
func listedURL(raw string) string {
	u, err := sourcelist.SourceURL(raw)
	if err != nil {
		return raw
	}
	return u
}

// orderedEntry is one entry of a list, saying whether an earlier entry
// names the same source.
type orderedEntry struct {
	entry  sourcelist.Entry
	repeat bool
}

// inInputOrder returns entries in their order, each marked as sourcelist.Dedup
// judges it. Dedup returns the unique entries and the repeats apart, each in
// input order; this merges them back, so that every entry gets its line of
// output where it stands. An entry is the next unique one when its fields
// match it; identical entries are interchangeable, and the first of them is
// the unique one.
func inInputOrder(entries []sourcelist.Entry) []orderedEntry {
	unique, _ := sourcelist.Dedup(entries)
	out := make([]orderedEntry, 0, len(entries))
	next := 0
	for _, e := range entries {
		if next < len(unique) && sameEntry(unique[next], e) {
			next++
			out = append(out, orderedEntry{entry: e})
			continue
		}
		out = append(out, orderedEntry{entry: e, repeat: true})
	}
	return out
}

func sameEntry(a, b sourcelist.Entry) bool {
	return a.Line == b.Line && a.URL == b.URL && a.Feed == b.Feed && a.Title == b.Title && (a.Err == nil) == (b.Err == nil)
}
