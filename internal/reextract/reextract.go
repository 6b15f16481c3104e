// Package reextract rebuilds post records from the page bodies kept as
// WARC files, without a request: the crawler's own archive (WARC_DIR) or
// other crawlers' files. Nothing in it can send one: it is given the store
// and a page function (crawl.Crawler's ReextractPage, whose Crawler has no
// Fetcher), and reads files.
//
// It reads in two passes. The first reads every record's header and, for a
// response, its HTTP status and Location, to learn which record of each URL
// is the newest (by WARC-Date, then by the order read: a later file, a
// later record); nothing is kept of the bodies. A file that is not WARC
// fails the run here, before anything is changed. The second pass reads
// the chosen records again, file by file, and re-extracts each post from
// the body its URL led to (redirects followed within the archive). A post
// is only rebuilt from a page that the crawl would have stored a record
// from: a 200 response of an HTML page, not truncated.
package reextract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/warc"
)

// Pages is what re-extraction needs of the crawler: crawl.Crawler.
type Pages interface {
	ReextractPage(ctx context.Context, p store.Post, res fetch.Result) (changed bool, err error)
}

// Options configure a Run.
type Options struct {
	Store *store.DB
	Pages Pages
	// Paths are WARC files and directories (read for *.warc, *.warc.gz
	// and *.arc-less names, recursively; ".open" files, still being
	// written, are left out).
	Paths []string
	// Sources, when not nil, are the only sources whose posts are
	// rebuilt (--site); others are skipped.
	Sources map[int64]bool
	// BodyMax is the largest body taken (BODY_MAX): a larger one the
	// crawl would not have read.
	BodyMax int64
	// Warn is told one line for each file that ends torn (its records
	// before the tear are used).
	Warn func(line string)
}

// Summary is what a Run did.
type Summary struct {
	Files     int // WARC files read
	Pages     int // response records read
	URLs      int // distinct URLs among them
	Updated   int // posts whose record changed
	Unchanged int // posts re-extracted to the same record
	// Skipped counts the URLs not rebuilt: not a post of a known source
	// (Unknown, counted in Skipped too), another --site, a post in a state
	// a page does not decide (removed, pending...) or with a feed's text,
	// or a page that is not a 200 HTML response.
	Skipped int
	Unknown int
	Errors  int      // pages that could not be parsed or stored
	Torn    []string // files that ended torn
}

// ErrNoFiles says the paths hold no WARC file.
var ErrNoFiles = errors.New("no WARC files")

