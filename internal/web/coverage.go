package web

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// OverviewData is what the home page and /coverage (and /api/coverage)
// ask: the counts over the whole store. See Data for the terms.
type OverviewData interface {
	// Coverage counts every known gap. See the Gap* constants for exactly
	// what each reason counts; every reason in GapReasons is present in the
	// result, in that order, with Count 0 when nothing has that gap.
	Coverage(ctx context.Context) (model.Coverage, error)

	// PostsPerMonth counts posts held in state "indexed" by UTC month of
	// their published date or, for a post with none, of the date it was
	// first seen (counted in Undated too), ascending, months with no such
	// post omitted. A post with neither date (held before first-seen dates
	// were recorded, and never fetched) is in no month.
	PostsPerMonth(ctx context.Context) ([]model.MonthCount, error)

	// SourcesByState counts sources by their state, in the order of
	// model.SourceStates, every state present (Count 0 allowed).
	SourcesByState(ctx context.Context) ([]model.StateCount, error)

	// RequestsPerDay summarises the request log by UTC day for the days
	// in [from, to) (from and to are truncated to their UTC day), ascending,
	// days with no record omitted.
	RequestsPerDay(ctx context.Context, from, to time.Time) ([]model.RequestDay, error)

	// RequestSpan is the start of the request log's oldest and newest
	// records (as RequestsPerDay counts them), ok false when it has none:
	// the requests chart ends with the log's last day, not the clock's.
	RequestSpan(ctx context.Context) (from, to time.Time, ok bool, err error)
}

// gapInfo says, for people, what a gap reason counts and why it is a gap.
type gapInfo struct {
	Title   string
	Unit    string
	Why     string
	State   string // one of model.SourceStates to list the sources with, or ""
	Posts   bool
	Missing bool // a reason Data did not report (shown as unknown, never as zero)
}

var gapInfos = map[string]gapInfo{
	model.GapDisallowed:        {Title: "Disallowed by robots.txt", Unit: "sources", State: model.StateDisallowed, Why: "The site's robots.txt forbids us a feed. We keep the feed, read nothing from it, and check the rule again weekly."},
	model.GapDisallowedPosts:   {Title: "Posts disallowed by robots.txt", Unit: "posts", Posts: true, Why: "Posts a feed or sitemap named whose pages robots.txt forbids us. We hold their title and link only."},
	model.GapRefused:           {Title: "Refused (403)", Unit: "sites", State: model.StateRefused, Why: "The site answered 403 three times in a row and never served us a page. We ask again weekly."},
	model.GapRobotsUnreachable: {Title: "robots.txt unreachable", Unit: "origins", State: model.StateUnreachable, Why: "robots.txt answered 5xx or 429, or did not answer. Crawling there is paused until it does."},
	model.GapNoFeedNoSitemap:   {Title: "No feed and no sitemap", Unit: "sources", State: model.StateNoFeed, Why: "We found neither, so we fetch nothing: we do not crawl sites page by page."},
	model.GapShell:             {Title: "Client-rendered shells", Unit: "posts", Posts: true, Why: "Pages that render only in a browser (an empty app root and script bundles). We run no JavaScript, so the text is out of reach."},
	model.GapNoindex:           {Title: "noindex", Unit: "posts", Posts: true, Why: "Pages that asked not to be indexed (meta robots, meta corpusbot or X-Robots-Tag). No text is kept."},
	model.GapErrors:            {Title: "Errors", Unit: "posts, feeds and sitemaps", State: model.StateError, Why: "Fetches that failed: no answer, an error status, an unreadable body. Feeds and sitemaps are tried again on their schedule."},
	model.GapNever304:          {Title: "Validators never work", Unit: "sites", Why: fmt.Sprintf("Sites that had at least %d conditional requests from us and never answered 304: each unchanged re-read is downloaded in full.", model.Never304Minimum)},
	model.GapPaused:            {Title: "Paused", Unit: "sources", State: model.StatePaused, Why: "Opted out by the owner with the form on this site, paused from a claim page, or paused by the operator. Nothing is fetched from them."},
}

type gapRow struct {
	model.GapCount
	gapInfo
}

type coverageBody struct {
	Coverage  model.Coverage
	TopErrors int // model.TopErrorReasons, for the text of the errors table
	Gaps      []gapRow
	Charts    []chart
	Delivery  *deliveryView // nil: no DeliveryData (websub_delivery.go)
}

