package fetch_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

func TestGzipBombStopsAtBodyMax(t *testing.T) {
	// Inflating a sitemap's 50 MiB under the race detector, with the other
	// packages' tests on the same two cores, can outlast the rig's 5 s
	// request timeout; this test is about the size limit, not the timeout.
	r := newRig(t, false, func(_ *config.Settings, o *fetch.Options) { o.Timeouts.Total = time.Minute })
	h := r.web.Host("bomb.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/sitemap.xml", simweb.GzipBomb("application/xml", 200<<20))
	res := r.get(h.URL("/sitemap.xml"), model.PurposeSitemap)
	want(t, res, model.OutcomeTooLarge)
	if res.Body != nil || !isErr(res.Err, fetch.ErrTooLarge) {
		t.Errorf("body %d bytes, err %v", len(res.Body), res.Err)
	}
}

func TestHugeBodyCapped(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("huge.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/p", simweb.Huge("text/html", 50<<20))
	res := r.get(h.URL("/p"), model.PurposePage)
	want(t, res, model.OutcomeTooLarge)
	// Declared too large: refused from the header alone.
	h.Put("/declared", "text/html", strings.Repeat("x", int(r.s.BodyMax)+200<<10))
	want(t, r.get(h.URL("/declared"), model.PurposePage), model.OutcomeTooLarge)
	// Exactly BODY_MAX is fine.
	h.Put("/exact", "text/html", "<html>"+strings.Repeat("x", int(r.s.BodyMax)-6))
	res = r.get(h.URL("/exact"), model.PurposePage)
	want(t, res, model.OutcomeFetched)
	if int64(len(res.Body)) != r.s.BodyMax {
		t.Errorf("body %d bytes", len(res.Body))
	}
	for _, q := range r.web.RequestsTo(h.Name()) {
		// Socket buffers on loopback hold a few MB; the point is that the
		// 50 MB were not all sent.
		if q.Bytes > 25<<20 {
			t.Errorf("%s: server wrote %d bytes before the fetcher hung up", q.URI, q.Bytes)
		}
	}
}

func TestWrongTypeClosedUnread(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("img.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/photo", simweb.Huge("image/jpeg", 200<<20))
	res := r.get(h.URL("/photo"), model.PurposePage)
	want(t, res, model.OutcomeWrongType)
	reqs := r.web.RequestsTo(h.Name())
	if b := reqs[len(reqs)-1].Bytes; b > 16<<20 {
		t.Errorf("server wrote %d bytes of an image nobody read", b)
	}
	r.clean(r.s.MinGap)
}

func TestContentTypeBySniffing(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("types.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/sitemap.xml", "text/html; charset=utf-8", simweb.HTMLPage) // HTML at /sitemap.xml
	h.Put("/sitemap2.xml", "application/octet-stream", `<?xml version="1.0"?><urlset></urlset>`)
	h.Put("/feed", "text/html", rss)
	h.Put("/feed.json", "text/plain", `{"version":"https://jsonfeed.org/version/1.1","items":[]}`)
	h.Put("/page-pdf", "application/pdf", "%PDF-1.4")
	h.Put("/untyped", "", simweb.HTMLPage)
	h.Put("/sitemap.txt", "text/plain", "https://types.example/a\n")
	cases := []struct {
		path string
		p    model.Purpose
		o    model.Outcome
	}{
		{"/sitemap.xml", model.PurposeSitemap, model.OutcomeWrongType},
		{"/sitemap2.xml", model.PurposeSitemap, model.OutcomeFetched},
		{"/sitemap.txt", model.PurposeSitemap, model.OutcomeFetched},
		{"/feed", model.PurposeFeed, model.OutcomeFetched},
		{"/feed.json", model.PurposeFeed, model.OutcomeFetched},
		{"/sitemap.xml", model.PurposeFeed, model.OutcomeWrongType},
		{"/page-pdf", model.PurposePage, model.OutcomeWrongType},
		{"/feed", model.PurposePage, model.OutcomeFetched}, // declared text/html: a page takes it as it is
		{"/sitemap2.xml", model.PurposePage, model.OutcomeWrongType},
	}
	for _, c := range cases {
		if res := r.get(h.URL(c.path), c.p); res.Outcome != c.o {
			t.Errorf("%s as %s: %s (%v), want %s", c.path, c.p, res.Outcome, res.Err, c.o)
		}
	}
}

func TestCompressedBodiesDecoded(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("zip.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/g", "application/rss+xml", rss).Encode("gzip")
	h.Put("/b", "application/rss+xml", rss).Encode("br")
	for _, p := range []string{"/g", "/b"} {
		res := r.get(h.URL(p), model.PurposeFeed)
		want(t, res, model.OutcomeFetched)
		if string(res.Body) != rss {
			t.Errorf("%s: body %q", p, res.Body)
		}
	}
	for _, q := range r.web.RequestsTo(h.Name()) {
		if got := q.Header.Get("Accept-Encoding"); got != "gzip, br" {
			t.Errorf("Accept-Encoding %q", got)
		}
	}
}

func TestSlowDripCutOff(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap = time.Millisecond
		o.Timeouts.Total = 300 * time.Millisecond
	})
	h := r.web.Host("drip.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/feed", simweb.Drip("application/rss+xml", 20*time.Millisecond, 10000))
	began := time.Now()
	res := r.get(h.URL("/feed"), model.PurposeFeed)
	want(t, res, model.OutcomeError)
	if el := time.Since(began); el > 2*time.Second {
		t.Errorf("cut off after %v", el)
	}
}

