package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sourcelist"
	"corpus.blog/corpusbot/internal/store"
)

// siteStore is a store and the public site's view of it that the suite
// asks.
type siteStore struct {
	*store.DB
	data *store.SiteData
}

// RunSiteDataSuite holds a backend's answers to the public site's
// questions (web's page interfaces, asked of the concrete *store.SiteData
// that implements them) to golden files (golden.go): a world is built in the store
// through its public API, as the crawler would, and every answer must be
// the recorded one, on every backend. newStore returns an empty store,
// closed by the test's cleanup.
func RunSiteDataSuite(t *testing.T, newStore func(t *testing.T) *store.DB) {
	RunSiteDataSuiteOn(t, newStore, (*store.DB).SiteData)
}

// RunSiteDataSuiteOn is RunSiteDataSuite asking the public site's
// questions of the view siteData takes of each store (a variant of the
// adapter).
func RunSiteDataSuiteOn(t *testing.T, newStore func(t *testing.T) *store.DB, siteData func(*store.DB) *store.SiteData) {
	tests := []struct {
		name string
		fn   func(*testing.T, siteStore)
	}{
		{"Empty", testSiteDataEmpty},
		{"Conformance", testSiteDataConformance},
		{"OptOut", testSiteDataOptOut},
		{"NotFound", testSiteDataNotFound},
		{"Claims", testSiteDataClaims},
		{"NeverServesText", testSiteDataNoText},
		{"OptedOutIsWithheld", testSiteDataOptedOutWithheld},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := newStore(t)
			tc.fn(t, siteStore{DB: db, data: siteData(db)})
		})
	}
}

// Secrets are stored texts and internal error messages: finding one in
// any answer of web.Data means it leaked.
var siteSecrets = []string{
	"ZEBRA-QUARTZ feed body of a post",
	"MARMALADE-OSCILLOSCOPE page body of a post",
	"PERIWINKLE-TURBINE body of a removed post",
	"HOSTILE-FEED-ERROR internal feed error",
	"OBSIDIAN-REQUEST-ERROR dial tcp 10.0.0.1",
	"CINNABAR-SITEMAP-ERROR internal sitemap error",
}

// Worlds are declared, then built in the store through its public API.

type srcSpec struct {
	URL        string
	Added      time.Time
	Discovered time.Time // zero: never discovered
	Feeds      []feedSpec
	Sitemaps   []smSpec
	Posts      []postSpec
}

type feedSpec struct {
	model.FeedDetail        // as it is to be shown
	Error            string // stored; shown only as its public reason
	Attempts         int    // failed tries so far (a feed waiting for a retry)
}

type smSpec struct {
	model.SitemapDetail            // URL, State, LastRead; Via "index" for a child; URLs is computed
	Parent              string     // a child's index
	Reads               [][]string // the URLs of each read, in order
	Partial             bool       // the last read was partial (the earlier ones whole)
	Error               string     // stored; shown only as its public reason
}

type postSpec struct {
	URL       string
	Title     string
	Published time.Time
	Lastmod   time.Time
	Seen      time.Time // when the crawl met it; zero: when its source was added
	State     string    // the final state; "indexed" with FeedText comes from the feed
	FeedText  string
	PageText  string
	Citations []string // as the page gave them (self-links, duplicates and junk included)
	Error     string   // the failure stored with a post in state error
	Retry     store.Retry
}

// reqSpec is one request-log record.
type reqSpec struct {
	Site, URL, Purpose, Outcome string
	Status                      int
	Conditional                 bool
	Bytes                       int64
	Start                       time.Time
	Err                         string
}

// siteWorld is the store and the reference side by side.
type siteWorld struct {
	t   *testing.T
	st  siteStore
	sql *store.SiteData
	// compared counts the calls compared, for the log.
	compared int
	golden   golden
}

func newSiteWorld(t *testing.T, st siteStore) *siteWorld {
	w := &siteWorld{t: t, st: st, sql: st.data}
	t.Cleanup(func() { w.golden.check(t) })
	return w
}

func day(n int) time.Time { return T0.AddDate(0, 0, -n) }

