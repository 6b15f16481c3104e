package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/corpusout"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/safefile"
	"corpus.blog/corpusbot/internal/sitemapclass"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/sqlite"

	"golang.org/x/text/language"
)

// sourceLine is the contract's JSON line of a source, field for field (a
// post's is corpusout.Post's).
type sourceLine struct {
	Source string `json:"source"`
	// State is the source state (model.SourceStates) the public site
	// shows, from the same SQL (store.SiteData.SourceStates).
	State string `json:"state"`
	// Error is why the source's last discovery (robots.txt, homepage,
	// feed or sitemap paths) failed, as stored; "" when it did not. Kept
	// until a discovery succeeds, so that a source waiting for a retry
	// says why.
	Error    string             `json:"error"`
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
// (sitemapclass.Kind).
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
	// Note is what its last read found though it is active: a cut at the
	// protocol's limit (50,000 entries, 50 MB), a body that broke off.
	Note string `json:"note"`
}

// maxSitemapDepth bounds the walk down a source's sitemap indexes (the
// crawl reads two levels below the top; a third is recorded, not read).
const maxSitemapDepth = 3

func export(env environment, args []string) error {
	fs := newFlags("export", "export [--sources] [--text] [--format jsonl|parquet] [--output FILE [--force]]\n"+
		"       [--state S[,S...]] [--site SITE] [--language L[,L...]] [--unique] [--since CURSOR]\n"+
		"       [--text-format plain|markdown]\n\n"+
		"Prints the posts (or, with --sources, the sources) as JSON lines. Text only with --text or\n"+
		"--format parquet: without them a post line gives only its text's size and where it came from.\n"+
		"A SQLite database must exist already (`sources add` creates it): a path with none is refused.\n\n"+
		"Formats (--format), for posts:\n"+
		"  jsonl     one JSON object a line (the default); --text adds \"text\", \"site\" (the post's\n"+
		"            registrable domain) and \"first_seen\" (when the crawl first met it) to each line\n"+
		"  parquet   an Apache Parquet file, one row a post, text included (for DuckDB, pandas, Polars);\n"+
		"            written to --output, or to standard output when that is not a terminal\n"+
		"The fields and the Parquet schema are in docs/corpus.md. The export is\n"+
		"streamed: it holds one post at a time (one row group of a Parquet file), whatever the corpus's size.\n\n"+
		"--output FILE is written under a temporary name beside FILE and renamed to FILE only once the\n"+
		"export is whole: a failed or interrupted export leaves FILE as it was. An existing FILE is\n"+
		"replaced only with --force; a symbolic link is refused even with --force (never followed nor\n"+
		"replaced); the database and its -wal, -shm and -journal files are refused whatever --force says.\n\n"+
		"A source line's sitemaps (the top-level ones) carry \"kind\", what the sitemap's name says it\n"+
		"lists: posts, pages, taxonomies, authors, other or unknown. Sitemaps of pages, taxonomies,\n"+
		"authors and other things are never read (state \"skipped\"); the entries of a sitemap that is\n"+
		"read are queued for a page fetch only when their URL's shape may be a post. The line counts both,\n"+
		"over all the source's sitemaps, index children included, each with all four kinds:\n"+
		"  \"skipped\":{\"pages\":3,\"taxonomies\":12,\"authors\":2,\"other\":1}   entries not queued, by shape\n"+
		"  \"sitemaps_skipped\":{\"pages\":1,\"taxonomies\":2,\"authors\":1,\"other\":0}   sitemaps not read, by name\n\n"+
		"A source line's \"state\" is the source's state as the public site shows it, the first that applies:\n"+
		"  removed      taken out of the crawl by the operator (sources remove); its posts are kept\n"+
		"  paused       paused by its owner (opt-out form or claim) or the operator (sources pause)\n"+
		"  blocked      the homepage's robots.txt disallows our user agent the whole site (\"/\")\n"+
		"  refused      its site answered 403 until it went on the refusal list\n"+
		"  unreachable  the homepage's robots.txt does not answer (5xx, 429, no connection)\n"+
		"  disallowed   every feed it has is disallowed by robots.txt, and it has no sitemap\n"+
		"  no-feed      discovered, with no feed and no sitemap\n"+
		"  pending      not discovered yet\n"+
		"  error        every feed and sitemap it has failed at its last read\n"+
		"  active       anything else: it is read\n\n"+
		"A source line's \"error\" is why its last discovery failed (\"robots.txt unreachable: DNS failure\",\n"+
		"\"homepage: timeout\"), kept until one succeeds; \"\" when none did. A sitemap's \"note\" says what\n"+
		"its last read found though it is active: cut at the protocol's limit (50,000 entries, 50 MB), or\n"+
		"broken off, the entries before kept; \"\" for a whole read.\n\n"+
		"Selecting posts: --state (any of the states listed), --site (the registrable domain of the\n"+
		"post's source, such as example.co.uk), --language (ISO 639-1 codes such as de,fr), --unique (no\n"+
		"post whose text an earlier post holds, exactly or nearly: duplicate_of \"\"). Every export prints\n"+
		"\"cursor: VALUE\" on standard error; --since VALUE gives exactly the posts whose record changed\n"+
		"after that export began (new, re-extracted, removed, newly a duplicate, another state), so that\n"+
		"applying successive exports, line by line by url, reproduces the corpus. A removed post's line\n"+
		"carries no text. A cursor of another database is refused.\n\n"+
		"--text-format markdown writes each text as Markdown, as the extractor wrote it beside the plain\n"+
		"text: headings (#, by level), list items (- or 1., nested ones indented), quotes (>) and code\n"+
		"blocks (fenced) marked, the characters Markdown would read as markup escaped elsewhere; the same\n"+
		"words as plain. A post stored before the Markdown was kept (until reextract or its next fetch)\n"+
		"or whose text came from a full-content feed gets its plain text escaped: each block a paragraph.")
	sources := fs.Bool("sources", false, "print sources with their state, robots, refusal, feeds and sitemaps")
	withText := fs.Bool("text", false, "add each post's text (and its site and first-seen date) to its JSON line")
	format := fs.String("format", formatJSONLines, "output format of posts: jsonl or parquet")
	output := fs.String("output", "", "write to this new file instead of standard output (renamed into place once whole)")
	force := fs.Bool("force", false, "let --output replace an existing regular file (never a symbolic link, nor the database)")
	states := fs.String("state", "", "only posts in these states, comma-separated ("+strings.Join(model.PostStates, ", ")+")")
	site := fs.String("site", "", "only posts of this site's sources (registrable domain: example.com)")
	languages := fs.String("language", "", "only posts in these languages, comma-separated ISO 639-1 codes (de,fr)")
	unique := fs.Bool("unique", false, "leave out the posts whose text an earlier post holds (duplicate_of set)")
	since := fs.String("since", "", "only the posts whose record changed after this cursor (printed on stderr by an export)")
	textFormat := fs.String("text-format", textPlain, "texts as plain (blocks separated by blank lines) or markdown")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("export takes no arguments (see --help)")
	}
	switch *format {
	case formatJSONLines, formatParquet:
	default:
		return usageError("--format %q: want jsonl or parquet", *format)
	}
	if *sources && (*withText || *format != formatJSONLines) {
		return usageError("--sources prints JSON lines of sources: it takes neither --text nor --format parquet")
	}
	if *force && *output == "" {
		return usageError("--force goes with --output FILE")
	}
	filter, err := exportFilter(*states, *site, *languages, *unique, *since)
	if err != nil {
		return err
	}
	if *textFormat != textPlain && *textFormat != textMarkdown {
		return usageError("--text-format %q: want plain or markdown", *textFormat)
	}
	if *sources && (filter.States != nil || filter.Site != "" || filter.Languages != nil || filter.Unique || filter.Since != "") {
		return usageError("--state, --site, --language, --unique and --since select posts, not --sources")
	}
	if *format == formatParquet && *output == "" && isTerminal(env.stdout) {
		return usageError("a Parquet file is binary: give --output FILE, or redirect standard output")
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	// The output is refused, or its temporary file made, before the store
	// is opened: a refused export touches nothing.
	dest := env.stdout
	var file *safefile.File
	if *output != "" {
		if file, err = createOutput(*output, s.DB, *force); err != nil {
			return err
		}
		defer file.Abort() // unless committed: the target stays as it was
		dest = file
	}
	// Ctrl-C stops the export between two reads, so that the temporary
	// file is removed rather than left behind.
	ctx, stop := interruptible()
	defer stop()
	st, err := openExistingStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	if filter.Since != "" {
		if err := st.CheckCursor(ctx, filter.Since); err != nil {
			return fmt.Errorf("--since: %w", err)
		}
	}
	// Taken before the first post is read: whatever changes while the
	// export runs is after it, and so in the next --since export.
	cursor, err := st.Cursor(ctx)
	if err != nil {
		return err
	}

	out := bufio.NewWriterSize(dest, 64<<10)
	filter.Markdown = *textFormat == textMarkdown
	sel := postSelection{filter: filter, markdown: filter.Markdown}
	switch {
	case *sources:
		err = exportSources(ctx, st.DB, newLineEncoder(out))
	case *format == formatParquet:
		err = exportParquet(ctx, st.DB, sel, out)
	case *withText:
		err = exportPostLines(ctx, st.DB, sel, corpusout.NewJSONLines(out))
	default:
		err = exportPostLines(ctx, st.DB, sel, corpusout.NewContractLines(out))
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil && ctx.Err() != nil && file != nil {
		return fmt.Errorf("interrupted: %s left as it was", *output)
	}
	if err == nil && file != nil {
		err = outputError(file.Commit())
	}
	if err == nil {
		fmt.Fprintf(env.stderr, "cursor: %s\n", cursor)
	}
	return err
}

// The text formats of export --text-format.
const (
	textPlain    = "plain"
	textMarkdown = "markdown"
)

// postSelection is which posts an export writes, and how their texts.
type postSelection struct {
	filter   store.ExportFilter
	markdown bool
}

// exportFilter reads the selecting flags; a value that names nothing is a
// usage error.
func exportFilter(states, site, languages string, unique bool, since string) (store.ExportFilter, error) {
	f := store.ExportFilter{Unique: unique, Since: strings.TrimSpace(since)}
	for _, st := range splitList(states) {
		if !slices.Contains(model.PostStates, st) {
			return f, usageError("--state %q: want one of %s", st, strings.Join(model.PostStates, ", "))
		}
		f.States = append(f.States, st)
	}
	if site = strings.TrimSpace(site); site != "" {
		host := site
		if u, err := url.Parse(site); err == nil && u.Host != "" {
			host = u.Hostname()
		}
		if f.Site = model.Site(host); f.Site == "" {
			return f, usageError("--site %q: want a site's domain, such as example.com", site)
		}
	}
	for _, l := range splitList(languages) {
		code, ok := languageCode(l)
		if !ok {
			return f, usageError("--language %q is not an ISO 639-1 language code (such as de, fr, en)", l)
		}
		f.Languages = append(f.Languages, code)
	}
	if since != "" && f.Since == "" {
		return f, usageError("--since: an empty cursor")
	}
	return f, nil
}

// languageCode is l as the two-letter ISO 639-1 code the store keeps, if it
// is one of a known language.
func languageCode(l string) (string, bool) {
	l = strings.ToLower(strings.TrimSpace(l))
	if len(l) != 2 {
		return "", false
	}
	b, err := language.ParseBase(l)
	if err != nil || b.String() != l {
		return "", false
	}
	return l, true
}

// createOutput starts --output path (package safefile): never onto the
// SQLite database at db or its companions, onto an existing file only with
// force.
func createOutput(path, db string, force bool) (*safefile.File, error) {
	opts := safefile.Options{}
	if !postgres.IsDSN(db) {
		opts = sqlite.OutputOptions(db)
	}
	opts.Replace = force
	f, err := safefile.Create(path, opts)
	if err != nil {
		return nil, outputError(err)
	}
	return f, nil
}

// outputError is a refusal of --output (at its creation or, the target
// having changed meanwhile, its commit) with what to do about it.
func outputError(err error) error {
	var refused *safefile.Error
	if !errors.As(err, &refused) {
		return err
	}
	switch {
	case errors.Is(refused.Err, fs.ErrExist):
		return fmt.Errorf("--output %w: --force replaces it", err)
	case errors.Is(refused.Err, safefile.ErrNotRegular):
		return fmt.Errorf("--output %w: write to standard output instead (export > FILE)", err)
	}
	return fmt.Errorf("--output %w", err)
}

// The formats of export --format.
const (
	formatJSONLines = "jsonl"
	formatParquet   = "parquet"
)

func newLineEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}

