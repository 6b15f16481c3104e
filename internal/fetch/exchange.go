package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// exchange is what became of one attempt: its HTTP request and the
// response, read or not, or the outcome of a request declined unsent.
type exchange struct {
	status      int
	header      http.Header
	contentType string
	body        []byte
	read        int64 // decoded body bytes read, kept in body or streamed
	outcome     model.Outcome
	location    *url.URL // a redirect's resolved target
	err         error
	// ours: err is ours, not the site's: the caller's context ended, the
	// private-address guard refused the target, or our own network reached
	// nothing (ours.go). It says nothing of the site and changes nothing of
	// its state.
	ours        bool
	conditional bool
	start, end  time.Time
	// bodyWait is how long the body waited for room in the fetcher's
	// body budget before it was read: the crawler's own wait, not the
	// site's slowness.
	bodyWait time.Duration
	// share is the body's part of the budget, for Result.Release.
	share    *bodyShare
	archived *ArchivedExchange // for Options.Archive; nil without one
	// unrecorded: nothing was decided of the attempt, so send makes no
	// Record of it: its robots.txt read gave no entry to obey (that read
	// has a record of its own), or the lease was not had (the caller's
	// context ended).
	unrecorded bool
}

// failed reports whether the exchange counts as trouble at the site for the
// back-off: no answer, a server error, or "too many requests".
func (ex *exchange) failed() bool {
	if ex.ours {
		return false
	}
	return ex.outcome == model.OutcomeError || ex.status >= 500 || ex.status == http.StatusTooManyRequests
}

// AcceptEncoding is the Accept-Encoding of every request: the encodings the
// fetcher decodes itself, within BODY_MAX (body.go).
const AcceptEncoding = "gzip, br"

var accept = map[model.Purpose]string{
	model.PurposeRobots:    "text/plain, */*;q=0.1",
	model.PurposePage:      "text/html, application/xhtml+xml;q=0.9, */*;q=0.1",
	model.PurposeFeed:      "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1",
	model.PurposeCatalogue: "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1",
	model.PurposeSitemap:   "application/xml, text/xml;q=0.9, text/plain;q=0.5, */*;q=0.1",
	model.PurposeClaim:     "text/plain, */*;q=0.1",
	model.PurposeWebSub:    "*/*",
	model.PurposeIndexNow:  "text/plain, */*;q=0.1",
}