// addSource builds one source in both and returns its ID (the same in
// both: IDs ascend from 1 in both, sources being added in the same order).
func (w *siteWorld) addSource(s srcSpec) int64 {
	t := w.t
	t.Helper()
	src, isNew, err := w.st.AddSource(bg, s.URL, s.Added)
	must(t, err)
	if !isNew {
		t.Fatalf("source %s added twice", s.URL)
	}
	if !s.Discovered.IsZero() {
		must(t, w.st.MarkDiscovered(bg, src.ID, s.Discovered))
	}
	for i, f := range s.Feeds {
		stored, err := w.st.AddFeed(bg, store.Feed{SourceID: src.ID, URL: f.URL, State: f.State})
		must(t, err)
		full := store.Feed{ID: stored.ID, SourceID: src.ID, URL: f.URL, State: f.State, Catalogue: f.Catalogue, Pages: f.Pages,
			LastRead: f.LastRead, Checked: f.Checked, Title: f.Title, Error: f.Error, Attempts: f.Attempts}
		var fromFeed []store.NewPost
		for _, p := range s.Posts {
			if p.FeedText != "" {
				fromFeed = append(fromFeed, store.NewPost{URL: p.URL, SourceID: src.ID, Title: p.Title, Published: p.Published, Lastmod: p.Lastmod, Text: p.FeedText, Seen: seen(s, p)})
			}
		}
		if i == 0 && len(fromFeed) > 0 {
			// The feed's posts and its standing in one step, as a poll stores them.
			_, err = w.st.FeedRead(bg, fromFeed, func(store.AddResult) store.Feed { return full })
		} else {
			err = w.st.UpdateFeed(bg, full)
		}
		must(t, err)
	}
	if len(s.Feeds) == 0 {
		var fromFeed []store.NewPost
		for _, p := range s.Posts {
			if p.FeedText != "" {
				fromFeed = append(fromFeed, store.NewPost{URL: p.URL, SourceID: src.ID, Title: p.Title, Published: p.Published, Lastmod: p.Lastmod, Text: p.FeedText, Seen: seen(s, p)})
			}
		}
		_, err := w.st.AddPosts(bg, fromFeed)
		must(t, err)
	}
	// Posts named by a page or a feed without text: pending, then fetched.
	var named []store.NewPost
	for _, p := range s.Posts {
		if p.FeedText == "" {
			named = append(named, store.NewPost{URL: p.URL, SourceID: src.ID, Title: p.Title, Published: p.Published, Lastmod: p.Lastmod, Seen: seen(s, p)})
		}
	}
	_, err = w.st.AddPosts(bg, named)
	must(t, err)
	for _, p := range s.Posts {
		if p.Retry.Attempts > 0 { // a failed try, to be tried again
			stored, err := w.st.Post(bg, p.URL)
			must(t, err)
			must(t, w.st.SavePage(bg, store.PageResult{PostID: stored.ID, Retry: p.Retry}))
		}
		if p.State == model.PostPending || (p.FeedText != "" && p.Citations == nil) {
			continue
		}
		stored, err := w.st.Post(bg, p.URL)
		must(t, err)
		text := p.PageText
		if text == "" {
			text = p.FeedText
		}
		must(t, w.st.SavePage(bg, store.PageResult{PostID: stored.ID, State: p.State, Text: text, TextFrom: model.TextFromPage,
			Citations: p.Citations, Fetched: T0, Error: p.Error}))
	}
	// Sitemaps: URLs they name that no post spec holds become pending
	// posts; URLs a later whole read dropped become removed.
	ids := map[string]int64{}
	for _, m := range s.Sitemaps {
		sm := store.Sitemap{SourceID: src.ID, URL: m.URL, Via: m.Via, State: m.State}
		if m.Parent != "" {
			sm.ParentID, sm.Via = ids[m.Parent], model.ViaRobots // the crawler keeps the index's route
		}
		stored, err := w.st.AddSitemap(bg, sm)
		must(t, err)
		ids[m.URL] = stored.ID
		for i, read := range m.Reads {
			urls := make([]store.SitemapURL, len(read))
			for j, u := range read {
				urls[j] = store.SitemapURL{Loc: u}
			}
			whole := !(m.Partial && i == len(m.Reads)-1)
			_, err := w.st.IngestSitemap(bg, stored, s.Added, urls, whole)
			must(t, err)
		}
		stored.State, stored.LastRead, stored.Error = m.State, m.LastRead, m.Error
		must(t, w.st.UpdateSitemap(bg, stored))
	}
	return src.ID
}

// seen is when the crawl first met p: its Seen, else when its source
// was added.
func seen(s srcSpec, p postSpec) time.Time {
	if !p.Seen.IsZero() {
		return p.Seen
	}
	return s.Added
}

func (w *siteWorld) origin(o model.Origin) {
	must(w.t, w.st.PutOrigin(bg, model.Origin{Origin: o.Origin, Status: o.Status, State: o.State, Checked: o.Checked, Blocked: o.Blocked}))
}

func (w *siteWorld) refusal(site string, refused bool) {
	must(w.t, w.st.PutRefusal(bg, site, model.RefusalState{Consecutive403: 3, Refused: refused, LastAsked: T0}))
}

func (w *siteWorld) requests(recs ...reqSpec) {
	var out []model.RequestRecord
	for _, r := range recs {
		rec := model.RequestRecord{Site: r.Site, URL: r.URL, Purpose: model.Purpose(r.Purpose), Status: r.Status, Bytes: r.Bytes,
			Start: r.Start, Duration: time.Second, Conditional: r.Conditional, Outcome: model.Outcome(r.Outcome)}
		if r.Err != "" {
			rec.Err = errors.New(r.Err)
		}
		out = append(out, rec)
	}
	must(w.t, w.st.LogRequests(bg, out))
}

// both runs one call of the public site's questions and records its
// answer for the golden file.
func both[T any](w *siteWorld, name string, call func(*store.SiteData) (T, error)) T {
	w.t.Helper()
	got, err := call(w.sql)
	w.golden.record(w.t, name, got, err)
	w.compared++
	return got
}

