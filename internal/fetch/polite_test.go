package fetch_test

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/robots"
)

const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>`

func TestRobotsFirstThenCached(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("blog.example")
	h.Robots("User-agent: *\nDisallow: /private\n")
	h.Put("/a", "text/html", simweb.HTMLPage)
	h.Put("/b", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/a"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(h.URL("/b"), model.PurposePage), model.OutcomeFetched)
	res := r.get(h.URL("/private/x"), model.PurposePage)
	want(t, res, model.OutcomeDisallowed)
	var de *fetch.DisallowedError
	if !asDisallowed(res.Err, &de) || de.Rule != "Disallow: /private" {
		t.Errorf("err %v, want the deciding rule", res.Err)
	}
	if got := r.uris("blog.example"); !slices.Equal(got, []string{"/robots.txt", "/a", "/b"}) {
		t.Errorf("requests %q", got)
	}
	r.clean(r.s.MinGap)
}

func TestSitesShareRegistrableDomain(t *testing.T) {
	r := newRig(t, false, nil)
	for _, n := range []string{"a.blog.example", "b.blog.example"} {
		h := r.web.Host(n)
		h.Robots("User-agent: *\nAllow: /\n")
		h.Put("/p", "text/html", simweb.HTMLPage)
	}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			host := []string{"a.blog.example", "b.blog.example"}[i%2]
			want(t, r.get("http://"+host+"/p", model.PurposePage), model.OutcomeFetched)
		})
	}
	wg.Wait()
	reqs := simweb.BySite(r.web.Requests())["blog.example"]
	if len(reqs) != 12 {
		t.Fatalf("%d requests to blog.example, want 12", len(reqs))
	}
	r.clean(r.s.MinGap) // one lease for both hosts: serialised, 1s apart
}

func TestPrivateSuffixSitesAreSeparate(t *testing.T) {
	// On the wall clock: two github.io blogs must proceed side by side.
	r := newRig(t, true, func(s *config.Settings, _ *fetch.Options) { s.MinGap = 150 * time.Millisecond })
	for _, n := range []string{"foo.github.io", "bar.github.io"} {
		h := r.web.Host(n)
		h.Robots("User-agent: *\nAllow: /\n")
		h.Put("/p", "text/html", simweb.HTMLPage)
	}
	var wg sync.WaitGroup
	for _, n := range []string{"foo.github.io", "bar.github.io"} {
		wg.Go(func() {
			for range 3 {
				want(t, r.get("http://"+n+"/p", model.PurposePage), model.OutcomeFetched)
			}
		})
	}
	wg.Wait()
	// Judged from the server side rather than by the clock: one shared lease
	// would start every request at least MinGap after the previous one ended,
	// whichever blog it was for; separate leases let the blogs' requests run
	// side by side, so somewhere one starts well within MinGap of the other's.
	all := append(r.web.RequestsTo("foo.github.io"), r.web.RequestsTo("bar.github.io")...)
	if len(all) != 8 {
		t.Fatalf("%d requests, want robots.txt and 3 pages for each blog", len(all))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Start.Before(all[j].Start) })
	closest := time.Duration(1<<63 - 1)
	for i := 1; i < len(all); i++ {
		closest = min(closest, all[i].Start.Sub(all[i-1].End))
	}
	if closest >= r.s.MinGap/2 {
		t.Errorf("every request started %v or more after the one before: the two sites were serialised", closest)
	}
	if model.Site("foo.github.io") == model.Site("bar.github.io") {
		t.Error("foo.github.io and bar.github.io share a site")
	}
	r.clean(r.s.MinGap)
}

func TestCrawlDelayRaisesGap(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("slowpoke.example")
	h.Robots("User-agent: *\nCrawl-delay: 7\n")
	h.Put("/feed", "application/rss+xml", rss)
	h.Put("/p", "text/html", simweb.HTMLPage)
	for range 3 {
		want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
		want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	}
	reqs := r.web.RequestsTo(h.Name())
	for i := 2; i < len(reqs); i++ { // from the first page on (robots.txt itself precedes the file)
		if g := reqs[i].Start.Sub(reqs[i-1].End); g < 7*time.Second {
			t.Errorf("gap %v before %s, want >= Crawl-delay 7s", g, reqs[i].URI)
		}
	}
	r.clean(r.s.MinGap)
}

func TestCataloguePageDelay(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("archive.example")
	h.Robots("User-agent: *\nAllow: /\n")
	for _, p := range []string{"/feed?paged=2", "/feed?paged=3", "/feed?paged=4"} {
		h.Put(p, "application/rss+xml", rss)
		want(t, r.get(h.URL(p), model.PurposeCatalogue), model.OutcomeFetched)
	}
	r.clean(r.s.CataloguePageDelay)
}

func TestRetryAfterObeyed(t *testing.T) {
	for _, ra := range []string{"120", start.Add(120 * time.Second).Format(time.RFC1123)} {
		t.Run(ra, func(t *testing.T) {
			r := newRig(t, false, nil)
			h := r.web.Host("busy.example")
			h.Robots("User-agent: *\nAllow: /\n")
			if ra != "120" {
				ra = r.clock.Now().Add(120 * time.Second).UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")
			}
			h.Handle("/feed", simweb.TooMany(ra))
			res := r.get(h.URL("/feed"), model.PurposeFeed)
			want(t, res, model.OutcomeStatus)
			if res.Status != 429 {
				t.Fatalf("status %d", res.Status)
			}
			h.Put("/feed", "application/rss+xml", rss)
			want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
			reqs := r.web.RequestsTo(h.Name())
			if g := reqs[2].Start.Sub(reqs[1].End); g < 119*time.Second {
				t.Errorf("asked again after %v, Retry-After said 120s", g)
			}
		})
	}
}

func TestRetryAfterCappedAtADay(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("sulky.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/feed", simweb.Unavailable("99999999"))
	r.get(h.URL("/feed"), model.PurposeFeed)
	h.Put("/feed", "application/rss+xml", rss)
	r.get(h.URL("/feed"), model.PurposeFeed)
	reqs := r.web.RequestsTo(h.Name())
	if g := reqs[2].Start.Sub(reqs[1].End); g < 24*time.Hour || g > 25*time.Hour {
		t.Errorf("asked again after %v, want a day", g)
	}
}

func TestUnreachableRobotsFetchesNothingElse(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("down.example")
	h.RobotsStatus(500)
	h.Put("/feed", "application/rss+xml", rss)
	for range 3 {
		res := r.get(h.URL("/feed"), model.PurposeFeed)
		want(t, res, model.OutcomeDisallowed)
		if res.Robots != robots.StateUnreachable {
			t.Errorf("robots state %s", res.Robots)
		}
	}
	if got := r.uris(h.Name()); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("requests %q, want robots.txt alone (cached for the guess TTL)", got)
	}
	// After ROBOTS_GUESS_TTL it is asked again; once it answers, crawling resumes.
	r.clock.Advance(r.s.RobotsGuessTTL)
	h.Robots("User-agent: *\nAllow: /\n")
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
	r.clean(r.s.MinGap)
}

func TestUnreachableRobotsObeysRecentCopy(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("flaky.example")
	h.Robots("User-agent: *\nDisallow: /no\n")
	h.Put("/yes", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/yes"), model.PurposePage), model.OutcomeFetched)
	r.clock.Advance(r.s.RobotsTTL)
	h.RobotsStatus(503)
	res := r.get(h.URL("/yes"), model.PurposePage)
	want(t, res, model.OutcomeFetched)
	if res.Robots != robots.StateStaleCopy {
		t.Errorf("robots state %s, want stale-copy", res.Robots)
	}
	want(t, r.get(h.URL("/no"), model.PurposePage), model.OutcomeDisallowed)
	// 31 days on, with no answer since, the copy is too old: paused.
	for range 31 * 4 {
		r.clock.Advance(r.s.RobotsGuessTTL)
		_ = r.get(h.URL("/yes"), model.PurposePage)
	}
	res = r.get(h.URL("/yes"), model.PurposePage)
	if res.Robots != robots.StateAbandoned || res.Outcome != model.OutcomeFetched {
		t.Errorf("after 31 days unreachable: %s %s, want abandoned (treated as no file)", res.Robots, res.Outcome)
	}
	// (r.clean would judge /yes by the 503 robots.txt now served; the copy was obeyed.)
}

func TestRefusedRobotsFetchesNothingElse(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("private.example")
	h.RobotsStatus(403)
	h.Put("/feed", "application/rss+xml", rss)
	res := r.get(h.URL("/feed"), model.PurposeFeed)
	want(t, res, model.OutcomeDisallowed)
	if res.Robots != robots.StateRefused {
		t.Errorf("robots state %s", res.Robots)
	}
	if got := r.uris(h.Name()); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("requests %q", got)
	}
	r.clean(r.s.MinGap)
}

func TestRedirectIntoDisallowedPathOnAnotherHost(t *testing.T) {
	r := newRig(t, false, nil)
	a := r.web.Host("a.example")
	a.Robots("User-agent: *\nAllow: /\n")
	a.Handle("/go", simweb.Redirect(301, "http://b.example/private/post"))
	b := r.web.Host("b.example")
	b.Robots("User-agent: *\nDisallow: /private/\n")
	b.Put("/private/post", "text/html", simweb.HTMLPage)
	res := r.get(a.URL("/go"), model.PurposePage)
	want(t, res, model.OutcomeDisallowed)
	if res.FinalURL != "http://b.example/private/post" || len(res.Redirects) != 1 {
		t.Errorf("final %s redirects %q", res.FinalURL, res.Redirects)
	}
	if got := r.uris("b.example"); !slices.Equal(got, []string{"/robots.txt"}) {
		t.Errorf("b.example saw %q, want robots.txt only", got)
	}
	r.clean(r.s.MinGap)
}

func TestRedirectFollowedAcrossHosts(t *testing.T) {
	r := newRig(t, false, nil)
	a := r.web.Host("old.example")
	a.Robots("User-agent: *\nAllow: /\n")
	a.Handle("/feed", simweb.Redirect(308, "http://new.example/feed.xml"))
	b := r.web.Host("new.example")
	b.Robots("User-agent: *\nAllow: /\n")
	b.Put("/feed.xml", "application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom"/>`)
	res := r.get(a.URL("/feed"), model.PurposeFeed)
	want(t, res, model.OutcomeFetched)
	if res.FinalURL != "http://new.example/feed.xml" {
		t.Errorf("final %s", res.FinalURL)
	}
	r.clean(r.s.MinGap)
}

