package push

import (
	"corpus.blog/corpusbot/internal/model"

	"testing"
	"time"
)

func TestAcceptsIntent(t *testing.T) {
	const topic = "https://blog.example/feed"
	for _, tc := range []struct {
		state, mode, topic string
		want               bool
	}{
		{model.SubscriptionRequested, ModeSubscribe, topic, true},
		{model.SubscriptionActive, ModeSubscribe, topic, true}, // a renewal
		{model.SubscriptionWanted, ModeSubscribe, topic, false},
		{model.SubscriptionInactive, ModeSubscribe, topic, false},
		{model.SubscriptionUnsubscribing, ModeSubscribe, topic, false},
		{model.SubscriptionUnsubscribing, ModeUnsubscribe, topic, true},
		{model.SubscriptionActive, ModeUnsubscribe, topic, false}, // someone else asking to end ours
		{model.SubscriptionRequested, ModeSubscribe, topic + "?x", false},
		{model.SubscriptionRequested, "SUBSCRIBE", topic, false},
		{model.SubscriptionRequested, "", topic, false},
	} {
		if got := AcceptsIntent(tc.state, topic, tc.mode, tc.topic); got != tc.want {
			t.Errorf("%s %s %s = %v", tc.state, tc.mode, tc.topic, got)
		}
	}
	if AcceptsIntent(model.SubscriptionRequested, "", ModeSubscribe, "") {
		t.Error("an empty topic accepted")
	}
}

func TestParseLease(t *testing.T) {
	asked := 10 * 24 * time.Hour
	for raw, want := range map[string]time.Duration{
		"864000": asked, "3600": time.Hour, "60": MinLease, "": asked, "x": asked, "-5": asked, "0": asked,
		"99999999999": MaxLease, "999999999999999999999": asked,
	} {
		if got := ParseLease(raw, asked); got != want {
			t.Errorf("ParseLease(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestRenewAt(t *testing.T) {
	v := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for lease, before := range map[time.Duration]time.Duration{
		10 * 24 * time.Hour: 24 * time.Hour,     // a day beats a tenth (1d)
		30 * 24 * time.Hour: 3 * 24 * time.Hour, // a tenth beats a day
		12 * time.Hour:      6 * time.Hour,      // never more than half
		time.Hour:           30 * time.Minute,
	} {
		if got := RenewAt(v, lease); !got.Equal(v.Add(lease - before)) {
			t.Errorf("lease %v: renew at %v, want %v before the end", lease, got.Sub(v), before)
		}
	}
}

func TestRetry(t *testing.T) {
	for n, want := range map[int]time.Duration{1: time.Hour, 2: 2 * time.Hour, 4: 8 * time.Hour, 100: 7 * 24 * time.Hour} {
		if got := Retry(n); got != want {
			t.Errorf("Retry(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestDiscover(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		link                   []string
		feedHub, feedSelf, url string
		hub, topic             string
	}{
		{"feed links", nil, "https://hub.example/", "https://b.example/feed", "https://b.example/feed?x", "https://hub.example/", "https://b.example/feed"},
		{"header wins", []string{`<https://h2.example/>; rel="hub", <https://b.example/self>; rel="self"`}, "https://hub.example/", "https://b.example/feed", "https://b.example/feed",
			"https://h2.example/", "https://b.example/self"},
		{"no self: fetched URL", nil, "https://hub.example/", "", "https://b.example/feed", "https://hub.example/", "https://b.example/feed"},
		{"relative header", []string{`</hub>; rel=hub`}, "", "", "https://b.example/feed", "https://b.example/hub", "https://b.example/feed"},
		{"no hub", []string{`<https://b.example/>; rel="alternate"`}, "", "", "https://b.example/feed", "", ""},
		{"not http", nil, "mailto:x@y", "", "https://b.example/feed", "", ""},
	} {
		hub, topic := Discover(tc.link, tc.feedHub, tc.feedSelf, tc.url)
		if hub != tc.hub || topic != tc.topic {
			t.Errorf("%s: %q %q, want %q %q", tc.name, hub, topic, tc.hub, tc.topic)
		}
	}
}

func TestParseLinks(t *testing.T) {
	got := ParseLinks([]string{
		`<https://a.example/>; rel="hub self"; title="a, b", <https://c.example/>; rel=next`,
		`junk, <https://d.example/>; rel="hub"`,
		`<https://e.example/>; rel="alternate"; rel="hub"`, // only the first rel counts
	})
	want := map[string]string{"hub": "https://a.example/", "self": "https://a.example/", "next": "https://c.example/", "alternate": "https://e.example/"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