// compareAll asks every read question and returns the store's answers,
// marshalled, for the leak check.
func (w *siteWorld) compareAll(sites []string) []byte {
	w.t.Helper()
	var seen []any
	seen = append(seen, both(w, "Coverage", func(d *store.SiteData) (model.Coverage, error) { return d.Coverage(bg) }))
	seen = append(seen, both(w, "SourcesByState", func(d *store.SiteData) ([]model.StateCount, error) { return d.SourcesByState(bg) }))
	seen = append(seen, both(w, "PostsPerMonth", func(d *store.SiteData) ([]model.MonthCount, error) { return d.PostsPerMonth(bg) }))
	ranges := [][2]time.Time{
		{day(30), day(-1)}, {day(3).Add(5 * time.Hour), day(1).Add(time.Minute)}, {time.Time{}, T0.AddDate(300, 0, 0)},
		{day(0), day(0)}, {day(-5), day(-10)},
	}
	type span struct {
		From, To time.Time
		OK       bool
	}
	seen = append(seen, both(w, "RequestSpan", func(d *store.SiteData) (span, error) {
		from, to, ok, err := d.RequestSpan(bg)
		return span{from, to, ok}, err
	}))
	for _, r := range ranges {
		seen = append(seen, both(w, fmt.Sprintf("RequestsPerDay(%v, %v)", r[0], r[1]), func(d *store.SiteData) ([]model.RequestDay, error) {
			return d.RequestsPerDay(bg, r[0], r[1])
		}))
	}
	for _, site := range sites {
		for _, now := range []time.Time{T0, day(20)} {
			seen = append(seen, both(w, "Site("+site+", "+now.Format(time.DateOnly)+")", func(d *store.SiteData) (model.SiteDetail, error) {
				return d.Site(bg, site, now)
			}))
		}
	}
	states := append([]string{"", "bogus"}, model.SourceStates...)
	for _, state := range states {
		for _, limit := range []int{1, 2, 3, 7, 500} {
			seen = append(seen, w.walk(state, limit))
		}
		for _, after := range []string{"a", "alpha.example", "beta.examplf", "zzz", "192.0.2.7", "p05.example"} {
			seen = append(seen, both(w, fmt.Sprintf("Sites(after %q, state %q)", after, state), func(d *store.SiteData) (model.SitePage, error) {
				return d.Sites(bg, model.SitesQuery{After: after, Limit: 4, State: state})
			}))
		}
	}
	b, err := json.Marshal(seen)
	must(w.t, err)
	return b
}

// walk pages through Sites and checks that the pages add up to the
// whole list, each page alike in both.
func (w *siteWorld) walk(state string, limit int) []model.SiteSummary {
	w.t.Helper()
	all := both(w, fmt.Sprintf("Sites(state %q, all)", state), func(d *store.SiteData) (model.SitePage, error) {
		return d.Sites(bg, model.SitesQuery{Limit: 500, State: state})
	})
	var walked []model.SiteSummary
	after := ""
	for range 1000 {
		p := both(w, fmt.Sprintf("Sites(state %q, after %q, limit %d)", state, after, limit), func(d *store.SiteData) (model.SitePage, error) {
			return d.Sites(bg, model.SitesQuery{After: after, Limit: limit, State: state})
		})
		if p.Total != all.Total || len(p.Sites) > limit {
			w.t.Fatalf("state %q after %q: total %d of %d, %d sites for limit %d", state, after, p.Total, all.Total, len(p.Sites), limit)
		}
		walked = append(walked, p.Sites...)
		if p.Next == "" {
			break
		}
		if p.Next != p.Sites[len(p.Sites)-1].Site {
			w.t.Fatalf("Next %q is not the page's last site", p.Next)
		}
		after = p.Next
	}
	if len(walked) != all.Total || (len(walked) > 0 && !reflect.DeepEqual(walked, all.Sites)) {
		w.t.Errorf("state %q limit %d: the pages do not add up to the list (%d of %d)", state, limit, len(walked), all.Total)
	}
	return walked
}

