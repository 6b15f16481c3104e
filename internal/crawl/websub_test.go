package crawl_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/web"
)

// pushWorld is a world whose crawler subscribes through the public site's
// callback, served on loopback by an httptest server of the web handler.
type pushWorld struct {
	*world
	push store.Push
	site *httptest.Server
	hub  *testHub
}

func newPushWorld(t *testing.T) *pushWorld {
	t.Helper()
	w := newWorld(t, "")
	pw := &pushWorld{world: w, push: w.db, hub: newTestHub(t)}
	w.c.Push = pw.push
	srv, err := web.New(web.Options{
		Data: w.db.SiteData(), Settings: w.s, WebSub: w.c, Now: w.clock.Now, Log: discard,
		FormLimit: web.RateLimit{Burst: 1000, Every: time.Millisecond},
		IndexNow:  w.db, IndexNowFetcher: crawl.IndexNowKeys{Fetcher: w.c.Fetcher},
	})
	if err != nil {
		t.Fatal(err)
	}
	pw.site = httptest.NewServer(srv)
	t.Cleanup(pw.site.Close)
	w.c.CallbackBase = pw.site.URL
	w.web.Host("hub.example").Handle("/", pw.hub)
	return pw
}

// pushedRSS is an RSS feed that declares its hub and self URL.
func pushedRSS(self string, items []item) string {
	s := rss(items)
	return strings.Replace(s, `<channel>`, `<channel><atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="hub" href="https://hub.example/"/>`+
		`<atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="self" href="`+self+`"/>`, 1)
}

func (pw *pushWorld) subscription(t *testing.T, feedURL string) store.Subscription {
	t.Helper()
	feeds := feedsOf(t, pw.world, "http://push.example/")
	for _, f := range feeds {
		if f.URL == feedURL {
			s, err := pw.push.FeedSubscription(context.Background(), f.ID)
			if err != nil {
				t.Fatalf("subscription of %s: %v", feedURL, err)
			}
			return s
		}
	}
	t.Fatalf("no feed %s", feedURL)
	return store.Subscription{}
}

func (pw *pushWorld) feed(t *testing.T, feedURL string) store.Feed {
	t.Helper()
	for _, f := range feedsOf(t, pw.world, "http://push.example/") {
		if f.URL == feedURL {
			return f
		}
	}
	t.Fatalf("no feed %s", feedURL)
	return store.Feed{}
}

