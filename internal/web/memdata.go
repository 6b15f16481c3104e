package web

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// MemData is Data held in memory: the reference for what each method means
// (the SQL adapter must answer the same), the tests' fixture and the demo's
// store. It keeps post text, as the real store does, precisely so that tests
// can prove the site never serves it. Safe for concurrent use.
type MemData struct {
	mu       sync.Mutex
	nextID   int64
	sources  []*MemSource // in insertion order; IDs ascend
	posts    []MemPost
	requests []MemRequest
	origins  map[string]model.Origin // by origin
	refused  map[string]bool         // by site
	optedOut map[string]string       // site → by
	claims   map[string]model.Claim  // by ID
}

// MemSource is a source as MemData holds it.
type MemSource struct {
	ID         int64 // set by AddSource
	URL        string
	Title      string
	Added      time.Time
	Discovered time.Time // zero: not yet discovered
	Feeds      []model.Feed
	Sitemaps   []model.Sitemap
	Paused     bool
	PausedBy   string
	PausedAt   time.Time
}

// MemPost is a post as MemData holds it, text included.
type MemPost struct {
	URL       string
	SourceID  int64
	Title     string
	Published time.Time
	Lastmod   time.Time
	State     string
	Text      string // private: never served
	Citations []string
}

// MemRequest is one request-log record (fetch.Record's public part).
type MemRequest struct {
	Site        string
	URL         string
	Purpose     string // robots, feed, page, sitemap, catalogue
	Status      int
	Outcome     string // fetched, unchanged, disallowed, refused, too-large, wrong-type, status, error, redirect
	Conditional bool
	Bytes       int64
	Start       time.Time
}

// NewMemData returns an empty MemData.
func NewMemData() *MemData {
	return &MemData{
		origins:  map[string]model.Origin{},
		refused:  map[string]bool{},
		optedOut: map[string]string{},
		claims:   map[string]model.Claim{},
	}
}

// AddSource stores a source and returns its ID. A source of an opted-out
// site starts paused, as PauseSite promises.
func (m *MemData) AddSource(s MemSource) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID++
	s.ID = m.nextID
	if by, ok := m.optedOut[model.SiteOfURL(s.URL)]; ok && !s.Paused {
		s.Paused, s.PausedBy, s.PausedAt = true, by, s.Added
	}
	s.Feeds = slices.Clone(s.Feeds)
	s.Sitemaps = slices.Clone(s.Sitemaps)
	m.sources = append(m.sources, &s)
	return s.ID
}

// AddPost stores a post of a known source.
func (m *MemData) AddPost(p MemPost) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.source(p.SourceID) == nil {
		return fmt.Errorf("add post %s: source %d: %w", p.URL, p.SourceID, model.ErrNotFound)
	}
	p.Citations = slices.Clone(p.Citations)
	m.posts = append(m.posts, p)
	return nil
}

// LogRequest appends a request-log record.
func (m *MemData) LogRequest(r MemRequest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, r)
}

// SetOrigin records the robots.txt standing of an origin.
func (m *MemData) SetOrigin(o model.Origin) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.origins[o.Origin] = o
}

// SetRefused puts a site on the 403 refusal list or takes it off.
func (m *MemData) SetRefused(site string, refused bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if refused {
		m.refused[site] = true
	} else {
		delete(m.refused, site)
	}
}

// SiteOptedOut reports whether PauseSite was called for site and not undone.
func (m *MemData) SiteOptedOut(site string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.optedOut[site]
	return ok
}

// SourcePaused reports whether the source with that ID is paused.
func (m *MemData) SourcePaused(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.source(id)
	return s != nil && s.Paused
}