func TestRedirectLoopAndLimit(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("loop.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/a", simweb.Redirect(302, "/b"))
	h.Handle("/b", simweb.Redirect(302, "/a"))
	res := r.get(h.URL("/a"), model.PurposePage)
	if res.Outcome != model.OutcomeError || !isErr(res.Err, fetch.ErrRedirectLoop) {
		t.Errorf("loop: %s %v", res.Outcome, res.Err)
	}
	for i := range 7 {
		h.Handle("/c"+string(rune('0'+i)), simweb.Redirect(301, "/c"+string(rune('1'+i))))
	}
	h.Put("/c7", "text/html", simweb.HTMLPage)
	res = r.get(h.URL("/c0"), model.PurposePage)
	if res.Outcome != model.OutcomeError || !isErr(res.Err, fetch.ErrTooManyRedirects) || len(res.Redirects) != 5 {
		t.Errorf("chain: %s %v after %d", res.Outcome, res.Err, len(res.Redirects))
	}
	r.clean(r.s.MinGap)
}

func TestRobotsRedirectFollowed(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("moved.example")
	h.Handle("/robots.txt", simweb.Redirect(301, "http://www.moved.example/robots.txt"))
	w := r.web.Host("www.moved.example")
	w.Robots("User-agent: *\nDisallow: /x\n")
	h.Put("/y", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/y"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(h.URL("/x"), model.PurposePage), model.OutcomeDisallowed)
	// Five redirects and no file: no rules.
	l := r.web.Host("far.example")
	for i := range 6 {
		l.Handle("/r"+string(rune('0'+i)), simweb.Redirect(302, "/r"+string(rune('1'+i))))
	}
	l.Handle("/robots.txt", simweb.Redirect(302, "/r0"))
	l.Put("/p", "text/html", simweb.HTMLPage)
	res := r.get(l.URL("/p"), model.PurposePage)
	if res.Robots != robots.StateNoFile {
		t.Errorf("robots state %s after too many redirects", res.Robots)
	}
}

func TestConditionalReread(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("cond.example")
	h.Robots("User-agent: *\nAllow: /\n")
	feed := h.Put("/feed", "application/rss+xml", rss).Validators(`W/"abc-gzip"`, "Tue, 03 Feb 2026 04:05:06 GMT")
	first := r.get(h.URL("/feed"), model.PurposeFeed)
	want(t, first, model.OutcomeFetched)
	if first.ETag != `W/"abc-gzip"` || first.LastModified != "Tue, 03 Feb 2026 04:05:06 GMT" || first.LastModifiedFromDate {
		t.Fatalf("validators %q %q", first.ETag, first.LastModified)
	}
	second := r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/feed"), Purpose: model.PurposeFeed, ETag: first.ETag, LastModified: first.LastModified})
	want(t, second, model.OutcomeUnchanged)
	if second.Body != nil || second.ETag != first.ETag {
		t.Errorf("304: body %q etag %q", second.Body, second.ETag)
	}
	reqs := r.web.RequestsTo(h.Name())
	last := reqs[len(reqs)-1].Header
	if last.Get("If-None-Match") != `W/"abc-gzip"` || last.Get("If-Modified-Since") != "Tue, 03 Feb 2026 04:05:06 GMT" {
		t.Errorf("conditional headers %q", last)
	}
	if full, not := feed.Counts(); full != 1 || not != 1 {
		t.Errorf("served %d, 304 %d", full, not)
	}
	recs := r.records()
	if !recs[len(recs)-1].Conditional || recs[len(recs)-1].Outcome != model.OutcomeUnchanged {
		t.Errorf("record %+v", recs[len(recs)-1])
	}
	r.clean(r.s.MinGap)
}

func TestNoLastModifiedUsesServerDate(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("nodate.example")
	h.Robots("User-agent: *\nAllow: /\n")
	const date = "Wed, 04 Mar 2026 05:06:07 GMT"
	h.Put("/sitemap.xml", "application/xml", `<urlset/>`).Validators("", "").Date(date)
	first := r.get(h.URL("/sitemap.xml"), model.PurposeSitemap)
	want(t, first, model.OutcomeFetched)
	if first.LastModified != date || !first.LastModifiedFromDate || first.ETag != "" {
		t.Fatalf("validators %q %q %v", first.ETag, first.LastModified, first.LastModifiedFromDate)
	}
	second := r.f.Fetch(context.Background(), fetch.Request{URL: h.URL("/sitemap.xml"), Purpose: model.PurposeSitemap, LastModified: first.LastModified})
	want(t, second, model.OutcomeUnchanged)
	reqs := r.web.RequestsTo(h.Name())
	if got := reqs[len(reqs)-1].Header.Get("If-Modified-Since"); got != date {
		t.Errorf("If-Modified-Since %q, want the server's Date %q", got, date)
	}
}

func TestRobotsRereadConditionally(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("steady.example")
	rob := h.Robots("User-agent: *\nDisallow: /x\n")
	h.Put("/p", "text/html", simweb.HTMLPage)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	r.clock.Advance(r.s.RobotsTTL)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(h.URL("/x"), model.PurposePage), model.OutcomeDisallowed)
	if full, not := rob.Counts(); full != 1 || not != 1 {
		t.Errorf("robots served %d, 304 %d; want one full read and one conditional", full, not)
	}
}

// Moved says the resource lives at FinalURL for good: only when every hop
// on the way was permanent.
func TestRedirectMoved(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("moves.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/new", "application/rss+xml", rss)
	h.Handle("/301", simweb.Redirect(http.StatusMovedPermanently, "/new"))
	h.Handle("/308", simweb.Redirect(http.StatusPermanentRedirect, "/301"))
	h.Handle("/302", simweb.Redirect(http.StatusFound, "/new"))
	h.Handle("/mixed", simweb.Redirect(http.StatusMovedPermanently, "/302"))
	for path, moved := range map[string]bool{"/new": false, "/301": true, "/308": true, "/302": false, "/mixed": false} {
		res := r.get(h.URL(path), model.PurposeFeed)
		want(t, res, model.OutcomeFetched)
		if res.Moved != moved || res.FinalURL != h.URL("/new") {
			t.Errorf("%s: Moved %v, FinalURL %s; want %v, /new", path, res.Moved, res.FinalURL, moved)
		}
	}
}
