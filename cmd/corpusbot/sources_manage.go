package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
)

// listLine is the JSON line of a source in sources list, field for field.
type listLine struct {
	Source       string `json:"source"`
	State        string `json:"state"`
	PostsIndexed int    `json:"posts_indexed"`
	LastRead     string `json:"last_read"`
	NextDue      string `json:"next_due"`
	LastError    string `json:"last_error"`
}

func sourcesList(env environment, args []string) error {
	fs := newFlags("sources list", "sources list [--db FILE] [--state S] [--json | --opml]\n\n"+
		"Lists every source: on a terminal as a table, otherwise (or with --json) as JSON lines\n"+
		"  {\"source\",\"state\",\"posts_indexed\",\"last_read\",\"next_due\",\"last_error\"}\n"+
		"state is the source's state as export --sources and the public site give it (removed, paused,\n"+
		"blocked, refused, unreachable, disallowed, no-feed, pending, error, active); posts_indexed counts\n"+
		"its posts in state indexed; last_read is the newest read of any of its feeds or sitemaps;\n"+
		"next_due is when it has work due next (now, if it has some now), as the crawl judges it with\n"+
		"these settings, and later if its site asked us to wait; last_error is why its last discovery\n"+
		"failed. Times are RFC 3339 UTC, \"\" when there is none (a paused or removed source is never due).\n\n"+
		"--opml writes an OPML 2.0 document instead, one outline a source (htmlUrl its homepage, xmlUrl\n"+
		"its feed where one is known), for a feed reader, or for `sources add --file` to read back.\n"+
		"--state S lists only the sources in state S.")
	state := fs.String("state", "", "list only the sources in this state")
	asJSON := fs.Bool("json", false, "JSON lines even on a terminal")
	asOPML := fs.Bool("opml", false, "an OPML 2.0 document of the sources")
	configPath := crawlFlags(fs, "DB", "FEED_INTERVAL", "SITEMAP_INTERVAL", "DISALLOWED_RECHECK")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("sources list takes no arguments (see --help)")
	}
	if *asJSON && *asOPML {
		return usageError("give --json or --opml, not both")
	}
	if *state != "" && !slices.Contains(model.SourceStates, *state) {
		return usageError("--state %q: want one of %s", *state, strings.Join(model.SourceStates, ", "))
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	st, err := openExistingStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	now := time.Now()
	list, err := st.ListSources(ctx, now, dueSettings(s))
	if err != nil {
		return err
	}
	if *state != "" {
		list = slices.DeleteFunc(list, func(l store.ListedSource) bool { return l.State != *state })
	}
	out := bufio.NewWriterSize(env.stdout, 64<<10)
	switch {
	case *asOPML:
		var outlines []sourcelist.Outline
		for _, l := range list {
			outlines = append(outlines, sourcelist.Outline{Title: l.Title, Site: l.URL, Feed: l.Feed})
		}
		err = sourcelist.WriteOPML(out, "corpusbot sources", now, outlines)
	case *asJSON || !isTerminal(env.stdout):
		enc := newLineEncoder(out)
		for _, l := range list {
			if err = enc.Encode(listLine{Source: l.URL, State: l.State, PostsIndexed: l.PostsIndexed,
				LastRead: exportTime(l.LastRead), NextDue: exportTime(l.NextDue), LastError: l.Error}); err != nil {
				break
			}
		}
	default:
		err = sourcesTable(out, list)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// dueSettings are the settings the store's due conditions compare with.
func dueSettings(s config.Settings) store.DueSettings {
	return store.DueSettings{FeedInterval: s.FeedInterval, DisallowedRecheck: s.DisallowedRecheck, SitemapInterval: s.SitemapInterval}
}

// sourcesTable writes the list for a person: aligned columns, times to
// the minute, "-" for none.
func sourcesTable(w *bufio.Writer, list []store.ListedSource) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tSTATE\tPOSTS INDEXED\tLAST READ\tNEXT DUE\tLAST ERROR")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04Z")
	}
	for _, l := range list {
		e := oneLine(l.Error)
		if e == "" {
			e = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", l.URL, l.State, l.PostsIndexed, at(l.LastRead), at(l.NextDue), e)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s\n", count(len(list), "source", "sources"))
	return err
}

