package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeWebSub answers for one callback ID, "cb".
type fakeWebSub struct {
	mu     sync.Mutex
	bodies [][]byte
	status int
}

func (f *fakeWebSub) WebSubIntent(_ context.Context, id string, q url.Values) (string, bool, error) {
	if id != "cb" || q.Get("hub.topic") != "https://blog.example/feed" {
		return "", false, nil
	}
	return q.Get("hub.challenge"), true, nil
}

func (f *fakeWebSub) WebSubDeliver(_ context.Context, id string, h http.Header, body []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bodies = append(f.bodies, body)
	return f.status, nil
}

func TestWebSubCallback(t *testing.T) {
	hub := &fakeWebSub{status: http.StatusAccepted}
	r := newRig(t, func(o *Options) { o.WebSub = hub; o.Settings.BodyMax = 64 << 10 })
	q := url.Values{"hub.mode": {"subscribe"}, "hub.topic": {"https://blog.example/feed"}, "hub.challenge": {"<ch&llenge>"}, "hub.lease_seconds": {"864000"}}
	got := r.get("/websub/callback/cb?" + q.Encode())
	if got.Code != http.StatusOK || got.Body != "<ch&llenge>" || !strings.HasPrefix(got.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("verification: %d %q %q", got.Code, got.Body, got.Header.Get("Content-Type"))
	}
	q.Set("hub.topic", "https://blog.example/other")
	if got := r.get("/websub/callback/cb?" + q.Encode()); got.Code != http.StatusNotFound {
		t.Errorf("another topic: %d", got.Code)
	}
	q.Set("hub.topic", "https://blog.example/feed")
	q.Set("hub.challenge", strings.Repeat("x", maxChallenge+1))
	if got := r.get("/websub/callback/cb?" + q.Encode()); got.Code != http.StatusNotFound {
		t.Errorf("an overlong challenge echoed: %d", got.Code)
	}

	// A delivery is a whole feed, far over the forms' cap, sent by a
	// server (no Origin, or one the cross-origin check would refuse).
	feed := strings.Repeat("<item>x</item>", 2000)
	req := httptest.NewRequest(http.MethodPost, "/websub/callback/cb", strings.NewReader(feed))
	req.Header.Set("Content-Type", "application/rss+xml")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if got := r.do(req); got.Code != http.StatusAccepted || len(hub.bodies) != 1 || string(hub.bodies[0]) != feed {
		t.Errorf("delivery: %d, %d bodies", got.Code, len(hub.bodies))
	}
	req = httptest.NewRequest(http.MethodPost, "/websub/callback/cb", strings.NewReader(strings.Repeat("x", 64<<10+1)))
	if got := r.do(req); got.Code != http.StatusRequestEntityTooLarge || len(hub.bodies) != 1 {
		t.Errorf("delivery over BODY_MAX: %d", got.Code)
	}
	hub.status = http.StatusGone
	if got := r.do(httptest.NewRequest(http.MethodPost, "/websub/callback/old", strings.NewReader("<rss/>"))); got.Code != http.StatusGone {
		t.Errorf("status not passed on: %d", got.Code)
	}
	// The forms keep their cap.
	big := url.Values{"site": {strings.Repeat("a", maxForm)}}
	if got := r.post("/opt-out", big); got.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("opt-out form over its cap: %d", got.Code)
	}
}

func TestWebSubOff(t *testing.T) {
	r := newRig(t)
	if got := r.get("/websub/callback/cb?hub.challenge=x"); got.Code != http.StatusNotFound {
		t.Errorf("GET without a receiver: %d", got.Code)
	}
	if got := r.do(httptest.NewRequest(http.MethodPost, "/websub/callback/cb", strings.NewReader("x"))); got.Code != http.StatusNotFound {
		t.Errorf("POST without a receiver: %d", got.Code)
	}
	if got := r.get("/indexnow?url=https://alpha.example/&key=abcd1234"); got.Code != http.StatusNotFound {
		t.Errorf("IndexNow without a store: %d", got.Code)
	}
}

type fakeDeliveries struct{ ids map[string]int64 }

func (fakeDeliveries) Deliveries(context.Context) (int, int, int, error) { return 3, 1234, 2, nil }
func (f fakeDeliveries) SiteDelivery(_ context.Context, site string) (map[int64]string, error) {
	if site != "alpha.example" {
		return nil, nil
	}
	return map[int64]string{f.ids["alpha"]: "pushed", f.ids["alpha-blog"]: "both"}, nil
}

// The crawler and coverage pages say how many sources are pushed, polled
// or both, when the store can tell.
func TestDeliveryShown(t *testing.T) {
	fd := fakeDeliveries{}
	r := newRig(t, func(o *Options) { o.Deliveries = &fd })
	fd.ids = r.ids
	for _, path := range []string{"/crawler", "/coverage"} {
		got := r.get(path)
		if got.Code != http.StatusOK || !strings.Contains(got.Body, `id="delivery"`) || !strings.Contains(got.Body, "1,234") {
			t.Errorf("%s: %d, no delivery section", path, got.Code)
		}
	}
	if got := r.get("/api/coverage"); got.Code != http.StatusOK || !strings.Contains(got.Body, `"pushed": 3`) || !strings.Contains(got.Body, `"polled": 1234`) {
		t.Errorf("/api/coverage: %d, no delivery counts:\n%s", got.Code, got.Body)
	}
	if got := newRig(t).get("/api/coverage"); strings.Contains(got.Body, `"delivery"`) {
		t.Error("/api/coverage has delivery counts without DeliveryData")
	}
	got := r.get("/sources/alpha.example")
	if got.Code != http.StatusOK || strings.Count(got.Body, `class="pill delivery"`) != 2 || !strings.Contains(got.Body, ">both</span>") {
		t.Errorf("source page: %d, delivery pills %d", got.Code, strings.Count(got.Body, `class="pill delivery"`))
	}
	if got := newRig(t).get("/sources/alpha.example"); strings.Contains(got.Body, `pill delivery`) {
		t.Error("delivery shown without DeliveryData")
	}
	plain := newRig(t)
	for _, path := range []string{"/crawler", "/coverage"} {
		if got := plain.get(path); got.Code != http.StatusOK || strings.Contains(got.Body, `id="delivery"`) {
			t.Errorf("%s without DeliveryData: %d, section shown", path, got.Code)
		}
	}
}