// exchange sends a's request, a GET (a POST of a.form when it has one), and
// reads what the purpose allows of the answer, into ex.body or, when a has
// a stream, through it. It never follows a redirect.
func (f *Fetcher) exchange(ctx context.Context, a *attempt) (ex exchange) {
	ex.start = f.clock.Now()
	defer func() {
		ex.end = f.clock.Now()
		// No answer once the caller stopped is the stop's doing (the grace
		// ran out); an answer had meanwhile (a status, a body) is the site's.
		cutShort := ex.outcome == model.OutcomeError && ctx.Err() != nil
		if ex.err != nil && (cutShort || GuardRefused(ex.err) || OurNetworkFailed(ex.err)) {
			ex.ours = true
		}
	}()
	// Once sent, the request is read to its end even if the caller stops
	// meanwhile, for StopGrace at most (stop.go): an answer cut off is one
	// the site served for nothing, asked again without its validators.
	sctx, release := Outlive(ctx, StopGrace)
	defer release()
	cctx, cancel := context.WithTimeout(sctx, f.timeouts.Total)
	defer cancel()
	method, body := http.MethodGet, io.Reader(nil)
	if a.form != nil {
		method, body = http.MethodPost, strings.NewReader(a.form.Encode())
	}
	rctx := withConnCount(withProxyRoute(cctx), cancel)
	var remote *remoteAddr
	if f.archives(a) {
		remote = &remoteAddr{}
		rctx = remote.trace(rctx)
	}
	// a.url has no user information (attempt.at), so net/http has none to
	// send as Authorization.
	req, err := http.NewRequestWithContext(rctx, method, a.shown, body)
	if err != nil {
		ex.outcome, ex.err = model.OutcomeError, fmt.Errorf("fetch %s: %w", a.shown, err)
		return ex
	}
	if a.form != nil {
		req.Header["Content-Type"] = []string{"application/x-www-form-urlencoded"}
	}
	// Header values are set on the map directly: sent exactly as given.
	req.Header["User-Agent"] = []string{f.s.UserAgent}
	req.Header["Accept-Encoding"] = []string{AcceptEncoding}
	req.Header["Accept"] = []string{accept[a.purpose]}
	if a.etag != "" {
		req.Header["If-None-Match"] = []string{a.etag}
		ex.conditional = true
	}
	if a.lastModified != "" {
		req.Header["If-Modified-Since"] = []string{a.lastModified}
		ex.conditional = true
	}
	resp, err := f.client.Do(req)
	if err != nil {
		ex.outcome, ex.err = model.OutcomeError, fmt.Errorf("fetch %s: %w", a.shown, err)
		return ex
	}
	// Closing without draining drops the connection: what we do not read is
	// never downloaded (but for a small error body: discardSmallBody).
	defer resp.Body.Close()
	ex.status, ex.header, ex.contentType = resp.StatusCode, resp.Header, resp.Header.Get("Content-Type")
	switch s := resp.StatusCode; {
	case s == http.StatusNotModified:
		ex.outcome = model.OutcomeUnchanged
		return ex
	case s >= 300 && s < 400 && resp.Header.Get("Location") != "":
		discardSmallBody(resp)
		loc, err := a.url.Parse(resp.Header.Get("Location"))
		if err != nil {
			ex.outcome, ex.err = model.OutcomeError, fmt.Errorf("fetch %s: bad Location: %w", a.shown, err)
			return ex
		}
		loc.Fragment, loc.RawFragment = "", ""
		// A Location with user information is followed without it:
		// the credentials are the site's to ask for, not ours to send
		// (and a redirect must not make us send what we never would).
		loc.User = nil
		ex.location = loc
		return ex
	case s < 200 || s >= 300:
		discardSmallBody(resp)
		ex.outcome, ex.err = model.OutcomeStatus, fmt.Errorf("fetch %s: %w", a.shown, &StatusError{Code: s})
		return ex
	}
	var arrived time.Time
	if remote != nil {
		arrived = f.clock.Now()
	}
	share, err := f.bodyShare(cctx, resp, a)
	if err != nil {
		// Our own wait ran out, not the site: nothing learnt of it.
		ex.outcome, ex.err, ex.ours = model.OutcomeError, fmt.Errorf("fetch %s: waiting for room to read its body: %w", a.shown, err), true
		return ex
	}
	ex.bodyWait = share.wait()
	ex.outcome, ex.body, ex.read, ex.err = f.readBody(resp, a.purpose, a.shown, a.stream)
	if ex.body != nil {
		share.fit(ex.body)
		ex.share = share
	} else {
		share.release()
	}
	if ex.err != nil {
		ex.err = fmt.Errorf("fetch %s: %w", a.shown, ex.err)
	}
	if remote != nil && ex.outcome == model.OutcomeFetched && a.stream == nil {
		ex.archived = &ArchivedExchange{
			Purpose: a.purpose, URL: a.shown, Method: method, RequestHeader: req.Header,
			Status: resp.StatusCode, Proto: resp.Proto, ResponseHeader: resp.Header, Body: ex.body,
			Fetched: arrived, RemoteAddr: remote.server(rctx),
		}
	}
	return ex
}

// drainLimit is the largest body of an answer we do not read (an error
// page, a redirect's note) that is read anyway, and thrown away, so that
// its connection carries the site's next request instead of being closed
// unread. A site answers many such requests (a missing sitemap at each
// place one is looked for, a robots.txt it has not got): without this,
// each costs the site and us a new connection. Only a body that declares
// itself this small is read; any other is dropped unread, as before.
const drainLimit = 4 << 10

// discardSmallBody reads and discards a body of at most drainLimit
// declared bytes, so that closing it keeps the connection for reuse.
func discardSmallBody(resp *http.Response) {
	if resp.ContentLength >= 0 && resp.ContentLength <= drainLimit {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
	}
}

// sitemapMaxBytes is the sitemap protocol's limit on one file, uncompressed
// (https://www.sitemaps.org/protocol.html; sitemap.DefaultMaxBytes).
const sitemapMaxBytes = 50 << 20