// selectorsHelp is what sources remove, pause and resume say of their arguments.
const selectorsHelp = "A URL names the source with that homepage, however it is spelt (as sources add\n" +
	"dedupes); a SITE, a registrable domain such as example.com, names every source of that site. An\n" +
	"argument that names no source is an error (exit non-zero) and nothing is changed: every argument\n" +
	"is checked before anything is done."

// selectorArgs reads the arguments of sources remove, pause and resume.
func selectorArgs(cmd string, positional []string) ([]sourcelist.Selector, error) {
	if len(positional) == 0 {
		return nil, usageError("%s wants at least one source URL or SITE (see --help)", cmd)
	}
	var sels []sourcelist.Selector
	for _, a := range positional {
		sel, err := sourcelist.ParseSelector(a)
		if err != nil {
			return nil, usageError("%v", err)
		}
		sels = append(sels, sel)
	}
	return sels, nil
}

// openForSelectors opens the existing store for sources remove, pause and
// resume: a database that is not there holds no source.
func openForSelectors(ctx context.Context, env environment, configPath string, fs *flags, sels []sourcelist.Selector) (*app.DB, error) {
	s, err := loadSettings(env, configPath, fs.FlagSet)
	if err != nil {
		return nil, err
	}
	db, err := openExistingStore(ctx, s)
	var noDB *noDatabaseError
	if errors.As(err, &noDB) {
		return nil, fmt.Errorf("no source %s: %w", sels[0].Arg, err)
	}
	return db, err
}

func sourcesRemove(env environment, args []string) error {
	fs := newFlags("sources remove", "sources remove [--db FILE] [--purge] URL|SITE...\n\n"+
		"Stops crawling these sources: nothing of them is fetched again. Their posts are kept, exported\n"+
		"as before; the sources stay in the list in state \"removed\", and `sources add` brings one back\n"+
		"where it was left. --purge also deletes them for good, with their posts and the posts' text and\n"+
		"citations, and their feeds and sitemaps (what their site shares with other sources, such as its\n"+
		"robots.txt and the request log, stays). One line is printed per source:\n"+
		"  removed URL (N posts kept)      or, with --purge,      removed URL (N posts deleted)\n"+
		selectorsHelp+" All of it is one transaction.")
	purge := fs.Bool("purge", false, "also delete the sources' posts, their text and citations, feeds and sitemaps")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	sels, err := selectorArgs("sources remove", positional)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	db, err := openForSelectors(ctx, env, *configPath, fs, sels)
	if err != nil {
		return err
	}
	defer db.Close()
	removed, err := db.RemoveSources(ctx, sels, *purge, time.Now())
	if err != nil {
		return notFoundLine(err)
	}
	for _, r := range removed {
		what := "kept"
		if r.Purge {
			what = "deleted"
		}
		fmt.Fprintf(env.stdout, "removed %s (%s %s)\n", r.URL, count(r.Posts, "post", "posts"), what)
	}
	return nil
}

// notFoundLine is a selector's "no source" error without the store's
// wrapping, as the one line the user needs.
func notFoundLine(err error) error {
	if !errors.Is(err, model.ErrNotFound) {
		return err
	}
	msg := err.Error()
	if i := strings.Index(msg, "no source"); i >= 0 {
		msg = msg[i:]
	}
	return errors.New(strings.TrimSuffix(msg, ": "+model.ErrNotFound.Error()))
}

func sourcesPause(env environment, args []string) error {
	return sourcesPauseResume(env, args, true)
}

func sourcesResume(env environment, args []string) error {
	return sourcesPauseResume(env, args, false)
}

