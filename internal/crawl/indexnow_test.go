package crawl_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/model"
)

const nowKey = "0123456789abcdef-key"

// submit sends one IndexNow request to the site: a GET when body is "",
// else a POST of body as JSON. It returns the status and the body.
func (pw *pushWorld) submit(t *testing.T, query url.Values, body string) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	if body == "" {
		resp, err = http.Get(pw.site.URL + "/indexnow?" + query.Encode())
	} else {
		resp, err = http.Post(pw.site.URL+"/indexnow", "application/json; charset=utf-8", strings.NewReader(body))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// IndexNow: a submission for a held source, its key verified on the host
// through the polite fetcher, makes each URL a due post that the page
// step fetches conditionally; bad keys, foreign URLs and unheld hosts are
// refused with the protocol's codes, and nothing is fetched for them.
func TestIndexNow(t *testing.T) {
	ctx := context.Background()
	pw := newPushWorld(t)
	h := pw.web.Host("now.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/n1"), "N1", day0, false}}))
	n1 := h.Put("/n1", htmlType, article("N1", "now one", ""))
	h.Put("/n9", htmlType, article("N9", "now nine", ""))
	h.Put("/"+nowKey+".txt", "text/plain", nowKey+"\n")
	h.Put("/wrongkey1234.txt", "text/plain", "something else\n")
	pw.web.Host("stranger.example").Put("/"+nowKey+".txt", "text/plain", nowKey)
	addSource(t, pw.world, "http://now.example/")
	if err := pw.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if p := pw.post(h.URL("/n1")); p.State != model.PostIndexed || p.Due || p.ETag == "" {
		t.Fatalf("n1 after the first run: %+v", p)
	}
	full, _ := n1.Counts()

	// A GET submission of a known post: 200, and the post is due.
	code, body := pw.submit(t, url.Values{"url": {h.URL("/n1")}, "key": {nowKey}}, "")
	if code != http.StatusOK {
		t.Fatalf("GET submission: %d %s", code, body)
	}
	if !pw.post(h.URL("/n1")).Due {
		t.Error("submitted post not due")
	}
	// A POST with a new URL: the key is cached, the new post added.
	code, body = pw.submit(t, nil, `{"host":"now.example","key":"`+nowKey+`","urlList":["`+h.URL("/n1")+`","`+h.URL("/n9")+`"]}`)
	if code != http.StatusOK {
		t.Fatalf("POST submission: %d %s", code, body)
	}
	if p := pw.post(h.URL("/n9")); p.State != model.PostPending || !p.Due {
		t.Errorf("new submitted post: %+v", p)
	}
	keyReads := 0
	for _, r := range pw.web.RequestsTo("now.example") {
		if r.URI == "/"+nowKey+".txt" {
			keyReads++
		}
	}
	if keyReads != 1 {
		t.Errorf("key file read %d times, want once (cached)", keyReads)
	}

	// The next round fetches them; the known one conditionally (a 304).
	if err := pw.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if got, nm := n1.Counts(); got != full || nm != 1 {
		t.Errorf("n1 re-read: %d full, %d not modified; want a 304 only", got-full, nm)
	}
	if p := pw.post(h.URL("/n9")); p.State != model.PostIndexed || p.Due {
		t.Errorf("n9 after the round: %+v", p)
	}
	for _, r := range pw.web.RequestsTo("now.example") {
		if r.URI == "/feed" && r.Start.After(pw.clock.Now().Add(-1)) {
			t.Error("the feed was polled for a submission")
		}
	}

	// Refusals, each with its code.
	for _, tc := range []struct {
		name  string
		query url.Values
		body  string
		want  int
	}{
		{"no key file", url.Values{"url": {h.URL("/n1")}, "key": {"ffffffffffffffff"}}, "", http.StatusForbidden},
		{"key file of other content", url.Values{"url": {h.URL("/n1")}, "key": {"wrongkey1234"}}, "", http.StatusForbidden},
		{"keyLocation off the host", url.Values{"url": {h.URL("/n1")}, "key": {nowKey}, "keyLocation": {"http://stranger.example/" + nowKey + ".txt"}}, "", http.StatusUnprocessableEntity},
		{"key format", url.Values{"url": {h.URL("/n1")}, "key": {"short"}}, "", http.StatusUnprocessableEntity},
		{"foreign URL", nil, `{"host":"now.example","key":"` + nowKey + `","urlList":["http://stranger.example/x"]}`, http.StatusUnprocessableEntity},
		{"host not held", nil, `{"host":"stranger.example","key":"` + nowKey + `","urlList":["http://stranger.example/x"]}`, http.StatusUnprocessableEntity},
		{"unreadable", nil, `{"host":`, http.StatusBadRequest},
		{"no URL", nil, `{"host":"now.example","key":"` + nowKey + `","urlList":[]}`, http.StatusBadRequest},
	} {
		if code, body := pw.submit(t, tc.query, tc.body); code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, body, tc.want)
		}
	}
	if reqs := pw.web.RequestsTo("stranger.example"); len(reqs) != 0 {
		t.Errorf("%d requests to a host we hold nothing of", len(reqs))
	}
	if _, err := pw.db.Post(ctx, "http://stranger.example/x"); err == nil {
		t.Error("a foreign URL became a post")
	}
	pw.clean()
}