// buildWorld declares and builds the conformance world: every source
// state, every gap, sitemaps of each kind, posts in every state, links
// across sites, a request log with each outcome, and enough sites to page
// through. It returns the sites to look at one by one.
func buildWorld(w *siteWorld) []string {
	t := w.t
	ctx := context.Background()
	active := func(u string, read time.Time) feedSpec {
		return feedSpec{FeedDetail: model.FeedDetail{URL: u, State: model.FeedActive, Catalogue: model.CatalogueDone, Pages: 3, LastRead: read, Checked: read}}
	}
	// alpha.example: an active source with everything, a disallowed one
	// and one never discovered.
	var alphaPosts []postSpec
	for i := range 58 {
		p := postSpec{URL: fmt.Sprintf("https://alpha.example/p/%02d", i), Title: fmt.Sprintf("Post %d", i), State: model.PostIndexed,
			Published: day(i / 2).Add(-time.Hour), PageText: "plain body", Lastmod: day(i / 2)}
		switch i % 7 {
		case 3:
			p.Published = time.Time{} // undated: listed last, by URL
		case 5:
			p.State = model.PostSkipped
		}
		alphaPosts = append(alphaPosts, p)
	}
	var many []string
	for i := range 12 { // more cited sites than TopCited, with ties
		for j := 0; j <= i%3; j++ {
			many = append(many, fmt.Sprintf("https://cited%02d.example/%d", i, j))
		}
	}
	alphaPosts = append(alphaPosts,
		postSpec{URL: "https://alpha.example/one", Title: "First post", Published: day(35), State: model.PostIndexed, FeedText: siteSecrets[0],
			Citations: []string{"https://beta.example/x", "https://beta.example/y", "https://alpha.example/self", "https://www.alpha.example/self2",
				"https://delta.example/z", "https://beta.example/x", "mailto:someone@example.com", "not a url", "https://shop.epsilon.example/"}},
		postSpec{URL: "https://alpha.example/many", Title: "Link roundup", Published: day(36), State: model.PostIndexed, PageText: siteSecrets[1],
			Citations: many},
		postSpec{URL: "https://alpha.example/feedonly", Title: "Feed only", Published: day(37), State: model.PostIndexed, FeedText: "a feed body"},
		postSpec{URL: "https://alpha.example/app", Title: "An app shell", Published: day(4), State: model.PostShell},
		postSpec{URL: "https://alpha.example/hidden", Title: "Hidden", State: model.PostNoindex},
		postSpec{URL: "https://alpha.example/broken", Title: "Broken", Published: day(9), State: model.PostError, Error: "status 500"},
		postSpec{URL: "https://alpha.example/waiting", Title: "Waiting", Published: day(2), State: model.PostPending,
			Retry: store.Retry{Attempts: 2, At: T0.Add(time.Hour), Error: "connection refused"}},
		postSpec{URL: "https://alpha.example/refused", Title: "Refused", Published: day(3), State: model.PostRefused},
		postSpec{URL: "https://alpha.example/moon", Title: "Before the epoch", Published: time.Date(1969, 7, 20, 20, 17, 0, 0, time.UTC), State: model.PostIndexed},
		postSpec{URL: "https://alpha.example/eom", Title: "End of month", Published: time.Date(2026, 1, 31, 23, 59, 59, 999999999, time.UTC), State: model.PostIndexed},
		postSpec{URL: "https://alpha.example/som", Title: "Start of month", Published: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), State: model.PostIndexed},
		postSpec{URL: "https://alpha.example/gone", Title: "Gone", Published: day(50), State: model.PostIndexed, PageText: siteSecrets[2]},
	)
	w.addSource(srcSpec{URL: "https://alpha.example/", Added: day(40), Discovered: day(39), Posts: alphaPosts,
		Feeds: []feedSpec{
			{FeedDetail: model.FeedDetail{URL: "https://alpha.example/feed", Title: "Alpha feed", State: model.FeedActive, Catalogue: model.CatalogueDone, Pages: 7, LastRead: day(1), Checked: day(1)}},
			{FeedDetail: model.FeedDetail{URL: "https://alpha.example/comments/feed", Title: "Comments on Alpha", State: model.FeedActive, Catalogue: model.CatalogueNone, LastRead: day(2), Checked: day(1)}},
		},
		Sitemaps: []smSpec{
			{SitemapDetail: model.SitemapDetail{URL: "https://alpha.example/sitemap.xml", Via: model.ViaRobots, State: "active", LastRead: day(3)},
				Reads: [][]string{{"https://alpha.example/one", "https://alpha.example/gone", "https://alpha.example/s/1"}, {"https://alpha.example/one", "https://alpha.example/s/1"}}},
			{SitemapDetail: model.SitemapDetail{URL: "https://alpha.example/sitemap-index.xml", Via: model.ViaWellKnown, State: "active", LastRead: T0.Add(-5 * time.Hour)}},
			{SitemapDetail: model.SitemapDetail{URL: "https://alpha.example/sitemap-posts.xml", Via: "index", State: "active", LastRead: day(4)},
				Parent: "https://alpha.example/sitemap-index.xml",
				Reads:  [][]string{{"https://alpha.example/s/2", "https://alpha.example/s/3", "https://alpha.example/s/4"}, {"https://alpha.example/s/2"}}, Partial: true},
		}})
	w.addSource(srcSpec{URL: "https://blog.alpha.example/", Added: day(30), Discovered: day(29),
		Feeds: []feedSpec{{FeedDetail: model.FeedDetail{URL: "https://blog.alpha.example/rss", State: model.FeedDisallowed, Catalogue: model.CatalogueNone, Checked: day(3)}}},
		Posts: []postSpec{{URL: "https://blog.alpha.example/p", Title: "Blog post", Published: day(100), State: model.PostDisallowed}}})
	w.addSource(srcSpec{URL: "https://www.alpha.example/", Added: day(1)})
	// beta.example: no feed; and an erring source.
	w.addSource(srcSpec{URL: "https://beta.example/", Added: day(20), Discovered: day(19),
		Posts: []postSpec{{URL: "https://beta.example/b1", Title: "Beta cites", Published: day(8), State: model.PostIndexed,
			Citations: []string{"https://alpha.example/one", "https://blog.alpha.example/p", "https://delta.example/a"}}}})
	w.addSource(srcSpec{URL: "https://old.beta.example/", Added: day(20), Discovered: day(19),
		Feeds:    []feedSpec{{FeedDetail: model.FeedDetail{URL: "https://old.beta.example/feed", State: model.FeedError, Catalogue: model.CatalogueInterrupted, Checked: day(2)}, Error: siteSecrets[3]}},
		Sitemaps: []smSpec{{SitemapDetail: model.SitemapDetail{URL: "https://old.beta.example/sitemap.xml", Via: model.ViaWellKnown, State: "error"}, Error: siteSecrets[5]}}})
	w.addSource(srcSpec{URL: "https://gamma.blogspot.com/", Added: day(1)})
	// delta.example: robots.txt unreachable on 443, fine on 8080.
	w.addSource(srcSpec{URL: "https://delta.example/", Added: day(10), Discovered: day(9),
		Feeds: []feedSpec{{FeedDetail: model.FeedDetail{URL: "https://delta.example/feed", State: model.FeedError, Catalogue: model.CatalogueInterrupted}, Error: "timeout"}},
		Posts: []postSpec{
			{URL: "https://delta.example/a", Title: "Delta <b>bold</b>", Published: day(60), State: model.PostIndexed, Citations: []string{"https://www.alpha.example/one"}},
			{URL: "https://delta.example/b", Title: "Delta error", State: model.PostError, Error: "timeout"},
		}})
	w.addSource(srcSpec{URL: "http://delta.example:8080/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("http://delta.example:8080/feed", day(2))}})
	w.addSource(srcSpec{URL: "https://refuser.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://refuser.example/feed", day(5))}})
	notRefusedFeed := active("https://notrefused.example/feed", day(5))
	notRefusedFeed.Error, notRefusedFeed.Attempts = "status 429", 1 // waiting for a retry
	w.addSource(srcSpec{URL: "https://notrefused.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{notRefusedFeed}})
	epsilon := w.addSource(srcSpec{URL: "https://epsilon.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://epsilon.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "https://shop.epsilon.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://shop.epsilon.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "https://kappa.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://kappa.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "https://lambda.example/", Added: day(10), Discovered: day(9),
		Feeds:    []feedSpec{{FeedDetail: model.FeedDetail{URL: "https://lambda.example/feed", State: model.FeedDisallowed, Catalogue: model.CatalogueNone}}},
		Sitemaps: []smSpec{{SitemapDetail: model.SitemapDetail{URL: "https://lambda.example/sitemap.xml", Via: model.ViaRobots, State: "active", LastRead: day(6)}, Reads: [][]string{{"https://lambda.example/x"}}}}})
	w.addSource(srcSpec{URL: "https://mu.example/", Added: day(10),
		Feeds: []feedSpec{{FeedDetail: model.FeedDetail{URL: "https://mu.example/feed", State: model.FeedDisallowed, Catalogue: model.CatalogueNone}}}})
	w.addSource(srcSpec{URL: "https://zeta.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://zeta.example/feed", day(5))}})
	blogZeta := w.addSource(srcSpec{URL: "https://blog.zeta.example/", Added: day(10), Discovered: day(9)})
	w.addSource(srcSpec{URL: "https://eta.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://eta.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "https://Nu.Example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://nu.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "https://xi.example:8443/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://xi.example:8443/feed", day(5))}})
	w.addSource(srcSpec{URL: "http://omicron.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("http://omicron.example/feed", day(5))}})
	w.addSource(srcSpec{URL: "http://192.0.2.7/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("http://192.0.2.7/feed", day(5))}})
	// Sites to page through, in rotating states.
	for i := range 24 {
		s := srcSpec{URL: fmt.Sprintf("https://p%02d.example/", i), Added: day(i)}
		switch i % 4 {
		case 1:
			s.Discovered = day(i)
		case 2:
			s.Discovered, s.Feeds = day(i), []feedSpec{active(fmt.Sprintf("https://p%02d.example/feed", i), day(i))}
		case 3:
			s.Discovered, s.Feeds = day(i), []feedSpec{{FeedDetail: model.FeedDetail{URL: fmt.Sprintf("https://p%02d.example/feed", i), Title: fmt.Sprintf("P%d", i),
				State: model.FeedError, Catalogue: model.CatalogueNone}, Error: []string{"status 503", "not a feed: an HTML page"}[i/4%2]}}
		}
		w.addSource(s)
		if i%5 == 0 { // a second source, another state
			w.addSource(srcSpec{URL: fmt.Sprintf("https://www.p%02d.example/", i), Added: day(i), Discovered: day(i)})
		}
	}

	// sigma.example: robots.txt shuts us out of the whole site, though a
	// feed and a sitemap are known (robots.txt named the sitemap): blocked,
	// before refused, which it is too.
	w.addSource(srcSpec{URL: "https://sigma.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://sigma.example/feed", day(5))},
		Sitemaps: []smSpec{{SitemapDetail: model.SitemapDetail{URL: "https://sigma.example/sitemap.xml", Via: model.ViaRobots, State: "active"}}}})

	for _, o := range []model.Origin{
		{Origin: "https://alpha.example:443", Status: 200, State: "parsed", Checked: day(1)},
		{Origin: "http://alpha.example:80", Status: 404, State: "no-file", Checked: day(2)},
		{Origin: "https://blog.alpha.example:443", Status: 200, State: "parsed", Checked: day(1)},
		{Origin: "https://cdn.alpha.example:443", Status: 401, State: "refused", Checked: day(1)},
		{Origin: "https://notalpha.example:443", Status: 200, State: "parsed", Checked: day(1)},
		{Origin: "https://alpha.example.evil.test:443", Status: 200, State: "parsed", Checked: day(1)},
		{Origin: "https://delta.example:443", Status: 503, State: "unreachable", Checked: day(1)},
		{Origin: "http://delta.example:8080", Status: 200, State: "parsed", Checked: day(1)},
		// kappa's stale copy (obeyed) shuts us out: blocked before unreachable.
		{Origin: "https://kappa.example:443", Status: 500, State: "stale-copy", Checked: day(1), Blocked: true},
		{Origin: "https://sigma.example:443", Status: 200, State: "parsed", Checked: day(1), Blocked: true},
		{Origin: "https://epsilon.example:443", Status: 200, State: "parsed", Checked: day(1), Blocked: true}, // paused first
		{Origin: "https://nu.example:443", State: "unreachable", Checked: day(1)},
		{Origin: "https://xi.example:8443", State: "unreachable", Checked: day(1)},
		{Origin: "https://xi.example:443", Status: 200, State: "parsed", Checked: day(1), Blocked: true}, // not the homepage's origin
		{Origin: "http://omicron.example:80", State: "unreachable", Checked: day(1)},
		{Origin: "https://omicron.example:443", Status: 200, State: "parsed", Checked: day(1)},
		{Origin: "http://192.0.2.7:80", State: "unreachable", Checked: day(1)},
		{Origin: "https://p01.example:443", State: "abandoned", Checked: day(1)},
	} {
		w.origin(o)
	}
	w.refusal("refuser.example", true)
	w.refusal("notrefused.example", false)
	w.refusal("farawayrefuser.example", true)
	w.refusal("sigma.example", true)

	var recs []reqSpec
	for i := range 12 {
		st := 200
		if i%3 == 0 {
			st = 304
		}
		recs = append(recs, reqSpec{Site: "alpha.example", URL: "https://alpha.example/feed", Purpose: "feed", Status: st, Outcome: "fetched",
			Conditional: i > 0, Bytes: 1000, Start: day(i % 5).Add(-time.Hour)})
	}
	recs = append(recs,
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/robots.txt", Purpose: "robots", Status: 200, Outcome: "fetched", Bytes: 77, Start: day(6)},
		reqSpec{Site: "alpha.example", URL: "https://blog.alpha.example/rss", Purpose: "feed", Outcome: "disallowed", Conditional: true, Start: day(3)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/p/01", Purpose: "page", Status: 301, Outcome: "redirect", Start: day(29)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/p/01/", Purpose: "page", Status: 200, Outcome: "fetched", Bytes: 5000, Start: day(29).Add(time.Second)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/p/02", Purpose: "page", Status: 500, Outcome: "status", Start: day(30)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/p/03", Purpose: "page", Outcome: "error", Err: siteSecrets[4], Start: day(31)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/sitemap.xml", Purpose: "sitemap", Status: 200, Outcome: "too-large", Start: day(45)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/feed?page=2", Purpose: "catalogue", Status: 200, Outcome: "wrong-type", Start: day(0).Add(11 * time.Hour)},
		reqSpec{Site: "alpha.example", URL: "https://alpha.example/.well-known/corpusbot", Purpose: "claim", Status: 200, Outcome: "fetched", Start: day(-1).Add(-time.Nanosecond)},
		reqSpec{Site: "refuser.example", URL: "https://refuser.example/robots.txt", Purpose: "robots", Status: 403, Outcome: "fetched", Start: day(12)},
		reqSpec{Site: "refuser.example", URL: "https://refuser.example/feed", Purpose: "feed", Outcome: "refused", Start: day(2)},
		reqSpec{Site: "iota.example", URL: "https://iota.example/robots.txt", Purpose: "robots", Outcome: "disallowed", Start: day(2)},
		reqSpec{Site: "old.example", URL: "https://old.example/", Purpose: "page", Status: 200, Outcome: "fetched", Start: time.Date(1999, 12, 31, 23, 0, 0, 0, time.UTC)},
		reqSpec{Site: "old.example", URL: "https://old.example/", Purpose: "page", Status: 200, Outcome: "fetched", Start: time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC)},
	)
	// never-304: 11 and 10 conditional requests unanswered count; 9 do
	// not, nor 10 with one 304, nor 10 withheld before any connection.
	for site, n := range map[string]int{"delta.example": 11, "ten.example": 10, "nine.example": 9, "withone.example": 10, "withheld.example": 10} {
		for i := range n {
			r := reqSpec{Site: site, URL: "https://" + site + "/feed", Purpose: "feed", Status: 200, Outcome: "fetched", Conditional: true, Bytes: 10, Start: day(i)}
			if site == "withone.example" && i == 4 {
				r.Status, r.Outcome = 304, "unchanged"
			}
			if site == "withheld.example" {
				r.Status, r.Outcome = 0, "disallowed"
			}
			recs = append(recs, r)
		}
	}
	w.requests(recs...)

	// Pauses: one source by its owner's claim; a site opted out after one
	// of its sources was paused; a site opted out and resumed.
	must(t, w.sql.PauseSource(ctx, epsilon, "claim", day(3)))
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.PauseSource(ctx, blogZeta, "claim", day(4)))
	}
	res := both(w, "PauseSite(zeta)", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(ctx, "zeta.example", "opt-out form", day(2))
	})
	if res != (model.PauseResult{Site: "zeta.example", Paused: 1, AlreadyPaused: 1}) {
		t.Errorf("PauseSite(zeta): %+v", res)
	}
	both(w, "PauseSite(eta)", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(ctx, "eta.example", "opt-out form", day(2))
	})
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.ResumeSite(ctx, "eta.example"))
	}
	both(w, "PauseSite(theta)", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(ctx, "theta.example", "opt-out form", day(2))
	})
	// A source the operator removed (sources remove), its feed kept.
	w.addSource(srcSpec{URL: "https://removed.example/", Added: day(10), Discovered: day(9), Feeds: []feedSpec{active("https://removed.example/feed", day(5))}})
	sel, err := sourcelist.ParseSelector("removed.example")
	must(t, err)
	_, err = w.st.RemoveSources(ctx, []sourcelist.Selector{sel}, false, day(1))
	must(t, err)

	return []string{"removed.example", "alpha.example", "beta.example", "gamma.blogspot.com", "delta.example", "refuser.example", "notrefused.example",
		"epsilon.example", "kappa.example", "lambda.example", "mu.example", "zeta.example", "sigma.example", "eta.example", "nu.example", "xi.example",
		"omicron.example", "192.0.2.7", "p00.example", "p01.example", "p03.example", "theta.example", "iota.example", "old.example",
		"ten.example", "withheld.example", "farawayrefuser.example", "nowhere.example", "cited03.example", "example", ""}
}