// sourcesPauseResume is sources pause and sources resume: the owner's
// pause (the opt-out form's for a site, a claim's for a source), by the
// operator.
func sourcesPauseResume(env environment, args []string, pause bool) error {
	name, synopsis := "sources resume", "sources resume [--db FILE] URL|SITE...\n\n"+
		"Ends a pause the operator gave (sources pause): the sources are crawled again from the next run.\n"+
		"A pause their owner gave (the opt-out form, a claim) is the owner's to end: such a source, and a\n"+
		"removed one (`sources add` brings it back), is refused, and nothing is changed.\n"
	if pause {
		name, synopsis = "sources pause", "sources pause [--db FILE] URL|SITE...\n\n"+
			"Pauses these sources as their owner's claim does: nothing of them is fetched until `sources\n"+
			"resume`; their posts stay. A SITE is paused as the opt-out form pauses it: every source of it,\n"+
			"and any source of it added later. The public site shows them paused (by \"operator\").\n"
	}
	fs := newFlags(name, synopsis+"One line is printed per source, saying what was done.\n"+selectorsHelp)
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	sels, err := selectorArgs(name, positional)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	db, err := openForSelectors(ctx, env, *configPath, fs, sels)
	if err != nil {
		return err
	}
	defer db.Close()
	// Every argument is looked up, and a resume checked, before anything
	// is changed.
	perSel := make([][]store.SelectedSource, len(sels))
	for i, sel := range sels {
		if perSel[i], err = db.SelectSources(ctx, []sourcelist.Selector{sel}); err != nil {
			return notFoundLine(err)
		}
		if pause {
			continue
		}
		for _, src := range perSel[i] {
			switch {
			case src.Removed:
				return fmt.Errorf("%s was removed: `sources add %s` brings it back; nothing resumed", src.URL, src.URL)
			case src.Paused && src.PausedBy != model.PausedByOperator:
				return fmt.Errorf("%s was paused by its owner (%s): only the owner can resume it; nothing resumed", src.URL, src.PausedBy)
			}
		}
		if sel.IsSite() {
			by, opted, err := db.OptedOutBy(ctx, sel.Site)
			if err != nil {
				return err
			}
			if opted && by != model.PausedByOperator {
				return fmt.Errorf("%s opted out (%s): only its owner can undo that; nothing resumed", sel.Site, by)
			}
		}
	}
	sd := db.SiteData()
	now := time.Now()
	for i, sel := range sels {
		if pause {
			err = pauseSelected(ctx, env, sd, sel, perSel[i], now)
		} else {
			err = resumeSelected(ctx, env, sd, sel, perSel[i])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func pauseSelected(ctx context.Context, env environment, sd *store.SiteData, sel sourcelist.Selector, srcs []store.SelectedSource, now time.Time) error {
	if sel.IsSite() {
		if _, err := sd.PauseSite(ctx, sel.Site, model.PausedByOperator, now); err != nil {
			return err
		}
	}
	for _, src := range srcs {
		switch {
		case src.Removed:
			fmt.Fprintf(env.stdout, "removed %s: not crawled already\n", src.URL)
			continue
		case src.Paused:
			fmt.Fprintf(env.stdout, "paused %s already (by %s)\n", src.URL, src.PausedBy)
			continue
		}
		if !sel.IsSite() {
			if err := sd.PauseSource(ctx, src.ID, model.PausedByOperator, now); err != nil {
				return err
			}
		}
		fmt.Fprintf(env.stdout, "paused %s\n", src.URL)
	}
	return nil
}

func resumeSelected(ctx context.Context, env environment, sd *store.SiteData, sel sourcelist.Selector, srcs []store.SelectedSource) error {
	if sel.IsSite() {
		if err := sd.ResumeSite(ctx, sel.Site); err != nil {
			return err
		}
	}
	for _, src := range srcs {
		if !src.Paused {
			fmt.Fprintf(env.stdout, "resumed %s: was not paused\n", src.URL)
			continue
		}
		if !sel.IsSite() {
			if err := sd.ResumeSource(ctx, src.ID); err != nil {
				return err
			}
		}
		fmt.Fprintf(env.stdout, "resumed %s\n", src.URL)
	}
	return nil
}
