package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"corpus.blog/corpusbot/feed"
)

func feedParse(env environment, args []string) error {
	fs := newFlags("feed parse", "feed parse [--json] [--url FEED_URL] FILE|-\n\n"+
		"Lists a feed (RSS 0.9x/1.0/2.0, Atom 1.0, JSON Feed 1.x) as JSON lines: the feed, then\n"+
		"each entry in document order, then the declared next page, if any. FILE - reads standard\n"+
		"input. A document that is not a feed exits 3. At most BODY_MAX bytes are read, as the\n"+
		"crawler would.")
	jsonLinesAlready(fs)
	feedURL := fs.String("url", "", "the address the feed was fetched from: the base for relative links after xml:base")
	configPath := configFlag(fs)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageError("want one FILE, or - for standard input (see --help)")
	}
	if *feedURL != "" {
		if _, err := absoluteURL("--url", *feedURL); err != nil {
			return err
		}
	}
	s, err := loadSettings(env, *configPath, nil)
	if err != nil {
		return err
	}
	opts := feed.Options{MaxBytes: int(min(s.BodyMax, int64(^uint(0)>>1)))}
	body, err := readInput(env, positional[0], int64(opts.MaxBytes))
	if err != nil {
		return err
	}
	f, err := opts.Parse(body, *feedURL)
	if errors.Is(err, feed.ErrNotFeed) {
		return &exitError{code: exitNotThat, err: err}
	}
	if err != nil {
		return err
	}

	out := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(feedLine{Type: "feed", Title: f.Title, Link: f.Link, Format: f.Format}); err != nil {
		return err
	}
	for _, e := range f.Entries {
		line := itemLine{Type: "item", Link: e.Link, Title: e.Title,
			Published: rfc3339(e.Published), Updated: rfc3339(e.Updated), FullContent: e.FullContent}
		if err := enc.Encode(line); err != nil {
			return err
		}
	}
	if f.Next != "" {
		if err := enc.Encode(nextLine{Type: "next", Href: f.Next}); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if f.Truncated {
		// Not an error: the entries before the break are good, and the
		// crawler keeps them too. Said on stderr so stdout stays the contract's.
		fmt.Fprintln(env.stderr, "corpusbot feed parse: note: the document is truncated or over its limits; the entries read before the break are listed")
	}
	return nil
}

// The lines of `feed parse`; field order is the contract's.
type feedLine struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Link   string `json:"link"`
	Format string `json:"format"`
}

type itemLine struct {
	Type        string `json:"type"`
	Link        string `json:"link"`
	Title       string `json:"title"`
	Published   string `json:"published"`
	Updated     string `json:"updated"`
	FullContent bool   `json:"full_content"`
}

type nextLine struct {
	Type string `json:"type"`
	Href string `json:"href"`
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