// The whole WebSub life of one feed: the hub found in the polled feed,
// a subscription verified through the site's callback, deliveries
// ingested as a poll would (and ignored when unsigned or badly signed),
// polls stretched while subscribed, the lease renewed before it ends,
// and an unsubscription when the source is paused.
func TestWebSub(t *testing.T) {
	ctx := context.Background()
	pw := newPushWorld(t)
	h := pw.web.Host("push.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	self := "http://push.example/feed"
	items := []item{{h.URL("/p1"), "One", day0, false}}
	feedRes := h.Put("/feed", rssType, pushedRSS(self, items))
	for _, p := range []string{"/p1", "/p2", "/p3", "/p4"} {
		h.Put(p, htmlType, article(p, "push post "+p, ""))
	}
	addSource(t, pw.world, "http://push.example/")
	if err := pw.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	// The round that found the hub also subscribed (its websub step comes
	// right after the feeds).
	if s := pw.subscription(t, self); s.Hub != "https://hub.example/" || s.Topic != self {
		t.Fatalf("after the round: %+v", s)
	}
	if n, err := pw.c.PushSubscriptions(ctx, 10); err != nil || n != 0 {
		t.Fatalf("PushSubscriptions after the round = %d, %v: nothing should be left to do", n, err)
	}
	req, n := pw.hub.last()
	if n != 1 || req.Get("hub.mode") != "subscribe" || req.Get("hub.topic") != self ||
		req.Get("hub.lease_seconds") != fmt.Sprint(int((10*24*time.Hour)/time.Second)) || len(req.Get("hub.secret")) < 32 {
		t.Fatalf("hub got %d requests, last %v", n, req)
	}
	callback := req.Get("hub.callback")
	if !strings.HasPrefix(callback, pw.site.URL+"/websub/callback/") || !pw.hub.wasVerified(callback) {
		t.Fatalf("callback %q not verified", callback)
	}
	sub := pw.subscription(t, self)
	if sub.State != model.SubscriptionActive || !sub.Expires.Equal(sub.Verified.Add(10*24*time.Hour)) {
		t.Fatalf("after verification: %+v", sub)
	}
	for _, r := range pw.web.RequestsTo("hub.example") {
		if r.URI == "/robots.txt" {
			t.Error("robots.txt asked of the hub: its API is not crawled")
		}
	}
	if recs := hubRecords(pw.world); len(recs) != 1 || recs[0].Purpose != model.PurposeWebSub || recs[0].Status != http.StatusAccepted {
		t.Errorf("hub requests recorded: %+v", recs)
	}

	// A signed delivery is ingested as a poll would be.
	pw.clock.Advance(time.Hour)
	items = append(items, item{h.URL("/p2"), "Two", pw.clock.Now(), false})
	if code := pw.hub.deliver(self, rssType, pushedRSS(self, reverse(items)), signed); code != http.StatusAccepted {
		t.Fatalf("signed delivery: %d", code)
	}
	if p := pw.post(h.URL("/p2")); p.State != model.PostPending || !p.Due {
		t.Errorf("delivered post: %+v", p)
	}
	f := pw.feed(t, self)
	if want := pw.clock.Now().Add(pw.s.PushSafetyPoll); f.NextDue.Before(want) {
		t.Errorf("pushed feed next due %v, want the safety poll %v", f.NextDue, want)
	}

	// Unsigned and badly signed deliveries: acknowledged alike, ignored.
	bogus := append(items, item{h.URL("/p3"), "Forged", pw.clock.Now(), false})
	for _, how := range []signing{unsigned, badlySigned} {
		if code := pw.hub.deliver(self, rssType, pushedRSS(self, reverse(bogus)), how); code != http.StatusAccepted {
			t.Errorf("delivery %d: %d, want the same 202 as a good one", how, code)
		}
	}
	if _, err := pw.db.Post(ctx, h.URL("/p3")); err == nil {
		t.Error("a forged delivery was ingested")
	}
	if code := pw.hub.deliverTo(pw.site.URL+"/websub/callback/nosuch", "x", rssType, "<rss/>", signed); code != http.StatusGone {
		t.Errorf("delivery to an unknown callback: %d, want 410", code)
	}

	// Polls stretched: the schedule's day passes with no poll of the feed.
	feedRes.Update(pushedRSS(self, reverse(items)), pw.clock.Now())
	reads := func() int { full, notModified := feedRes.Counts(); return full + notModified }
	polled := reads()
	pw.clock.Advance(3 * 24 * time.Hour)
	if err := pw.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if got := reads(); got != polled {
		t.Errorf("pushed feed polled after 3 days (%d reads, had %d)", got, polled)
	}
	if p := pw.post(h.URL("/p2")); p.State != model.PostIndexed {
		t.Errorf("delivered post not fetched by the page step: %+v", p)
	}

	// Renewal: not a day early, then within the margin (a day before
	// the lease's end).
	_, before := pw.hub.last()
	pw.clock.Advance(sub.Verified.Add(9*24*time.Hour - time.Hour).Sub(pw.clock.Now()))
	if _, err := pw.c.PushSubscriptions(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if _, n := pw.hub.last(); n != before {
		t.Fatalf("renewed %d times too early", n-before)
	}
	pw.clock.Advance(2 * time.Hour)
	if _, err := pw.c.PushSubscriptions(ctx, 10); err != nil {
		t.Fatal(err)
	}
	req, n = pw.hub.last()
	if n != before+1 || req.Get("hub.mode") != "subscribe" || req.Get("hub.callback") != callback {
		t.Fatalf("no renewal: %d requests, last %v", n, req)
	}
	if sub := pw.subscription(t, self); sub.State != model.SubscriptionActive || !sub.Expires.After(pw.clock.Now().Add(9*24*time.Hour)) {
		t.Errorf("after renewal: %+v", sub)
	}

	// The safety poll: a week after the delivery, the feed is read again.
	if err := pw.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if reads() == polled {
		t.Error("no safety poll after a week")
	}

	// Pause: the subscription is ended with the hub, deliveries answered 410.
	if _, err := pw.db.Writer().ExecContext(ctx, `UPDATE sources SET paused = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := pw.c.PushSubscriptions(ctx, 10); err != nil {
		t.Fatal(err)
	}
	req, _ = pw.hub.last()
	if req.Get("hub.mode") != "unsubscribe" || req.Get("hub.callback") != callback || !pw.hub.wasVerified(callback) {
		t.Fatalf("no unsubscription: last %v", req)
	}
	if sub := pw.subscription(t, self); sub.State != model.SubscriptionInactive {
		t.Errorf("after unsubscription: %+v", sub)
	}
	if code := pw.hub.deliverTo(callback, sub.Secret, rssType, pushedRSS(self, reverse(items)), signed); code != http.StatusGone {
		t.Errorf("delivery after unsubscription: %d, want 410", code)
	}
	// Every rule holds, but robots.txt first: a hub's API is not crawled.
	for _, v := range pw.web.Violations(pw.s.UserAgent, pw.s.ProductToken(), func(string) time.Duration { return pw.s.MinGap }) {
		if !strings.HasPrefix(v, "hub.example: first request") {
			t.Error(v)
		}
	}
}

// hubRecords are the fetcher's records of requests to the hub.
func hubRecords(w *world) []model.RequestRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []model.RequestRecord
	for _, r := range w.recs {
		if strings.Contains(r.URL, "hub.example") {
			out = append(out, r)
		}
	}
	return out
}

// A hub over plain http would see the secret in clear text (§5.1): it is
// not subscribed to, and the feed stays polled.
func TestWebSubPlainHTTPHubSkipped(t *testing.T) {
	pw := newPushWorld(t)
	h := pw.web.Host("push.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, strings.Replace(pushedRSS("http://push.example/feed", []item{{h.URL("/p1"), "One", day0, true}}),
		"https://hub.example/", "http://hub.example/", 1))
	addSource(t, pw.world, "http://push.example/")
	if err := pw.c.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := pw.feed(t, "http://push.example/feed")
	if _, err := pw.push.FeedSubscription(context.Background(), f.ID); err == nil {
		t.Error("subscribed to a plain-http hub")
	}
	if n, _ := pw.c.PushSubscriptions(context.Background(), 10); n != 0 {
		t.Errorf("%d hub requests", n)
	}
}
