package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/robots"
	"corpus.blog/corpusbot/sitemap"
)

// TestPublicReasonKnowsFetch: every reason fetch.Result.Reason gives, for
// every outcome of a failure and every kind of error, is shown as it is,
// never as "other": a reason added to fetch and not to the store's list
// fails here.
func TestPublicReasonKnowsFetch(t *testing.T) {
	results := []fetch.Result{
		{Outcome: model.OutcomeStatus, Status: 503},
		{Outcome: model.OutcomeStatus, Status: 404},
		{Outcome: model.OutcomeDisallowed},
		{Outcome: model.OutcomeDisallowed, Robots: robots.StateUnreachable},
		{Outcome: model.OutcomeRefused},
		{Outcome: model.OutcomeOptedOut},
		{Outcome: model.OutcomeTooLarge},
		{Outcome: model.OutcomeWrongType},
	}
	for _, err := range []error{
		nil, fetch.ErrPrivateAddress, fetch.ErrTooManyRedirects, fetch.ErrRedirectLoop, fetch.ErrBadURL,
		&net.DNSError{Err: "no such host", Name: "x.example"}, syscall.ECONNREFUSED, syscall.ECONNRESET,
		context.DeadlineExceeded, io.ErrUnexpectedEOF, errors.New("tls: handshake failure"), errors.New("something else"),
	} {
		results = append(results, fetch.Result{Outcome: model.OutcomeError, Err: fmt.Errorf("get https://x.example/: %w", err)})
	}
	for _, r := range results {
		reason := r.Reason()
		if got := store.PublicReason(reason); got != reason {
			t.Errorf("%s %d %v: fetch says %q, the site would show %q", r.Outcome, r.Status, r.Err, reason, got)
		}
	}
	// The parsers' verdicts, without their detail.
	_, ferr := feed.Parse([]byte("<html><body>HOSTILE</body></html>"), "https://x.example/")
	var notSitemap error = &sitemap.NotSitemapError{Reason: "an HTML page HOSTILE"}
	for stored, want := range map[string]string{
		ferr.Error():                             "not a feed",
		notSitemap.Error():                       "not a sitemap",
		"a comment feed":                         "a comment feed",
		"HOSTILE-FEED-ERROR internal feed error": model.ErrorReasonOther,
		"dial tcp 10.0.0.1:443: i/o timeout":     model.ErrorReasonOther,
		"status 5030":                            model.ErrorReasonOther,
		"status abc":                             model.ErrorReasonOther,
		"timeout ":                               model.ErrorReasonOther,
		"fetched (status 200)":                   model.ErrorReasonOther,
		"":                                       model.ErrorReasonOther,
	} {
		if got := store.PublicReason(stored); got != want {
			t.Errorf("PublicReason(%q) = %q, want %q", stored, got, want)
		}
	}
}

// TestCoverageErrorsTop: past TopErrorReasons reasons, the largest are
// kept, by count descending then reason ascending; a feed that failed
// once and then read well carries no reason any more.
func TestCoverageErrorsTop(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t)
	src, _, err := db.AddSource(ctx, "https://a.example/", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	addFeed := func(state, reason string, attempts int) {
		n++
		f, err := db.AddFeed(ctx, store.Feed{SourceID: src.ID, URL: fmt.Sprintf("https://a.example/feed%d", n)})
		if err != nil {
			t.Fatal(err)
		}
		f.State, f.Error, f.Attempts = state, reason, attempts
		if err := db.UpdateFeed(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	// status 400 once, 401 twice … 424 25 times.
	for i := range model.TopErrorReasons + 5 {
		for range i + 1 {
			addFeed(model.FeedError, fmt.Sprintf("status %d", 400+i), 0)
		}
	}
	addFeed(model.FeedError, "status 424", 0)
	addFeed(model.FeedActive, "status 405", 0) // read well since: not counted
	c, err := db.SiteData().Coverage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Errors) != model.TopErrorReasons {
		t.Fatalf("%d reasons, want %d: %+v", len(c.Errors), model.TopErrorReasons, c.Errors)
	}
	if c.Errors[0] != (model.ErrorReason{Reason: "status 424", Feeds: 26}) || c.Errors[1].Reason != "status 423" {
		t.Errorf("first: %+v", c.Errors[:2])
	}
	if last := c.Errors[len(c.Errors)-1]; last != (model.ErrorReason{Reason: "status 405", Feeds: 6}) {
		t.Errorf("last: %+v", last)
	}
}