// bodyLimit is how many decoded bytes of a body of purpose p are read.
// BODY_MAX is the limit of pages and feeds. A sitemap has the protocol's
// own, enforced by its parser (sitemap.Read, which stops at 50 MB and says
// the file was cut): the fetcher's cap only has to stay clear of it, by as
// much as a .gz file of 50 MB inflated may exceed 50 MB and the parser reads
// ahead.
func (f *Fetcher) bodyLimit(p model.Purpose) int64 {
	if p == model.PurposeSitemap {
		return rawLimit(sitemapMaxBytes)
	}
	return f.s.BodyMax
}

// readBody judges the type from the header, then reads and decodes at most
// bodyLimit bytes, sniffing the first ones when the type is ambiguous. With
// a stream, the decoded body is given to it instead of returned; read is
// the decoded bytes taken either way.
func (f *Fetcher) readBody(resp *http.Response, p model.Purpose, finalURL string, stream func(string, io.Reader)) (model.Outcome, []byte, int64, error) {
	limit := f.bodyLimit(p)
	verdict := judgeType(p, MediaType(resp.Header.Get("Content-Type")))
	if verdict == typeWrong {
		return model.OutcomeWrongType, nil, 0, fmt.Errorf("%w: %q for %s", ErrWrongType, resp.Header.Get("Content-Type"), p)
	}
	declared := limit // what an unencoded body may declare; an encoded one may be a little longer
	if enc := resp.Header.Get("Content-Encoding"); enc != "" && !strings.EqualFold(enc, "identity") {
		declared = rawLimit(limit)
	}
	// robots.txt and a sitemap are read as far as their limit, not refused
	// for the rest: a sitemap's parser keeps the entries before its cut.
	if p != model.PurposeRobots && p != model.PurposeSitemap && resp.ContentLength > declared {
		return model.OutcomeTooLarge, nil, 0, fmt.Errorf("%w: Content-Length %d", ErrTooLarge, resp.ContentLength)
	}
	r, err := decoder(resp.Body, resp.Header.Get("Content-Encoding"), limit)
	if err != nil {
		return readError(err)
	}
	if p == model.PurposeRobots {
		// An over-long robots.txt is parsed as far as BODY_MAX (RFC 9309
		// asks for at least 500 KiB) rather than thrown away.
		b, err := io.ReadAll(io.LimitReader(r, limit))
		if err != nil && !errors.Is(err, ErrTooLarge) {
			return readError(err)
		}
		return model.OutcomeFetched, b, int64(len(b)), nil
	}
	var prefix []byte
	if verdict == typeSniff {
		buf := make([]byte, sniffLen)
		n, err := io.ReadFull(r, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return readError(err)
		}
		prefix = buf[:n]
		if !sniffAccepts(p, sniff(prefix)) {
			return model.OutcomeWrongType, nil, 0, fmt.Errorf("%w: %q does not look like a %s", ErrWrongType, resp.Header.Get("Content-Type"), p)
		}
	}
	if stream != nil {
		w := &watchedBody{r: io.MultiReader(bytes.NewReader(prefix), &capReader{r: r, n: limit - int64(len(prefix))})}
		stream(finalURL, w)
		if w.err != nil {
			failed, _, _, why := readError(w.err)
			return failed, nil, w.n, why
		}
		return model.OutcomeFetched, nil, w.n, nil
	}
	size := int64(-1)
	if enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc == "" || enc == "identity" {
		size = resp.ContentLength
	}
	b, err := readCapped(r, prefix, limit, size)
	if err != nil {
		return readError(err)
	}
	return model.OutcomeFetched, b, int64(len(b)), nil
}

func readError(err error) (model.Outcome, []byte, int64, error) {
	if errors.Is(err, ErrTooLarge) {
		return model.OutcomeTooLarge, nil, 0, err
	}
	return model.OutcomeError, nil, 0, fmt.Errorf("read body: %w", err)
}

// watchedBody is the body a stream reads: it counts what was read and keeps
// the body's first failure, which is the site's (or the cap's) and decides
// the outcome, whatever the stream made of it.
type watchedBody struct {
	r   io.Reader
	n   int64
	err error
}

func (w *watchedBody) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.n += int64(n)
	if err != nil && err != io.EOF && w.err == nil {
		w.err = err
	}
	return n, err
}
