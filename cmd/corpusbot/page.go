package main

import (
	"encoding/json"
	"errors"

	"corpus.blog/corpusbot/internal/pageparse"
)

func pageParse(env environment, args []string) error {
	fs := newFlags("page parse", "page parse [--json] [--url PAGE_URL] [--content-type CT] FILE|-\n"+
		"page parse --batch < LINES\n\n"+
		"Runs one HTML page through exactly what the crawler does with a fetched page body and prints\n"+
		"one JSON line: title, text (one block a paragraph, blank line between), metadata, robots\n"+
		"directives, shell, citations. CT is the response's Content-Type (its charset counts).\n"+
		"FILE - reads standard input. A FILE that is not HTML exits 3. --batch reads JSON lines\n"+
		"{\"file\",\"url\",\"content_type\"} and writes one line per input, each with its \"file\"; a page\n"+
		"that cannot be read gives {\"file\",\"error\"}. At most BODY_MAX bytes of a page are read.")
	jsonLinesAlready(fs)
	pageURL := fs.String("url", "", "the address the page was fetched from: the base for its relative links")
	contentType := fs.String("content-type", "", "the response's Content-Type header")
	batch := fs.Bool("batch", false, "read {\"file\",\"url\",\"content_type\"} JSON lines on stdin, one output line each")
	configPath := configFlag(fs)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if *batch != (len(positional) == 0) || len(positional) > 1 {
		return usageError("want one FILE, or - for standard input, or --batch alone (see --help)")
	}
	if *pageURL != "" {
		if _, err := absoluteURL("--url", *pageURL); err != nil {
			return err
		}
	}
	s, err := loadSettings(env, *configPath, nil)
	if err != nil {
		return err
	}
	opts := pageparse.Options{Agent: s.ProductToken(), MaxBytes: s.BodyMax}
	if *batch {
		return opts.Batch(env.stdin, env.stdout)
	}
	body, err := readInput(env, positional[0], s.BodyMax)
	if err != nil {
		return err
	}
	line, err := opts.Parse(body, *pageURL, *contentType)
	if errors.Is(err, pageparse.ErrNotPage) {
		return &exitError{code: exitNotThat, err: err}
	}
	if err != nil {
		return err
	}
	enc := json.NewEncoder(env.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(line)
}