func testSiteDataEmpty(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	w.compareAll([]string{"a.example"})
	c, err := w.sql.Coverage(bg)
	must(t, err)
	if len(c.Gaps) != len(model.GapReasons) {
		t.Errorf("gaps %+v", c.Gaps)
	}
}

func testSiteDataConformance(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	sites := buildWorld(w)
	w.compareAll(sites)
	// Spot checks, so that a bug shared by both sides is still caught.
	states, _ := w.sql.SourcesByState(bg)
	for _, sc := range states {
		if sc.Count == 0 {
			t.Errorf("no source in state %s: the world misses a case", sc.State)
		}
	}
	c, _ := w.sql.Coverage(bg)
	// Every indexed post is in a month: by its published date, else by
	// the date first seen.
	months, _ := w.sql.PostsPerMonth(bg)
	inMonths, undated := 0, 0
	for _, m := range months {
		inMonths += m.Count
		undated += m.Undated
	}
	if inMonths != c.Indexed || undated == 0 {
		t.Errorf("posts per month add up to %d (%d undated), indexed %d", inMonths, undated, c.Indexed)
	}
	for _, g := range c.Gaps {
		if g.Count == 0 {
			t.Errorf("gap %s is empty: the world misses a case", g.Reason)
		}
	}
	want := map[string]int{model.GapRefused: 3, model.GapRobotsUnreachable: 6, model.GapNever304: 2, model.GapDisallowed: 3}
	for _, g := range c.Gaps {
		if n, ok := want[g.Reason]; ok && n != g.Count {
			t.Errorf("gap %s: %d, want %d", g.Reason, g.Count, n)
		}
	}
	// Errors by reason: the crawler's reasons as they are, the parsers'
	// without their detail, internal texts as "other"; a feed waiting for
	// a retry and a pending post waiting for one count, by total then name.
	var reasons []string
	for _, e := range c.Errors {
		reasons = append(reasons, fmt.Sprintf("%s %d/%d/%d", e.Reason, e.Feeds, e.Sitemaps, e.Posts))
	}
	if got, want := strings.Join(reasons, ", "), "not a feed 3/0/0, status 503 3/0/0, other 1/1/0, timeout 1/0/1, "+
		"connection refused 0/0/1, status 429 1/0/0, status 500 0/0/1"; got != want {
		t.Errorf("errors by reason:\n got %s\nwant %s", got, want)
	}
	alpha, err := w.sql.Site(bg, "alpha.example", T0)
	must(t, err)
	if len(alpha.Recent) != model.RecentPosts || alpha.Citations.Out == 0 || len(alpha.Citations.TopOut) != model.TopCited || alpha.Citations.In != 3 {
		t.Errorf("alpha: %d recent, citations %+v", len(alpha.Recent), alpha.Citations)
	}
	// Blocked: before refused (sigma) and unreachable (kappa, a stale copy
	// obeyed), after paused (epsilon); only the homepage's origin counts
	// (xi's source is on :8443, unreachable; its :443 blocks us).
	for site, want := range map[string]string{"sigma.example": model.StateBlocked, "kappa.example": model.StateBlocked,
		"epsilon.example": model.StatePaused, "xi.example": model.StateUnreachable, "refuser.example": model.StateRefused} {
		d, err := w.sql.Site(bg, site, T0)
		must(t, err)
		i := slices.IndexFunc(d.Sources, func(s model.SourceDetail) bool {
			return strings.TrimRight(strings.TrimPrefix(s.URL, "https://"+site), ":0123456789/") == ""
		})
		if i < 0 || d.Sources[i].State != want {
			t.Errorf("%s: sources %+v, want its homepage in state %s", site, d.Sources, want)
		}
	}
	if alpha.Sources[0].Title != "Alpha feed" || alpha.Sources[0].Sitemaps[1].Via != "index" || alpha.Sources[0].Sitemaps[1].URLs != 1 {
		t.Errorf("alpha source: %+v", alpha.Sources[0])
	}

	// Changes after the first look: a source added to an opted-out site
	// starts paused; pausing again counts everything as already paused;
	// resuming one source keeps the site-level opt-out.
	w.addSource(srcSpec{URL: "https://new.zeta.example/", Added: day(1), Discovered: day(1)})
	res := both(w, "PauseSite(zeta) again", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(bg, "zeta.example", "claim", day(0))
	})
	if res != (model.PauseResult{Site: "zeta.example", Paused: 0, AlreadyPaused: 3}) {
		t.Errorf("PauseSite(zeta) again: %+v", res)
	}
	z, _ := w.sql.Site(bg, "zeta.example", T0)
	for _, s := range z.Sources {
		if !s.Paused || s.State != model.StatePaused {
			t.Errorf("zeta source %s not paused: %+v", s.URL, s)
		}
	}
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.ResumeSource(bg, z.Sources[0].ID))
		must(t, d.PauseSource(bg, z.Sources[1].ID, "claim", T0)) // already paused: keeps its first pause
	}
	w.compareAll(sites)
	if ok, _ := st.OptedOut(bg, "zeta.example"); !ok {
		t.Error("ResumeSource cleared the site-level opt-out")
	}
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.ResumeSite(bg, "zeta.example"))
	}
	w.compareAll(sites)
	t.Logf("%d answers held to the golden file", w.compared)
}