// postWriter is what exportPostLines writes to: corpusout's JSON lines
// (the contract's, or with texts) or Parquet writer.
type postWriter interface {
	Write(corpusout.Post) error
}

// exportPostLines writes every post, one at a time as the store reads
// them; w decides which of its fields it writes.
func exportPostLines(ctx context.Context, st *store.DB, sel postSelection, w postWriter) error {
	urls, err := sourceURLs(ctx, st)
	if err != nil {
		return err
	}
	return st.ExportPosts(ctx, sel.filter, func(p store.Post) error {
		o := outPost(p, urls[p.SourceID])
		if sel.markdown && o.Text != "" {
			// The extractor's Markdown; for a post stored before it kept
			// one, or whose text came from a feed, the plain text escaped.
			if o.Text = p.Markdown; o.Text == "" {
				o.Text = corpusout.Markdown(p.Text)
			}
		}
		if err := w.Write(o); err != nil {
			return fmt.Errorf("export %s: %w", p.URL, err)
		}
		return nil
	})
}

func exportParquet(ctx context.Context, st *store.DB, sel postSelection, out io.Writer) error {
	pw, err := corpusout.NewParquet(out)
	if err != nil {
		return err
	}
	if err := exportPostLines(ctx, st, sel, pw); err != nil {
		return err
	}
	return pw.Close()
}

