package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeIndexNow struct {
	mu    sync.Mutex
	hosts map[string]bool
	due   []string
}

func (f *fakeIndexNow) IndexNowHolds(_ context.Context, host string) (bool, error) {
	return f.hosts[host], nil
}
func (f *fakeIndexNow) IndexNowDue(_ context.Context, _ time.Time, urls []string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.due = append(f.due, urls...)
	return len(urls), nil
}

type fakeKeys struct {
	mu    sync.Mutex
	files map[string]string // URL -> body
	final map[string]string // URL -> where it redirected
	reads int
}

func (f *fakeKeys) FetchKeyFile(_ context.Context, u string) ([]byte, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	body, ok := f.files[u]
	if !ok {
		return nil, u, errors.New("fetch " + u + ": status 404")
	}
	if to := f.final[u]; to != "" {
		return []byte(body), to, nil
	}
	return []byte(body), u, nil
}

func indexNowRig(t *testing.T, limit RateLimit) (*rig, *fakeIndexNow, *fakeKeys) {
	data := &fakeIndexNow{hosts: map[string]bool{"blog.example": true, "moved.example": true}}
	keys := &fakeKeys{files: map[string]string{
		"https://blog.example/abcd1234.txt":  "abcd1234\n",
		"https://moved.example/abcd1234.txt": "abcd1234",
	}, final: map[string]string{"https://moved.example/abcd1234.txt": "https://elsewhere.example/abcd1234.txt"}}
	r := newRig(t, func(o *Options) { o.IndexNow, o.IndexNowFetcher, o.FormLimit = data, keys, limit })
	return r, data, keys
}

func TestIndexNowEndpoint(t *testing.T) {
	r, data, keys := indexNowRig(t, RateLimit{Burst: 1000, Every: time.Millisecond})
	if got := r.get("/indexnow?url=https://blog.example/a&key=abcd1234"); got.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", got.Code, got.Body)
	}
	// A large POST (over the forms' cap), from a server.
	urls := make([]string, 500)
	for i := range urls {
		urls[i] = `"https://blog.example/post/` + strings.Repeat("x", 20) + `"`
	}
	req := httptest.NewRequest(http.MethodPost, "/indexnow", strings.NewReader(`{"host":"blog.example","key":"abcd1234","urlList":[`+strings.Join(urls, ",")+`]}`))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if got := r.do(req); got.Code != http.StatusOK {
		t.Fatalf("POST: %d %s", got.Code, got.Body)
	}
	if len(data.due) != 501 || keys.reads != 1 {
		t.Errorf("%d URLs due, key read %d times (want 501, once)", len(data.due), keys.reads)
	}
	// The cache lasts keyTTL.
	r.clock.Add(keyTTL + time.Second)
	r.get("/indexnow?url=https://blog.example/b&key=abcd1234")
	if keys.reads != 2 {
		t.Errorf("key not read again after its TTL: %d reads", keys.reads)
	}
	for path, want := range map[string]int{
		"/indexnow?url=https://moved.example/a&key=abcd1234":    http.StatusForbidden, // the key file redirected off the host
		"/indexnow?url=https://blog.example/a&key=ffffffff1":    http.StatusForbidden,
		"/indexnow?url=https://blog.example/a&key=bad_key_here": http.StatusUnprocessableEntity,
		"/indexnow?url=https://stranger.example/a&key=abcd1234": http.StatusUnprocessableEntity,
		"/indexnow?key=abcd1234":                                http.StatusBadRequest,
	} {
		if got := r.get(path); got.Code != want {
			t.Errorf("%s: %d %s, want %d", path, got.Code, got.Body, want)
		}
	}
}

func TestIndexNowRateLimited(t *testing.T) {
	r, _, _ := indexNowRig(t, RateLimit{Burst: 2, Every: time.Minute})
	for i := range 2 {
		if got := r.get("/indexnow?url=https://blog.example/a&key=abcd1234"); got.Code != http.StatusOK {
			t.Fatalf("request %d: %d", i, got.Code)
		}
	}
	got := r.get("/indexnow?url=https://blog.example/a&key=abcd1234")
	if got.Code != http.StatusTooManyRequests || got.Header.Get("Retry-After") == "" {
		t.Errorf("third request: %d, Retry-After %q", got.Code, got.Header.Get("Retry-After"))
	}
	// Its own buckets: the forms are not spent by IndexNow.
	if got := r.post("/opt-out", url.Values{"site": {"beta.example"}}); got.Code == http.StatusTooManyRequests {
		t.Errorf("opt-out form refused: %d", got.Code)
	}
}