func testSiteDataOptOut(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	// Opted out before any source of it is known.
	res := both(w, "PauseSite", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(bg, "later.example", "opt-out form", day(5))
	})
	if res != (model.PauseResult{Site: "later.example"}) {
		t.Errorf("%+v", res)
	}
	both(w, "PauseSite again", func(d *store.SiteData) (model.PauseResult, error) {
		return d.PauseSite(bg, "later.example", "claim", day(4))
	})
	id := w.addSource(srcSpec{URL: "https://www.later.example/", Added: day(3), Discovered: day(3)})
	w.addSource(srcSpec{URL: "https://other.example/", Added: day(3)})
	d, err := w.sql.Site(bg, "later.example", T0)
	must(t, err)
	if !d.OptedOut || len(d.Sources) != 1 || !d.Sources[0].Paused || d.Sources[0].PausedBy != "opt-out form" {
		t.Errorf("a source added after the opt-out: %+v", d)
	}
	if ok, err := st.OptedOut(bg, "later.example"); !ok || err != nil {
		t.Errorf("OptedOut: %v %v", ok, err)
	}
	if due, _ := st.SourcesToDiscover(bg, T0, 10); len(due) != 1 || due[0].URL != "https://other.example/" {
		t.Errorf("an opted-out source is handed out for discovery: %+v", due)
	}
	w.compareAll([]string{"later.example", "other.example"})
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.ResumeSite(bg, "later.example"))
	}
	if ok, _ := st.OptedOut(bg, "later.example"); ok {
		t.Error("ResumeSite left the opt-out")
	}
	d, _ = w.sql.Site(bg, "later.example", T0)
	if d.OptedOut || d.Sources[0].Paused || d.Sources[0].ID != id {
		t.Errorf("after ResumeSite: %+v", d)
	}
	w.compareAll([]string{"later.example", "other.example"})
}