func (m *MemData) source(id int64) *MemSource {
	for _, s := range m.sources {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// sourceState applies the precedence documented at StatePaused.
func (m *MemData) sourceState(s *MemSource) string {
	site := model.SiteOfURL(s.URL)
	switch {
	case s.Paused:
		return model.StatePaused
	case m.refused[site]:
		return model.StateRefused
	}
	if o, ok := m.origins[originOf(s.URL)]; ok && (o.State == "unreachable" || o.State == "stale-copy") {
		return model.StateUnreachable
	}
	if len(s.Feeds) > 0 && len(s.Sitemaps) == 0 && all(s.Feeds, func(f model.Feed) bool { return f.State == "disallowed" }) {
		return model.StateDisallowed
	}
	if s.Discovered.IsZero() {
		return model.StatePending
	}
	if len(s.Feeds) == 0 && len(s.Sitemaps) == 0 {
		return model.StateNoFeed
	}
	if all(s.Feeds, func(f model.Feed) bool { return f.State == "error" }) && all(s.Sitemaps, func(x model.Sitemap) bool { return x.State == "error" }) {
		return model.StateError
	}
	return model.StateActive
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// Coverage implements Data.
func (m *MemData) Coverage(ctx context.Context) (model.Coverage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := map[string]int{}
	sites := map[string]bool{}
	for _, s := range m.sources {
		sites[model.SiteOfURL(s.URL)] = true
		if slices.ContainsFunc(s.Feeds, func(f model.Feed) bool { return f.State == "disallowed" }) {
			counts[model.GapDisallowed]++
		}
		if !s.Discovered.IsZero() && len(s.Feeds) == 0 && len(s.Sitemaps) == 0 {
			counts[model.GapNoFeedNoSitemap]++
		}
		if s.Paused {
			counts[model.GapPaused]++
		}
		for _, f := range s.Feeds {
			if f.State == "error" {
				counts[model.GapErrors]++
			}
		}
		for _, x := range s.Sitemaps {
			if x.State == "error" {
				counts[model.GapErrors]++
			}
		}
	}
	counts[model.GapRefused] = len(m.refused)
	for _, o := range m.origins {
		if o.State == "unreachable" || o.State == "stale-copy" {
			counts[model.GapRobotsUnreachable]++
		}
	}
	c := model.Coverage{Sites: len(sites), Sources: len(m.sources), Posts: len(m.posts)}
	for _, p := range m.posts {
		switch p.State {
		case "indexed":
			c.Indexed++
		case "disallowed":
			counts[model.GapDisallowedPosts]++
		case "shell":
			counts[model.GapShell]++
		case "noindex":
			counts[model.GapNoindex]++
		case "error":
			counts[model.GapErrors]++
		}
	}
	type cond struct{ conditional, notModified int }
	bySite := map[string]*cond{}
	for _, r := range m.requests {
		if !isRequest(r) || !r.Conditional {
			continue
		}
		x := bySite[r.Site]
		if x == nil {
			x = &cond{}
			bySite[r.Site] = x
		}
		x.conditional++
		if r.Status == 304 {
			x.notModified++
		}
	}
	for _, x := range bySite {
		if x.conditional >= model.Never304Minimum && x.notModified == 0 {
			counts[model.GapNever304]++
		}
	}
	for _, reason := range model.GapReasons {
		c.Gaps = append(c.Gaps, model.GapCount{Reason: reason, Count: counts[reason]})
	}
	return c, nil
}

// isRequest tells a record of a request sent from one withheld before any
// connection was made.
func isRequest(r MemRequest) bool {
	return r.Outcome != "disallowed" && r.Outcome != "refused" && r.Outcome != "opted-out"
}

// Sites implements Data.
func (m *MemData) Sites(ctx context.Context, q model.SitesQuery) (model.SitePage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	bySite := map[string]*model.SiteSummary{}
	states := map[string]map[string]bool{}
	for _, s := range m.sortedSources() {
		site := model.SiteOfURL(s.URL)
		sum := bySite[site]
		if sum == nil {
			sum = &model.SiteSummary{Site: site}
			bySite[site] = sum
			states[site] = map[string]bool{}
		}
		sum.Sources++
		if sum.Title == "" {
			sum.Title = s.Title
		}
		states[site][m.sourceState(s)] = true
		for _, f := range s.Feeds {
			sum.LastRead = later(sum.LastRead, f.LastRead)
		}
		for _, x := range s.Sitemaps {
			sum.LastRead = later(sum.LastRead, x.LastRead)
		}
	}
	for _, p := range m.posts {
		if s := m.source(p.SourceID); s != nil {
			sum := bySite[model.SiteOfURL(s.URL)]
			sum.Posts++
			if p.State == "indexed" {
				sum.Indexed++
			}
		}
	}
	var all []model.SiteSummary
	for site, sum := range bySite {
		for _, st := range model.SourceStates {
			if states[site][st] {
				sum.States = append(sum.States, st)
			}
		}
		if q.State == "" || states[site][q.State] {
			all = append(all, *sum)
		}
	}
	slices.SortFunc(all, func(a, b model.SiteSummary) int { return cmp.Compare(a.Site, b.Site) })
	page := model.SitePage{Total: len(all), Sites: []model.SiteSummary{}}
	start, _ := slices.BinarySearchFunc(all, q.After, func(s model.SiteSummary, key string) int {
		if s.Site <= key {
			return -1
		}
		return 1
	})
	if q.After == "" {
		start = 0
	}
	end := min(start+max(q.Limit, 1), len(all))
	page.Sites = append(page.Sites, all[start:end]...)
	if end < len(all) && end > start {
		page.Next = all[end-1].Site
	}
	return page, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sortedSources is the sources ascending by homepage URL.
func (m *MemData) sortedSources() []*MemSource {
	out := slices.Clone(m.sources)
	slices.SortFunc(out, func(a, b *MemSource) int { return cmp.Compare(a.URL, b.URL) })
	return out
}

// Site implements Data.
func (m *MemData) Site(ctx context.Context, site string, now time.Time) (model.SiteDetail, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, optedOut := m.optedOut[site]
	d := model.SiteDetail{Site: site, OptedOut: optedOut, Refused: m.refused[site],
		Sources: []model.SourceDetail{}, Posts: []model.StateCount{}, Recent: []model.PostMeta{}, Robots: []model.Origin{}}
	ids := map[int64]bool{}
	for _, s := range m.sortedSources() {
		if model.SiteOfURL(s.URL) != site {
			continue
		}
		ids[s.ID] = true
		sd := model.SourceDetail{ID: s.ID, URL: s.URL, Title: s.Title, Added: s.Added, State: m.sourceState(s),
			Paused: s.Paused, PausedBy: s.PausedBy, PausedAt: s.PausedAt,
			Feeds: slices.Clone(s.Feeds), Sitemaps: slices.Clone(s.Sitemaps)}
		slices.SortFunc(sd.Feeds, func(a, b model.Feed) int { return cmp.Compare(a.URL, b.URL) })
		slices.SortFunc(sd.Sitemaps, func(a, b model.Sitemap) int { return cmp.Compare(a.URL, b.URL) })
		if sd.Feeds == nil {
			sd.Feeds = []model.Feed{}
		}
		if sd.Sitemaps == nil {
			sd.Sitemaps = []model.Sitemap{}
		}
		d.Sources = append(d.Sources, sd)
	}
	postCounts := map[string]int{}
	out, in := map[string]int{}, map[string]int{}
	for _, p := range m.posts {
		own := ids[p.SourceID]
		from := ""
		if s := m.source(p.SourceID); s != nil {
			from = model.SiteOfURL(s.URL)
		}
		// A citation is a distinct link to another site (as the store
		// keeps them): own-site links, repeats and bad URLs are not.
		var cites []string
		for _, c := range p.Citations {
			if to := model.SiteOfURL(c); to != "" && to != from && !slices.Contains(cites, c) {
				cites = append(cites, c)
			}
		}
		if own {
			postCounts[p.State]++
			if p.State != "removed" {
				d.Recent = append(d.Recent, model.PostMeta{URL: p.URL, Title: p.Title, Published: p.Published,
					Lastmod: p.Lastmod, State: p.State, Citations: len(cites)})
			}
		}
		for _, c := range cites {
			to := model.SiteOfURL(c)
			if own {
				out[to]++
				d.Citations.Out++
			} else if to == site {
				in[from]++
				d.Citations.In++
			}
		}
	}
	for _, st := range model.PostStates {
		if n := postCounts[st]; n > 0 {
			d.Posts = append(d.Posts, model.StateCount{State: st, Count: n})
		}
	}
	slices.SortFunc(d.Recent, func(a, b model.PostMeta) int {
		switch {
		case a.Published.IsZero() != b.Published.IsZero():
			if a.Published.IsZero() {
				return 1
			}
			return -1
		case !a.Published.Equal(b.Published):
			return b.Published.Compare(a.Published)
		}
		return cmp.Compare(a.URL, b.URL)
	})
	d.Recent = d.Recent[:min(len(d.Recent), model.RecentPosts)]
	d.Citations.TopOut, d.Citations.TopIn = topSites(out), topSites(in)
	for _, o := range m.origins {
		if model.SiteOfURL(o.Origin) == site {
			d.Robots = append(d.Robots, o)
		}
	}
	slices.SortFunc(d.Robots, func(a, b model.Origin) int { return cmp.Compare(a.Origin, b.Origin) })
	d.Requests = m.requestSummary(site, now)
	if len(d.Sources) == 0 && d.Requests.Total == 0 && d.Requests.Withheld == 0 && !optedOut {
		return model.SiteDetail{}, fmt.Errorf("site %s: %w", site, model.ErrNotFound)
	}
	return d, nil
}

func topSites(counts map[string]int) []model.SiteCount {
	out := []model.SiteCount{}
	for s, n := range counts {
		out = append(out, model.SiteCount{Site: s, Count: n})
	}
	slices.SortFunc(out, func(a, b model.SiteCount) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return cmp.Compare(a.Site, b.Site)
	})
	return out[:min(len(out), model.TopCited)]
}

func (m *MemData) requestSummary(site string, now time.Time) model.Requests {
	var r model.Requests
	purposes := map[string]int{}
	for _, rec := range m.requests {
		if rec.Site != site {
			continue
		}
		if !isRequest(rec) {
			r.Withheld++
			continue
		}
		r.Total++
		purposes[rec.Purpose]++
		if rec.Conditional {
			r.Conditional++
		}
		if rec.Status == 304 {
			r.NotModified++
		}
		if r.First.IsZero() || rec.Start.Before(r.First) {
			r.First = rec.Start
		}
		r.Last = later(r.Last, rec.Start)
	}
	r.ByPurpose = []model.PurposeCount{}
	for _, p := range []string{"robots", "feed", "page", "sitemap", "catalogue"} {
		if n := purposes[p]; n > 0 {
			r.ByPurpose = append(r.ByPurpose, model.PurposeCount{Purpose: p, Count: n})
		}
	}
	to := day(now).AddDate(0, 0, 1)
	r.Days = m.requestDays(site, to.AddDate(0, 0, -model.RequestDays), to)
	return r
}

// requestDays buckets the log by UTC day, for one site or ("") all.
func (m *MemData) requestDays(site string, from, to time.Time) []model.RequestDay {
	from, to = day(from), day(to)
	byDay := map[time.Time]*model.RequestDay{}
	for _, rec := range m.requests {
		if (site != "" && rec.Site != site) || !isRequest(rec) {
			continue
		}
		d := day(rec.Start)
		if d.Before(from) || !d.Before(to) {
			continue
		}
		x := byDay[d]
		if x == nil {
			x = &model.RequestDay{Day: d}
			byDay[d] = x
		}
		x.Requests++
		x.Bytes += rec.Bytes
		if rec.Conditional {
			x.Conditional++
		}
		if rec.Status == 304 {
			x.NotModified++
		}
		if rec.Outcome == "error" || rec.Outcome == "status" {
			x.Errors++
		}
	}
	out := []model.RequestDay{}
	for _, x := range byDay {
		out = append(out, *x)
	}
	slices.SortFunc(out, func(a, b model.RequestDay) int { return a.Day.Compare(b.Day) })
	return out
}

func day(t time.Time) time.Time {
	y, mo, d := t.UTC().Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
}

func month(t time.Time) time.Time {
	y, mo, _ := t.UTC().Date()
	return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
}

// PostsPerMonth implements Data.
func (m *MemData) PostsPerMonth(ctx context.Context) ([]model.MonthCount, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := map[time.Time]int{}
	for _, p := range m.posts {
		if p.State == "indexed" && !p.Published.IsZero() {
			counts[month(p.Published)]++
		}
	}
	out := []model.MonthCount{}
	for mo, n := range counts {
		out = append(out, model.MonthCount{Month: mo, Count: n})
	}
	slices.SortFunc(out, func(a, b model.MonthCount) int { return a.Month.Compare(b.Month) })
	return out, nil
}

// SourcesByState implements Data.
func (m *MemData) SourcesByState(ctx context.Context) ([]model.StateCount, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := map[string]int{}
	for _, s := range m.sources {
		counts[m.sourceState(s)]++
	}
	out := make([]model.StateCount, 0, len(model.SourceStates))
	for _, st := range model.SourceStates {
		out = append(out, model.StateCount{State: st, Count: counts[st]})
	}
	return out, nil
}

// RequestsPerDay implements Data.
func (m *MemData) RequestsPerDay(ctx context.Context, from, to time.Time) ([]model.RequestDay, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requestDays("", from, to), nil
}

// PauseSite implements Data.
func (m *MemData) PauseSite(ctx context.Context, site, by string, now time.Time) (model.PauseResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	res := model.PauseResult{Site: site}
	if _, ok := m.optedOut[site]; !ok {
		m.optedOut[site] = by
	}
	for _, s := range m.sources {
		if model.SiteOfURL(s.URL) != site {
			continue
		}
		if s.Paused {
			res.AlreadyPaused++
			continue
		}
		s.Paused, s.PausedBy, s.PausedAt = true, by, now
		res.Paused++
	}
	return res, nil
}

// ResumeSite implements Data.
func (m *MemData) ResumeSite(ctx context.Context, site string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.optedOut, site)
	for _, s := range m.sources {
		if model.SiteOfURL(s.URL) == site {
			s.Paused, s.PausedBy, s.PausedAt = false, "", time.Time{}
		}
	}
	return nil
}

// PauseSource implements Data.
func (m *MemData) PauseSource(ctx context.Context, id int64, by string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.source(id)
	if s == nil {
		return fmt.Errorf("pause source %d: %w", id, model.ErrNotFound)
	}
	if !s.Paused {
		s.Paused, s.PausedBy, s.PausedAt = true, by, now
	}
	return nil
}

// ResumeSource implements Data.
func (m *MemData) ResumeSource(ctx context.Context, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.source(id)
	if s == nil {
		return fmt.Errorf("resume source %d: %w", id, model.ErrNotFound)
	}
	s.Paused, s.PausedBy, s.PausedAt = false, "", time.Time{}
	return nil
}

// CreateClaim implements Data.
func (m *MemData) CreateClaim(ctx context.Context, c model.Claim) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.claims[c.ID]; ok {
		return fmt.Errorf("create claim: id already exists")
	}
	m.claims[c.ID] = c
	return nil
}

// Claim implements Data.
func (m *MemData) Claim(ctx context.Context, id string) (model.Claim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.claims[id]
	if !ok {
		return model.Claim{}, fmt.Errorf("claim: %w", model.ErrNotFound)
	}
	return c, nil
}

// MarkClaimVerified implements Data.
func (m *MemData) MarkClaimVerified(ctx context.Context, id, method string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.claims[id]
	if !ok {
		return fmt.Errorf("verify claim: %w", model.ErrNotFound)
	}
	c.Verified, c.Method = now, method
	m.claims[id] = c
	return nil
}

var _ Data = (*MemData)(nil)
