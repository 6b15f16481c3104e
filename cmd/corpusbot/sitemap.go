package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"corpus.blog/corpusbot/sitemap"
)

func sitemapParse(env environment, args []string) error {
	fs := newFlags("sitemap parse", "sitemap parse [--json] [--url SITEMAP_URL] FILE|-\n\n"+
		"Lists the entries of FILE (- for standard input), one JSON object a line, as they are read:\n"+
		"an XML urlset or sitemap index, a text sitemap, or an RSS or Atom feed used as a sitemap,\n"+
		"gzip-compressed or not. A document that is not a sitemap exits 3 and prints nothing. A file\n"+
		"cut by the limits (50,000 entries, 50 MB uncompressed) or whose XML breaks partway prints\n"+
		"what was read, with a warning on standard error, and exits 0. It reads no settings, so it takes\n"+
		"no --config: the crawl too reads sitemaps under the protocol's limits, not BODY_MAX.")
	// The contract defines only the JSON lines, so they are the output with
	// or without --json; the flag is accepted as on the other commands.
	jsonLinesAlready(fs)
	base := fs.String("url", "", "the URL the file was fetched from; a feed's relative links are resolved against it")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageError("want exactly one FILE (or - for standard input; see --help)")
	}
	var opts sitemap.Options
	if *base != "" {
		u, err := absoluteURL("--url", *base)
		if err != nil {
			return err
		}
		opts.Base = u
	}
	in, closeIn, err := openSitemapInput(env, positional[0])
	if err != nil {
		return err
	}
	defer closeIn()

	out := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sum, err := sitemap.Read(in, opts, func(e sitemap.Entry) error {
		line := sitemapLine{Type: e.Type.String(), Loc: e.Loc}
		if !e.Lastmod.IsZero() {
			line.Lastmod = e.Lastmod.UTC().Format(time.RFC3339Nano)
		}
		return enc.Encode(line)
	})
	// Whatever was read is printed, even when reading then failed.
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	var notSitemap *sitemap.NotSitemapError
	if errors.As(err, &notSitemap) {
		return &exitError{code: exitNotThat, err: notSitemap}
	}
	if err != nil {
		return err
	}
	if sum.Format == sitemap.FormatText && sum.Skipped > 0 {
		// The entries are printed all the same; the note says that lines
		// were left out, so that a document of mostly junk does not pass
		// for a short sitemap.
		lines := "lines that are"
		if sum.Skipped == 1 {
			lines = "line that is"
		}
		fmt.Fprintf(env.stderr, "corpusbot sitemap parse: note: passed over %d %s not an absolute http(s) URL\n", sum.Skipped, lines)
	}
	if sum.Truncated || sum.Broken {
		entries := "entries"
		if sum.Entries() == 1 {
			entries = "entry"
		}
		fmt.Fprintf(env.stderr, "corpusbot sitemap parse: warning: %s: %s; printed the %d %s read before it\n",
			sitemapCut(sum), oneLine(sum.Reason), sum.Entries(), entries)
	}
	return nil
}

// jsonLinesAlready accepts --json on the commands whose only output is JSON
// lines (sitemap parse, feed parse): command lines written with it, as
// robots check needs it, keep working, and the help says it changes nothing.
func jsonLinesAlready(fs *flags) {
	fs.Bool("json", false, "accepted for compatibility: the output is JSON lines already")
}

// sitemapLine is one line of `sitemap parse`; the field order is the
// contract's.
type sitemapLine struct {
	Type    string `json:"type"`
	Loc     string `json:"loc"`
	Lastmod string `json:"lastmod,omitempty"`
}

func sitemapCut(sum sitemap.Summary) string {
	if sum.Truncated {
		return "truncated"
	}
	return "broken"
}

// openSitemapInput opens a named file, or standard input for "-", to be streamed.
func openSitemapInput(env environment, name string) (io.Reader, func(), error) {
	if name == "-" {
		return env.stdin, func() {}, nil
	}
	f, err := os.Open(name) // its error names the file
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