func TestHeaderTimeoutAndReset(t *testing.T) {
	r := newRig(t, true, func(s *config.Settings, o *fetch.Options) {
		s.MinGap = time.Millisecond
		o.Timeouts.Header = 200 * time.Millisecond
	})
	h := r.web.Host("hang.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/slow", simweb.Slow(2*time.Second, nil, simweb.NewResource("text/html", simweb.HTMLPage)))
	h.Handle("/reset", simweb.Reset())
	for _, p := range []string{"/slow", "/reset"} {
		began := time.Now()
		want(t, r.get(h.URL(p), model.PurposePage), model.OutcomeError)
		if el := time.Since(began); el > 1500*time.Millisecond {
			t.Errorf("%s: took %v", p, el)
		}
	}
}

func TestNoCookiesExactAgent(t *testing.T) {
	r := newRig(t, false, func(s *config.Settings, _ *fetch.Options) {
		s.UserAgent = "CorpusBot/1.0 (+https://corpus.blog/crawler)"
	})
	h := r.web.Host("cookies.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/p", simweb.SetCookie(simweb.NewResource("text/html", simweb.HTMLPage)))
	for range 3 {
		want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	}
	r.clean(r.s.MinGap) // checks Cookie and User-Agent on every request
	if got := r.web.RequestsTo(h.Name())[1].Header.Get("User-Agent"); got != "CorpusBot/1.0 (+https://corpus.blog/crawler)" {
		t.Errorf("User-Agent %q", got)
	}
}

func TestServerErrorsWidenGap(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("broken.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/p", simweb.Status(http.StatusInternalServerError))
	for range 14 {
		want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeStatus)
	}
	reqs := r.web.RequestsTo(h.Name())[1:]
	var gaps []time.Duration
	for i := 1; i < len(reqs); i++ {
		gaps = append(gaps, reqs[i].Start.Sub(reqs[i-1].End))
	}
	for i := 1; i < len(gaps); i++ {
		if gaps[i] < gaps[i-1] || (gaps[i-1] < time.Hour/2 && gaps[i] < 2*gaps[i-1]) {
			t.Errorf("gaps %v: consecutive errors should double the gap", gaps)
			break
		}
	}
	if last := gaps[len(gaps)-1]; last != fetch.MaxBackoff {
		t.Errorf("last gap %v, want the %v cap", last, fetch.MaxBackoff)
	}
	// Successes narrow it again, back to MIN_GAP.
	h.Put("/p", "text/html", simweb.HTMLPage)
	for range 15 {
		want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	}
	reqs = r.web.RequestsTo(h.Name())
	if g := reqs[len(reqs)-1].Start.Sub(reqs[len(reqs)-2].End); g != r.s.MinGap {
		t.Errorf("gap after a run of successes %v, want MIN_GAP", g)
	}
}

func TestSlowResponseWidensGap(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("sluggish.example")
	h.Robots("User-agent: *\nAllow: /\n")
	sleep := func(d time.Duration) { r.clock.Advance(d) }
	h.Handle("/p", simweb.Slow(3*time.Second, sleep, simweb.NewResource("text/html", simweb.HTMLPage)))
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	want(t, r.get(h.URL("/p"), model.PurposePage), model.OutcomeFetched)
	reqs := r.web.RequestsTo(h.Name())
	if g := reqs[2].Start.Sub(reqs[1].End); g < 12*time.Second {
		t.Errorf("gap after a 3s response %v, want >= 4x", g)
	}
}

func TestRefusalList(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("nope.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/feed", simweb.Status(http.StatusForbidden))
	for range 3 {
		want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeStatus)
	}
	before := len(r.web.RequestsTo(h.Name()))
	for range 5 {
		res := r.get(h.URL("/feed"), model.PurposeFeed)
		want(t, res, model.OutcomeRefused)
		r.clock.Advance(time.Hour)
	}
	if n := len(r.web.RequestsTo(h.Name())); n != before {
		t.Fatalf("%d requests to a refused site", n-before)
	}
	// Once per REFUSAL_RECHECK it is asked again; one success clears it.
	r.clock.Advance(r.s.RefusalRecheck)
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeStatus)
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeRefused)
	r.clock.Advance(r.s.RefusalRecheck)
	h.Put("/feed", "application/rss+xml", rss)
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
	want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeFetched)
	// A site that has served us is not listed for a later run of 403s.
	h.Handle("/feed", simweb.Status(http.StatusForbidden))
	for range 4 {
		want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeStatus)
	}
}

// A site on the refusal list gets one request per REFUSAL_RECHECK, and
// robots.txt is no exception: a feed asked hourly for two weeks, long past
// ROBOTS_TTL, costs the site one request a week.
func TestRefusalListHoldsRobots(t *testing.T) {
	r := newRig(t, false, nil)
	h := r.web.Host("walled.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Handle("/feed", simweb.Status(http.StatusForbidden))
	for range 3 {
		want(t, r.get(h.URL("/feed"), model.PurposeFeed), model.OutcomeStatus)
	}
	listedAt := r.clock.Now()
	before := len(r.web.RequestsTo(h.Name()))
	for range 14 * 24 {
		r.clock.Advance(time.Hour)
		r.get(h.URL("/feed"), model.PurposeFeed)
	}
	reqs := r.web.RequestsTo(h.Name())[before:]
	weeks := int(r.clock.Now().Sub(listedAt) / r.s.RefusalRecheck)
	if len(reqs) != weeks {
		var got []string
		for _, q := range reqs {
			got = append(got, q.URI+"@"+q.Start.Sub(listedAt).String())
		}
		t.Fatalf("%d requests in %d weeks on the refusal list, want %d: %v", len(reqs), weeks, weeks, got)
	}
	for _, q := range reqs {
		if q.URI == "/robots.txt" {
			t.Errorf("robots.txt asked at +%v while the site was on the refusal list", q.Start.Sub(listedAt))
		}
	}
}