// Run rebuilds the records of the posts whose pages the files hold.
func Run(ctx context.Context, o Options) (Summary, error) {
	var sum Summary
	files, err := listFiles(o.Paths)
	if err != nil {
		return sum, err
	}
	if len(files) == 0 {
		return sum, fmt.Errorf("%w in %s", ErrNoFiles, strings.Join(o.Paths, ", "))
	}
	idx := index{byURL: map[string]entry{}}
	for i, f := range files {
		if err := idx.scan(i, f, &sum, o.Warn); err != nil {
			return sum, err
		}
	}
	sum.Files, sum.URLs = len(files), len(idx.byURL)
	if err := ctx.Err(); err != nil {
		return sum, err
	}

	// Each post once, from the newest page that any URL naming it leads to.
	type job struct {
		post  store.Post
		final entry // the 200 response
	}
	jobs := map[int64]job{}
	urls := make([]string, 0, len(idx.byURL))
	for u := range idx.byURL {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	for _, u := range urls {
		e := idx.byURL[u]
		if e.status == http.StatusNotModified {
			continue // says only that an earlier body stands
		}
		p, err := o.Store.Post(ctx, u)
		if errors.Is(err, model.ErrNotFound) {
			// A redirect's target is looked up through its source.
			if e.status >= 300 && e.status < 400 {
				continue
			}
			sum.Skipped++
			sum.Unknown++
			continue
		}
		if err != nil {
			return sum, err
		}
		final, ok := idx.follow(e)
		if !ok || !rebuildable(p, o.Sources) {
			sum.Skipped++
			continue
		}
		if j, had := jobs[p.ID]; had && !final.newer(j.final) {
			continue
		}
		jobs[p.ID] = job{post: p, final: final}
	}

	// Second pass: the chosen records, file by file, in order.
	byFile := map[int][]job{}
	for _, j := range jobs {
		byFile[j.final.file] = append(byFile[j.final.file], j)
	}
	for fi, js := range byFile {
		want := map[int][]store.Post{}
		for _, j := range js {
			want[j.final.ordinal] = append(want[j.final.ordinal], j.post)
		}
		err := eachRecord(files[fi], func(ordinal int, rec *warc.Record) error {
			posts, ok := want[ordinal]
			if !ok {
				return nil
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			res, err := result(rec, o.BodyMax)
			if err != nil {
				sum.Errors += len(posts)
				if o.Warn != nil {
					o.Warn(fmt.Sprintf("%s: %s: %v", files[fi], rec.TargetURI(), err))
				}
				return nil
			}
			for _, p := range posts {
				if fetch.CheckPage(res.ContentType, res.Body) != nil {
					sum.Skipped++
					continue
				}
				changed, err := o.Pages.ReextractPage(ctx, p, res)
				switch {
				case err != nil && ctx.Err() != nil:
					return ctx.Err()
				case err != nil:
					sum.Errors++
					if o.Warn != nil {
						o.Warn(err.Error())
					}
				case changed:
					sum.Updated++
				default:
					sum.Unchanged++
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, warc.ErrTorn) {
			return sum, err
		}
	}
	return sum, nil
}

// rebuildable reports whether p is a post whose record a page decides, of
// a source asked for.
func rebuildable(p store.Post, sources map[int64]bool) bool {
	if sources != nil && !sources[p.SourceID] {
		return false
	}
	switch p.State {
	case model.PostIndexed, model.PostNoindex, model.PostShell:
		return p.TextFrom != model.TextFromFeed
	}
	return false
}

// entry is the newest response record of one URL.
type entry struct {
	file, ordinal int // which file (in the order read) and which record in it
	date          time.Time
	url           string
	status        int
	location      string // a redirect's target, absolute
}

// newer reports whether e is to be preferred to o: a later WARC-Date, or
// the same date read later.
func (e entry) newer(o entry) bool {
	if !e.date.Equal(o.date) {
		return e.date.After(o.date)
	}
	return e.file > o.file || (e.file == o.file && e.ordinal > o.ordinal)
}

type index struct {
	byURL map[string]entry
}

// scan reads one file's records into the index. A torn file's records
// before the tear are kept and the tear told to warn; a file that is not
// WARC is an error.
func (x *index) scan(fileNo int, path string, sum *Summary, warn func(string)) error {
	err := eachRecord(path, func(ordinal int, rec *warc.Record) error {
		if rec.Type() != "response" {
			return nil
		}
		u := rec.TargetURI()
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil
		}
		sum.Pages++
		e := entry{file: fileNo, ordinal: ordinal, date: rec.Date(), url: u}
		e.status, e.location = statusOf(rec, u)
		// Only a whole record counts: one cut by a tear is not chosen.
		if _, err := io.Copy(io.Discard, rec.Block); err != nil {
			return nil // Next reports the tear
		}
		if old, ok := x.byURL[u]; ok && !e.newer(old) {
			return nil
		}
		// A 304 never hides the body it confirmed.
		if old, ok := x.byURL[u]; ok && e.status == http.StatusNotModified && old.status != http.StatusNotModified {
			return nil
		}
		x.byURL[u] = e
		return nil
	})
	switch {
	case errors.Is(err, warc.ErrNotWARC):
		return fmt.Errorf("%s: %w", path, err)
	case errors.Is(err, warc.ErrTorn):
		sum.Torn = append(sum.Torn, path)
		if warn != nil {
			warn(fmt.Sprintf("%s: %v (the records before it were used)", path, err))
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// follow is where e leads: itself when it is a 200, its redirect's target
// in the archive (up to 10 hops) otherwise; false when that is not a 200.
func (x *index) follow(e entry) (entry, bool) {
	for range 10 {
		switch {
		case e.status == http.StatusOK:
			return e, true
		case e.status >= 300 && e.status < 400 && e.location != "":
			next, ok := x.byURL[e.location]
			if !ok {
				return e, false
			}
			e = next
		default:
			return e, false
		}
	}
	return e, false
}

// statusOf reads the status line and Location of a response record's
// block, no further than its header.
func statusOf(rec *warc.Record, target string) (int, string) {
	head := make([]byte, 0, 4096)
	buf := make([]byte, 4096)
	for len(head) < 64<<10 {
		n, err := rec.Block.Read(buf)
		head = append(head, buf[:n]...)
		if bytes.Contains(head, []byte("\r\n\r\n")) || bytes.Contains(head, []byte("\n\n")) || err != nil {
			break
		}
	}
	status, header, err := warc.ParseHead(head)
	if err != nil {
		return 0, ""
	}
	loc := header.Get("Location")
	if loc != "" {
		base, err1 := url.Parse(target)
		ref, err2 := url.Parse(loc)
		if err1 != nil || err2 != nil {
			loc = ""
		} else {
			loc = base.ResolveReference(ref).String()
		}
	}
	return status, loc
}

// result is the fetch.Result a fetch of the record's page gave.
func result(rec *warc.Record, bodyMax int64) (fetch.Result, error) {
	if rec.Get("WARC-Truncated") != "" {
		return fetch.Result{}, errors.New("the body was truncated when recorded")
	}
	block, err := io.ReadAll(io.LimitReader(rec.Block, bodyMax+256<<10))
	if err != nil {
		return fetch.Result{}, err
	}
	resp, err := warc.ParseResponse(block, bodyMax)
	if err != nil {
		return fetch.Result{}, err
	}
	return fetch.Result{
		Outcome: model.OutcomeFetched, Status: resp.Status, FinalURL: rec.TargetURI(), Body: resp.Body,
		ContentType: resp.ContentType, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		Header: resp.Header,
	}, nil
}

// eachRecord calls fn with each record of the file at path and its
// ordinal; the error that ended the reading (nil at the end, wrapping
// warc.ErrTorn or warc.ErrNotWARC) is returned.
func eachRecord(path string, fn func(int, *warc.Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := warc.NewReader(f)
	if err != nil {
		return err
	}
	for i := 0; ; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(i, rec); err != nil {
			return err
		}
	}
}

// listFiles is the WARC files the paths name: a file as given, a
// directory's *.warc and *.warc.gz files, recursively, in name order.
func listFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.Type().IsRegular() && (strings.HasSuffix(name, ".warc") || strings.HasSuffix(name, ".warc.gz")) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}