// coverageData is the whole of /coverage and /api/coverage.
type coverageData struct {
	Coverage       model.Coverage     `json:"coverage"`
	PostsPerMonth  []model.MonthCount `json:"posts_per_month"`
	SourcesByState []model.StateCount `json:"sources_by_state"`
	RequestsPerDay []model.RequestDay `json:"requests_per_day"`
	Window         coverageWindow     `json:"requests_window"`
}

type coverageWindow struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// chartDays and chartMonths are the charts' spans.
const (
	chartDays   = 30
	chartMonths = 24
)

func (s *Server) coverageData(ctx context.Context) (coverageData, error) {
	var d coverageData
	var err error
	if d.Coverage, err = s.opt.Data.Coverage(ctx); err != nil {
		return d, fmt.Errorf("coverage: %w", err)
	}
	if d.PostsPerMonth, err = s.opt.Data.PostsPerMonth(ctx); err != nil {
		return d, fmt.Errorf("posts per month: %w", err)
	}
	if d.SourcesByState, err = s.opt.Data.SourcesByState(ctx); err != nil {
		return d, fmt.Errorf("sources by state: %w", err)
	}
	d.Window, err = s.requestWindow(ctx)
	if err != nil {
		return d, err
	}
	if d.RequestsPerDay, err = s.opt.Data.RequestsPerDay(ctx, d.Window.From, d.Window.To); err != nil {
		return d, fmt.Errorf("requests per day: %w", err)
	}
	return d, nil
}

// requestWindow is the days the requests chart covers: those of the
// request log, at most chartDays ending with the day of its newest record.
// The log's own last day, not the clock's: a store whose crawl stopped
// (or ran on a simulated clock) still shows what it holds. An empty log
// takes the chartDays ending today.
func (s *Server) requestWindow(ctx context.Context) (coverageWindow, error) {
	first, last, ok, err := s.opt.Data.RequestSpan(ctx)
	if err != nil {
		return coverageWindow{}, fmt.Errorf("request span: %w", err)
	}
	if !ok {
		first, last = s.opt.Now(), s.opt.Now()
	}
	to := day(last).AddDate(0, 0, 1)
	from := to.AddDate(0, 0, -chartDays)
	if day(first).After(from) {
		from = day(first)
	}
	return coverageWindow{From: from, To: to}, nil
}

func (s *Server) coverage(w http.ResponseWriter, r *http.Request) {
	d, err := s.coverageData(r.Context())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	b := coverageBody{Coverage: d.Coverage, TopErrors: model.TopErrorReasons, Delivery: s.delivery(r.Context())}
	seen := map[string]bool{}
	for _, g := range d.Coverage.Gaps {
		seen[g.Reason] = true
		info, ok := gapInfos[g.Reason]
		if !ok {
			info = gapInfo{Title: g.Reason, Unit: "items"}
		}
		b.Gaps = append(b.Gaps, gapRow{GapCount: g, gapInfo: info})
	}
	for _, reason := range model.GapReasons {
		if !seen[reason] {
			info := gapInfos[reason]
			info.Missing = true
			b.Gaps = append(b.Gaps, gapRow{GapCount: model.GapCount{Reason: reason}, gapInfo: info})
		}
	}
	months, undated := monthSeries(d.PostsPerMonth, chartMonths)
	classes, names := []string{"c-posts"}, []string{"posts"}
	if undated {
		classes, names = []string{"c-posts", "c-undated"}, []string{"by date published", "by date first seen"}
	}
	perMonth := stacked("posts-month", "Posts indexed, by month published (or first seen)",
		fmt.Sprintf("Bar chart of indexed posts by month of publication (or, for a post with no date of its own, the month it was first seen) over the months of the data, at most %d.", chartMonths),
		months, classes, names)
	perMonth.Note = monthNote(d.Coverage.Indexed, d.PostsPerMonth, months)
	days := int(d.Window.To.Sub(d.Window.From).Hours()/24 + 0.5)
	b.Charts = []chart{
		perMonth,
		horizontal("sources-state", "Sources by state",
			"Bar chart of how many sources are in each state: paused, blocked, refused, unreachable, disallowed, no feed, pending, error, active.",
			d.SourcesByState, "sources"),
		stacked("requests-day", "Requests per day, and how many were answered 304",
			fmt.Sprintf("Stacked bar chart of requests sent per day over the last %d days of the request log; the lower part of each bar is requests answered 304 Not Modified.", days),
			daySeries(d.RequestsPerDay, d.Window.From, d.Window.To), []string{"c-304", "c-req"}, []string{"answered 304", "other requests"}),
	}
	s.render(w, r, http.StatusOK, "coverage.html", "Coverage", "coverage", b)
}
