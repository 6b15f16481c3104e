// Package pageparse is `corpusbot page parse`: one HTML page, or a batch of
// them, through exactly what the crawler does with a fetched page body
// (fetch.CheckPage, then crawl.DefaultExtractor), printed as the contract's
// JSON lines. It exists so that researchers and outside checks see what the
// crawler would keep of a page without crawling it.
package pageparse

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/extract"
	"corpus.blog/corpusbot/internal/fetch"
)

// ErrNotPage is fetch.ErrNotPage: the body is not one the crawler reads as
// a page (exit 3 for a single FILE).
var ErrNotPage = fetch.ErrNotPage

// Line is the contract's output for one page; field order is the
// contract's. Fields the page does not give are "", [] or false.
type Line struct {
	URL         string   `json:"url"`
	Title       string   `json:"title"`
	Text        string   `json:"text"`
	Author      string   `json:"author"`
	Published   string   `json:"published"`
	Modified    string   `json:"modified"`
	Language    string   `json:"language"`
	Description string   `json:"description"`
	SiteName    string   `json:"site_name"`
	Tags        []string `json:"tags"`
	License     string   `json:"license"`
	Image       string   `json:"image"`
	Canonical   string   `json:"canonical"`
	Noindex     bool     `json:"noindex"`
	Nofollow    bool     `json:"nofollow"`
	Shell       bool     `json:"shell"`
	Citations   []string `json:"citations"`
}

// Options are what the crawler's settings give the parse.
type Options struct {
	Agent    string // the product token meta tags are matched against
	MaxBytes int64  // BODY_MAX: how much of a file is read, as the fetcher would
}

// Parse runs one page body through the crawler's code. pageURL may be "":
// relative links then resolve to nothing, since nobody said where the page
// lives (no address is made up).
func (o Options) Parse(body []byte, pageURL, contentType string) (Line, error) {
	if err := fetch.CheckPage(contentType, body); err != nil {
		return Line{}, err
	}
	u := &url.URL{Scheme: "file", Path: "/"} // no http(s) base: relative links give no citation
	if pageURL != "" {
		var err error
		if u, err = url.Parse(pageURL); err != nil {
			return Line{}, fmt.Errorf("page URL: %w", err)
		}
	}
	if o.MaxBytes > 0 && int64(len(body)) > o.MaxBytes {
		body = body[:o.MaxBytes]
	}
	p, err := crawl.DefaultExtractor(body, u, contentType, o.Agent)
	if err != nil {
		return Line{}, err
	}
	return FromPage(pageURL, p), nil
}

// FromPage is p as the contract's line.
func FromPage(pageURL string, p extract.Page) Line {
	l := Line{
		URL: pageURL, Title: p.Title, Text: p.Text, Author: p.Author,
		Published: rfc3339(p.Published), Modified: rfc3339(p.Modified),
		Language: p.Language, Description: p.Description, SiteName: p.SiteName,
		Tags: p.Tags, License: p.License, Image: p.Image, Canonical: p.Canonical,
		Noindex: p.Noindex, Nofollow: p.Nofollow, Shell: p.Shell, Citations: p.Links,
	}
	if l.Tags == nil {
		l.Tags = []string{}
	}
	if l.Citations == nil {
		l.Citations = []string{}
	}
	return l
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// batchIn is one input line of --batch.
type batchIn struct {
	File        string `json:"file"`
	URL         string `json:"url"`
	ContentType string `json:"content_type"`
}

// batchOut is one output line of --batch: the file first, then either the
// page's line or the error.
type batchOut struct {
	File string `json:"file"`
	*Line
	Error string `json:"error,omitempty"`
}

// Batch reads JSON lines {"file","url","content_type"} from in and writes
// one line per input line to out, in order. A page that cannot be read (no
// such file, not HTML, a line that is not JSON) gives {"file","error"} and
// the batch goes on; only a failure to read in or write out stops it.
func (o Options) Batch(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	w := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var b batchIn
		res := batchOut{}
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			res.Error = fmt.Sprintf("input line: %v", err)
		} else {
			res.File = b.File
			l, err := o.parseFile(b)
			if err != nil {
				res.Error = err.Error()
			} else {
				res.Line = &l
			}
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read batch: %w", err)
	}
	return w.Flush()
}

func (o Options) parseFile(b batchIn) (Line, error) {
	if b.File == "" {
		return Line{}, errors.New("no file")
	}
	body, err := ReadFile(filepath.Clean(b.File), o.MaxBytes)
	if err != nil {
		return Line{}, err
	}
	return o.Parse(body, b.URL, b.ContentType)
}

// ReadFile reads at most limit bytes of the file (all of it when limit is 0).
func ReadFile(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}
