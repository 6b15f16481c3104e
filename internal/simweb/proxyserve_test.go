package simweb_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"corpus.blog/corpusbot/internal/simweb"
)

// TestHandlerAsProxy: a client configured with the handler's server as its
// HTTP proxy sends absolute-URI requests, which are served by host and
// recorded with the host and the path, never the absolute form.
func TestHandlerAsProxy(t *testing.T) {
	w := simweb.New()
	defer w.Close()
	w.Host("a.example").Put("/feed", "application/rss+xml", "<rss/>")
	w.Host("b.example").Put("/feed?x=1", "text/plain", "b")
	srv := httptest.NewServer(w.Handler())
	defer srv.Close()
	proxy, _ := url.Parse(srv.URL)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	defer c.CloseIdleConnections()

	if r := get(t, c, "http://a.example/feed", "User-Agent", ua); r.StatusCode != 200 || r.Header.Get("ETag") == "" {
		t.Errorf("a.example/feed: %d, ETag %q", r.StatusCode, r.Header.Get("ETag"))
	}
	if r := get(t, c, "http://b.example/feed?x=1"); r.StatusCode != 200 {
		t.Errorf("b.example/feed?x=1: %d", r.StatusCode)
	}
	if r := get(t, c, "http://a.example/none"); r.StatusCode != 404 {
		t.Errorf("a.example/none: %d", r.StatusCode)
	}
	if r := get(t, c, "http://nowhere.example/"); r.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("unknown host: %d", r.StatusCode)
	}
	want := []struct {
		host, uri string
		status    int
	}{{"a.example", "/feed", 200}, {"b.example", "/feed?x=1", 200}, {"a.example", "/none", 404}, {"nowhere.example", "/", 421}}
	got := w.Requests()
	if len(got) != len(want) {
		t.Fatalf("%d requests recorded, want %d: %+v", len(got), len(want), got)
	}
	for i, r := range got {
		if r.Host != want[i].host || r.URI != want[i].uri || r.Status != want[i].status {
			t.Errorf("request %d: %s %s %d, want %+v", i, r.Host, r.URI, r.Status, want[i])
		}
	}
	if ua0 := got[0].Header.Get("User-Agent"); ua0 != ua {
		t.Errorf("User-Agent recorded %q", ua0)
	}
}
