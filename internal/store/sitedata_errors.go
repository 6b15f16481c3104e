package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"corpus.blog/corpusbot/internal/model"
)

// knownReasons are the failure reasons the crawler stores that the public
// site may show: fetch.Result.Reason's fixed words (its "status N" is
// matched apart), the retry's "robots.txt unreachable", and the parsers'
// verdicts, whose detail (after the colon) is cut. TestPublicReasonKnowsFetch
// drives fetch.Result.Reason through every outcome and error kind, so
// that a reason added there and missing here fails.
var knownReasons = map[string]bool{
	"timeout": true, "connection reset": true, "connection refused": true, "connection closed": true,
	"DNS failure": true, "TLS failure": true, "no answer": true, "private address refused": true,
	"too many redirects": true, "redirect loop": true, "not an http(s) URL": true,
	"disallowed by robots.txt": true, "robots.txt unreachable": true, "on the 403 refusal list": true,
	"opted out": true, "body too large": true, "wrong content type": true,
	"not a feed": true, "not a sitemap": true, "a comment feed": true,
}

// PublicReason is the stored failure text as the public site may show
// it: a known reason as it is, "status N" for an HTTP status, the parsers'
// "not a feed: …" and "not a sitemap: …" without their detail, and
// model.ErrorReasonOther for anything else (an error text may carry a
// URL, an address or a library's message).
func PublicReason(stored string) string {
	if knownReasons[stored] {
		return stored
	}
	if n, ok := strings.CutPrefix(stored, "status "); ok && len(n) == 3 && strings.Trim(n, "0123456789") == "" {
		return stored
	}
	for _, p := range []string{"not a feed", "not a sitemap"} {
		if strings.HasPrefix(stored, p+": ") {
			return p
		}
	}
	return model.ErrorReasonOther
}

// sourceSteps are the steps of a source's discovery that the crawler
// names before a failure's reason ("homepage: timeout"), and the prefix of
// a robots.txt that could not be read ("robots.txt unreachable: DNS
// failure").
var sourceSteps = []string{"robots.txt unreachable", "robots.txt", "homepage", "well-known feed paths", "well-known sitemap paths"}

// PublicSourceError is a source's stored discovery failure as the public
// site may show it: the step it failed at as it is, the reason after it by
// PublicReason; "" when there is none.
func PublicSourceError(stored string) string {
	if stored == "" {
		return ""
	}
	if r := PublicReason(stored); r != model.ErrorReasonOther {
		return r
	}
	for _, step := range sourceSteps {
		if rest, ok := strings.CutPrefix(stored, step+": "); ok {
			return step + ": " + PublicSourceError(rest)
		}
	}
	return model.ErrorReasonOther
}

// errorReasons counts the stored last failures of the feeds, sitemaps and
// posts that failed (state error) or wait for a retry (attempts > 0), by
// public reason, the TopErrorReasons largest. SQL groups by the stored
// text (few distinct values: the crawler stores short reasons), Go maps
// each to its public reason. The posts are read through posts_failed, a
// partial index of the posts that carry an error at all.
func (s *SiteData) errorReasons(ctx context.Context) ([]model.ErrorReason, error) {
	failed := func(errorState string) string { return `error <> '' AND (state = ` + errorState + ` OR attempts > 0)` }
	byReason := map[string]*model.ErrorReason{}
	err := s.db.each(ctx, s.db.r, `SELECT 'feed', error, count(*) FROM feeds WHERE `+failed(sqlFeedError)+` GROUP BY error
		UNION ALL SELECT 'sitemap', error, count(*) FROM sitemaps WHERE `+failed(sqlSitemapError)+` GROUP BY error
		UNION ALL SELECT 'post', error, count(*) FROM posts WHERE `+failed(sqlPostError)+` GROUP BY error`, nil, func(rows *sql.Rows) error {
		var kind, stored string
		var n int
		if err := rows.Scan(&kind, &stored, &n); err != nil {
			return err
		}
		reason := PublicReason(stored)
		e := byReason[reason]
		if e == nil {
			e = &model.ErrorReason{Reason: reason}
			byReason[reason] = e
		}
		switch kind {
		case "feed":
			e.Feeds += n
		case "sitemap":
			e.Sitemaps += n
		default:
			e.Posts += n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("errors by reason: %w", err)
	}
	out := make([]model.ErrorReason, 0, len(byReason))
	for _, e := range byReason {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b model.ErrorReason) int {
		return cmp.Or(cmp.Compare(b.Total(), a.Total()), strings.Compare(a.Reason, b.Reason))
	})
	return out[:min(len(out), model.TopErrorReasons)], nil
}