// outPost is p as exported (the writer leaves out what its line does not
// carry).
func outPost(p store.Post, sourceURL string) corpusout.Post {
	o := corpusout.Post{URL: p.URL, Source: sourceURL, Site: model.SiteOfURL(p.URL), Title: p.Title,
		Published: exportTime(p.Published), Lastmod: exportTime(p.Lastmod), FirstSeen: exportTime(p.FirstSeen), State: p.State, TextFrom: p.TextFrom,
		TextBytes: len(p.Text), Citations: p.Citations, Text: p.Text,
		Author: p.Author, Language: p.Language, Description: p.Description, SiteName: p.SiteName, Tags: p.Tags,
		License: p.License, Image: p.Image, DuplicateOf: p.DuplicateURL, Updated: exportTime(p.Updated)}
	if p.State == model.PostRemoved {
		// Kept in the store, but no longer published: not given out.
		o.Text, o.TextBytes = "", 0
	}
	return o
}

// sourceURLs maps every source's ID to its URL: small beside the posts,
// and read before them so that no store read is open inside another.
func sourceURLs(ctx context.Context, st *store.DB) (map[int64]string, error) {
	urls := map[int64]string{}
	if err := st.EachSource(ctx, func(s store.Source) error { urls[s.ID] = s.URL; return nil }); err != nil {
		return nil, err
	}
	return urls, nil
}

