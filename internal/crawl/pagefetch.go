package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"corpus.blog/corpusbot/internal/extract"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
)

// FetchPage fetches one post's page (conditionally when it was fetched
// before) and stores the outcome in one write that also clears the debt, so
// the page is not fetched again. noindex (meta or X-Robots-Tag, generic or
// addressed to us) keeps no text; nofollow records no citations; a page that
// only renders in a browser is a shell; a non-HTML page is skipped unread;
// 404 or 410 on a re-fetch marks the post removed.
func (c *Crawler) FetchPage(ctx context.Context, p store.Post) error {
	res := c.fetch(ctx, fetch.Request{URL: p.URL, Purpose: model.PurposePage, ETag: p.ETag, LastModified: p.LastModified})
	// Whatever the path, the body's room in the fetcher's budget comes back
	// (a closure: a deferred res.Release() would copy res, and hold its
	// body, until the return).
	defer func() { res.Release() }()
	if cutOff(ctx, res) {
		return ctx.Err() // still due: fetched again by the next run
	}
	// An answer had is stored, stop or not (cutoff.go).
	sctx, done := saving(ctx)
	defer done()
	r := store.PageResult{PostID: p.ID, Fetched: c.Clock.Now()}
	retry, ok := c.retryOf(ctx, res.Site, res, p.Attempts)
	if ok {
		// Still owed, in the state it was: tried again later.
		r.Retry = retry
		c.Meter.RetryScheduled(retryPage)
		c.Log.Info("page to be retried", "url", p.URL, "at", retry.At, "tries", retry.Attempts, "err", retry.Error)
		if err := c.Store.SavePage(sctx, r); err != nil {
			return fmt.Errorf("page %s: %w", p.URL, err)
		}
		return nil
	}
	refetch := !p.Fetched.IsZero()
	var h home
	switch res.Outcome {
	case model.OutcomeUnchanged:
		r.Keep = true
	case model.OutcomeFetched:
		h = c.pageResult(&r, res, p.URL)
		// Parsed: the body (and the parse tree, gone with pageResult) is
		// let go, and its room in the fetcher's body budget given back for
		// the next page, before the store's write is waited for.
		res.Release()
		res.Body = nil
	case model.OutcomeWrongType:
		r.State = model.PostSkipped
	case model.OutcomeDisallowed:
		r.State = model.PostDisallowed
		if res.Robots == robots.StateUnreachable {
			// Redirected into a site whose robots.txt never answered, and
			// out of tries (retryOf): a failure, not a rule.
			r.State = model.PostError
		}
	case model.OutcomeRefused:
		r.State = model.PostRefused
	case model.OutcomeStatus:
		var se *fetch.StatusError
		gone := res.Status == 404 || res.Status == 410 || (errors.As(res.Err, &se) && (se.Code == 404 || se.Code == 410))
		switch {
		case gone && refetch:
			r.State = model.PostRemoved
		case refetch && p.State == model.PostIndexed:
			r.Keep = true // a passing failure does not undo what we hold
		default:
			r.State = model.PostError
		}
	default:
		if refetch && p.State == model.PostIndexed {
			r.Keep = true
		} else {
			r.State = model.PostError
		}
	}
	if r.State == model.PostError || (r.Keep && res.Outcome != model.OutcomeUnchanged) {
		r.Error = errText(res)
		if retry.Error != "" {
			r.Error = retry.Error // it names what failed more closely
		}
		if res.Transient() {
			c.Log.Warn("page failed after every retry", "url", p.URL, "tries", p.Attempts+1, "err", r.Error)
		}
	}
	if r.State == model.PostRemoved {
		// The record, its text and its citations stay; it is only hidden.
		r.Text, r.TextFrom, r.Citations, r.ETag, r.LastModified = p.Text, p.TextFrom, p.Citations, p.ETag, p.LastModified
	}
	if err := c.Store.SavePage(sctx, r); err != nil {
		return fmt.Errorf("page %s: %w", p.URL, err)
	}
	if r.State == model.PostRemoved {
		c.progress.Load().posts(0, 0, 1) // once stored: a page not saved is an error, not a change
	}
	switch {
	case h.canonical != "":
		c.learnSpelling(sctx, p.URL, h.canonical, h.fromLink)
	case h.self:
		c.learnSpelling(sctx, p.URL, p.URL, true)
	}
	return nil
}

// pageResult fills r from a fetched page of the post at postURL and says
// where the page says the post lives.
func (c *Crawler) pageResult(r *store.PageResult, res fetch.Result, postURL string) (h home) {
	u, err := url.Parse(res.FinalURL)
	if err != nil {
		r.State = model.PostError
		return
	}
	page, err := c.extract(res.Body, u, res.ContentType)
	if err != nil {
		r.State = model.PostError
		return
	}
	x := fetch.XRobotsTag(res.Header, c.agent())
	r.ETag, r.LastModified, r.Title, r.Published = res.ETag, res.LastModified, page.Title, page.Published
	h = pageHome(postURL, res, page)
	r.Canonical, r.Elsewhere = h.canonical, h.elsewhere
	switch {
	case page.Noindex || x.NoIndex:
		r.State, r.Title = model.PostNoindex, ""
		return
	case page.Shell:
		r.State = model.PostShell
		return
	}
	r.State, r.Text, r.Markdown, r.TextFrom = model.PostIndexed, page.Text, page.Markdown, model.TextFromPage
	r.Modified = page.Modified
	r.Meta = store.Meta{Author: page.Author, Language: page.Language, Description: page.Description, SiteName: page.SiteName,
		Tags: page.Tags, License: page.License, Image: page.Image}
	if !page.Nofollow && !x.NoFollow {
		r.Citations = page.Links
	}
	return h
}

// extract runs c.Extract on a page once a processor is free for it. A
// page's parse tree is ten to twenty times its body, and extraction is
// the crawler's largest use of CPU: a crawler of a thousand sites at once,
// short of CPU, otherwise holds hundreds of half-built trees, each waiting
// for a processor, and its memory follows their number. Bodies waiting
// for a slot are bounded already, by the fetcher's body budget.
func (c *Crawler) extract(body []byte, pageURL *url.URL, contentType string) (extract.Page, error) {
	if c.extracting != nil {
		c.extracting <- struct{}{}
		defer func() { <-c.extracting }()
	}
	return c.Extract(body, pageURL, contentType, c.agent())
}

// Extractor turns a page body into an extract.Page; contentType is the response's
// Content-Type header (its charset decides the decoding); agent is the
// product token that meta tags addressed to us by name are matched against.
// It is a field of Crawler so that tests can substitute one; the default is
// extract.ParseResponse.
type Extractor func(body []byte, pageURL *url.URL, contentType, agent string) (extract.Page, error)

// DefaultExtractor is extract.ParseResponse: what the crawler does with a
// fetched page body, and what `corpusbot page parse` runs.
func DefaultExtractor(body []byte, pageURL *url.URL, contentType, agent string) (extract.Page, error) {
	return extract.ParseResponse(body, pageURL, contentType, agent)
}
