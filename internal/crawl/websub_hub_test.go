package crawl_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"corpus.blog/corpusbot/internal/push"
)

// testHub is an in-process WebSub hub, served on a simweb host: it takes
// (un)subscribe requests, verifies intent on the subscriber's callback at
// once (before answering, as a fast hub does), and delivers content
// signed, unsigned or wrongly signed.
type testHub struct {
	t      testing.TB
	client *http.Client // to the callback: plain loopback, the hub is not the crawler

	mu       sync.Mutex
	requests []url.Values      // every (un)subscribe request, in order
	verified map[string]bool   // callback -> the last verification was echoed
	subs     map[string]hubSub // callback -> active subscription
	lease    int               // lease_seconds granted; 0: what was asked
}

type hubSub struct {
	topic, secret string
}

func newTestHub(t testing.TB) *testHub {
	return &testHub{t: t, client: &http.Client{}, verified: map[string]bool{}, subs: map[string]hubSub{}}
}

func (h *testHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		http.Error(w, "POST a form", http.StatusBadRequest)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form := r.PostForm
	h.mu.Lock()
	h.requests = append(h.requests, form)
	lease := h.lease
	h.mu.Unlock()
	mode, topic, callback := form.Get("hub.mode"), form.Get("hub.topic"), form.Get("hub.callback")
	if lease == 0 {
		fmt.Sscan(form.Get("hub.lease_seconds"), &lease)
	}
	ok := h.verify(callback, mode, topic, lease)
	h.mu.Lock()
	h.verified[callback] = ok
	switch {
	case ok && mode == push.ModeSubscribe:
		h.subs[callback] = hubSub{topic: topic, secret: form.Get("hub.secret")}
	case ok && mode == push.ModeUnsubscribe:
		delete(h.subs, callback)
	}
	h.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

// verify is §5.3's verification of intent: the challenge must come back.
func (h *testHub) verify(callback, mode, topic string, lease int) bool {
	challenge := rand.Text()
	q := url.Values{"hub.mode": {mode}, "hub.topic": {topic}, "hub.challenge": {challenge}}
	if mode == push.ModeSubscribe {
		q.Set("hub.lease_seconds", fmt.Sprint(lease))
	}
	resp, err := h.client.Get(callback + "?" + q.Encode())
	if err != nil {
		h.t.Errorf("hub: verify %s: %v", callback, err)
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && string(body) == challenge
}

// signing is how a delivery is signed.
type signing int

const (
	signed signing = iota
	unsigned
	badlySigned
)

// deliver POSTs body to the callback of the (only) subscription to topic.
func (h *testHub) deliver(topic, contentType, body string, how signing) int {
	h.t.Helper()
	h.mu.Lock()
	var callback string
	var sub hubSub
	for cb, s := range h.subs {
		if s.topic == topic {
			callback, sub = cb, s
		}
	}
	h.mu.Unlock()
	if callback == "" {
		h.t.Fatalf("hub: no subscription to %s", topic)
	}
	return h.deliverTo(callback, sub.secret, contentType, body, how)
}

func (h *testHub) deliverTo(callback, secret, contentType, body string, how signing) int {
	h.t.Helper()
	req, err := http.NewRequest(http.MethodPost, callback, bytes.NewBufferString(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Link", `<https://hub.example/>; rel="hub", <`+strings.TrimSpace(callback)+`>; rel="self"`)
	switch how {
	case signed:
		req.Header.Set("X-Hub-Signature", push.Sign("sha256", secret, []byte(body)))
	case badlySigned:
		req.Header.Set("X-Hub-Signature", push.Sign("sha256", secret+"x", []byte(body)))
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// last is the newest request the hub got, and how many it got.
func (h *testHub) last() (url.Values, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.requests) == 0 {
		return nil, 0
	}
	return h.requests[len(h.requests)-1], len(h.requests)
}

func (h *testHub) wasVerified(callback string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.verified[callback]
}