func testSiteDataNotFound(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	sd := w.sql
	if _, err := sd.Site(bg, "nowhere.example", T0); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Site: %v", err)
	}
	for name, err := range map[string]error{
		"PauseSource":       sd.PauseSource(bg, 999, "x", T0),
		"ResumeSource":      sd.ResumeSource(bg, 999),
		"MarkClaimVerified": sd.MarkClaimVerified(bg, "x", "dns", T0),
	} {
		if !errors.Is(err, model.ErrNotFound) {
			t.Errorf("%s: want ErrNotFound, got %v", name, err)
		}
	}
	if _, err := sd.Claim(bg, "x"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Claim: %v", err)
	}
	// A site only asked (a refusal seen before any source): it has a page.
	w.requests(reqSpec{Site: "refuser.example", Purpose: "robots", Status: 403, Outcome: "fetched", Start: T0})
	w.refusal("refuser.example", true)
	d := both(w, "Site(refuser)", func(d *store.SiteData) (model.SiteDetail, error) { return d.Site(bg, "refuser.example", T0) })
	if !d.Refused || d.Requests.Total != 1 {
		t.Errorf("refuser: %+v", d)
	}
}

func testSiteDataClaims(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	c := model.Claim{ID: strings.Repeat("ab", 32), Site: "beta.example", Token: "corpusbot-claim=xyz", Created: T0, Expires: T0.Add(48 * time.Hour)}
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.CreateClaim(bg, c))
		if err := d.CreateClaim(bg, c); err == nil {
			t.Errorf("%T: duplicate claim ID accepted", d)
		}
		must(t, d.CreateClaim(bg, model.Claim{ID: "other", Site: "beta.example", Token: "t2", Created: T0, Expires: T0}))
	}
	both(w, "Claim", func(d *store.SiteData) (model.Claim, error) { return d.Claim(bg, c.ID) })
	for _, d := range []*store.SiteData{w.sql} {
		must(t, d.MarkClaimVerified(bg, c.ID, "dns", T0.Add(time.Hour)))
	}
	got := both(w, "Claim verified", func(d *store.SiteData) (model.Claim, error) { return d.Claim(bg, c.ID) })
	if got.Method != "dns" || !got.Verified.Equal(T0.Add(time.Hour)) || got.Token != c.Token {
		t.Errorf("%+v", got)
	}
	both(w, "Claim other", func(d *store.SiteData) (model.Claim, error) { return d.Claim(bg, "other") })
}