// exportSources writes a line for every source: its records and its state
// on the public site.
func exportSources(ctx context.Context, st *store.DB, enc *json.Encoder) error {
	var srcs []store.Source
	if err := st.EachSource(ctx, func(s store.Source) error { srcs = append(srcs, s); return nil }); err != nil {
		return err
	}
	// Read after the sources, so that each of them has its state (a
	// source is never deleted; one added in between is not exported).
	states, err := st.SiteData().SourceStates(ctx)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		line := sourceLine{Source: s.URL, State: states[s.ID], Error: s.Error, Feeds: []feedStateLine{}, Sitemaps: []sitemapStateLine{}}
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
			line.Sitemaps = append(line.Sitemaps, sitemapStateLine{URL: m.URL, State: m.State, Via: m.Via, Kind: sitemapKind(m), Note: m.Note})
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
func countSkipped(ctx context.Context, st *store.DB, m store.Sitemap, depth int, line *sourceLine) error {
	line.Skipped.Pages += m.SkippedPages
	line.Skipped.Taxonomies += m.SkippedTaxonomies
	line.Skipped.Authors += m.SkippedAuthors
	line.Skipped.Other += m.SkippedOther
	if m.State == model.SitemapSkipped {
		switch m.Kind {
		case sitemapclass.KindPages.String():
			line.SitemapsSkipped.Pages++
		case sitemapclass.KindTaxonomies.String():
			line.SitemapsSkipped.Taxonomies++
		case sitemapclass.KindAuthors.String():
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
	return sitemapclass.OfSitemap(m.URL).Kind.String()
}

func exportTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