// testSiteDataNoText proves that nothing web.Data answers carries a post's
// stored text or an internal error, though the store holds them.
func testSiteDataNoText(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	sites := buildWorld(w)
	for _, u := range []string{"https://alpha.example/one", "https://alpha.example/many", "https://alpha.example/gone"} {
		p, err := st.Post(bg, u)
		must(t, err)
		if !slices.Contains(siteSecrets, p.Text) {
			t.Fatalf("the world does not store the secret text of %s: %q", u, p.Text)
		}
	}
	all := w.compareAll(sites)
	for _, s := range siteSecrets {
		for _, frag := range strings.Fields(s)[:1] {
			if strings.Contains(string(all), frag) {
				t.Errorf("%q is served", frag)
			}
		}
	}
	for _, want := range []string{"Post 0", "Alpha feed", "Delta "} {
		if !strings.Contains(string(all), want) {
			t.Errorf("the answers lack %q: the leak check looked at nothing", want)
		}
	}
}

// testSiteDataOptedOutWithheld: an opted-out record (model.OutcomeOptedOut)
// was never sent, so it is withheld, like disallowed and refused ones.
func testSiteDataOptedOutWithheld(t *testing.T, st siteStore) {
	w := newSiteWorld(t, st)
	var recs []model.RequestRecord
	for i := range 12 {
		recs = append(recs, model.RequestRecord{Site: "gone.example", URL: "https://gone.example/feed", Purpose: model.PurposeFeed,
			Conditional: true, Outcome: model.OutcomeOptedOut, Start: day(i % 3)})
	}
	must(t, st.LogRequests(bg, recs))
	d, err := w.sql.Site(bg, "gone.example", T0)
	must(t, err)
	if d.Requests.Total != 0 || d.Requests.Withheld != 12 || len(d.Requests.Days) != 0 || len(d.Requests.ByPurpose) != 0 {
		t.Errorf("opted-out records counted as requests: %+v", d.Requests)
	}
	c, err := w.sql.Coverage(bg)
	must(t, err)
	for _, g := range c.Gaps {
		if g.Reason == model.GapNever304 && g.Count != 0 {
			t.Errorf("never-304 counts requests never sent: %d", g.Count)
		}
	}
	if days, _ := w.sql.RequestsPerDay(bg, day(10), day(-1)); len(days) != 0 {
		t.Errorf("per day: %+v", days)
	}
}
