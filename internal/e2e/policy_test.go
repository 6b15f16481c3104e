package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
)

// getWhenUp GETs url, waiting for the server to listen; it returns the
// response, its body read.
func getWhenUp(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			return res, body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBinaryServePolicy: `serve` under settings off their defaults, from
// the environment and from its flags, publishes /crawler/policy.json with
// each of them in force, at the place its "settings" index names, and the
// --egress prefixes as ips.json has them.
func TestBinaryServePolicy(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	// Each value is the setting's off its default, and no two alike.
	cases := map[string]struct{ env, want string }{
		"MIN_GAP":              {"2500ms", `{"seconds": 2.5, "duration": "2.5s"}`},
		"CATALOGUE_PAGE_DELAY": {"9s", `{"seconds": 9, "duration": "9s"}`},
		"CATALOGUE_MAX_PAGES":  {"12", `12`},
		"ROBOTS_TTL":           {"7h", `{"seconds": 25200, "duration": "7h0m0s"}`},
		"ROBOTS_GUESS_TTL":     {"45m", `{"seconds": 2700, "duration": "45m0s"}`},
		"REFUSAL_RECHECK":      {"36h", `{"seconds": 129600, "duration": "36h0m0s"}`},
		"RETRY_ATTEMPTS":       {"3", `3`},
		"RETRY_WINDOW":         {"5h", `{"seconds": 18000, "duration": "5h0m0s"}`},
		"BODY_MAX":             {"2MB", `2000000`},
		"ALLOW_PRIVATE":        {"true", `true`},
		"FEED_SCHEDULE":        {"fixed", `"fixed"`},
		"DISALLOWED_RECHECK":   {"80h", `{"seconds": 288000, "duration": "80h0m0s"}`},
	}
	for name, c := range cases {
		env.Set("CORPUSBOT_"+name, c.env)
	}
	addr := freeAddr(t)
	stop := env.Start(t, "serve", "--addr", addr, "--user-agent", "ProofBot/2.0 (+https://proof.example/bot)",
		"--egress", "192.0.2.0/28,2001:db8:5::/48", "--verify-domain", "crawl.proof.example")
	res, body := getWhenUp(t, "http://"+addr+"/crawler/policy.json")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
		res.Header.Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("policy.json: %d %v\n%.300s", res.StatusCode, res.Header, body)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%v in %.300s", err, body)
	}
	at := func(ptr string) (any, bool) {
		var v any = doc
		for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[tok]; !ok {
				return nil, false
			}
		}
		return v, true
	}
	index, _ := doc["settings"].(map[string]any)
	cases["USER_AGENT"] = struct{ env, want string }{"", `"ProofBot/2.0 (+https://proof.example/bot)"`}
	for name, c := range cases {
		ptr, _ := index[name].(string)
		got, ok := at(ptr)
		var want any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: at %q the document says %v, want %v", name, ptr, got, want)
		}
	}
	// Every setting the index names is in the document.
	for name, p := range index {
		if _, ok := at(p.(string)); !ok {
			t.Errorf("settings index: %s at %q, not in the document", name, p)
		}
	}
	if got, _ := at("/product_token"); got != "ProofBot" {
		t.Errorf("product_token %v", got)
	}
	if got, _ := at("/verification/reverse_dns_domains"); !reflect.DeepEqual(got, []any{"crawl.proof.example"}) {
		t.Errorf("reverse_dns_domains %v", got)
	}
	_, ips := getWhenUp(t, "http://"+addr+"/crawler/ips.json")
	var ipsDoc any
	if err := json.Unmarshal(ips, &ipsDoc); err != nil {
		t.Fatal(err)
	}
	if got, _ := at("/egress"); !reflect.DeepEqual(got, ipsDoc) || !strings.Contains(string(ips), "2001:db8:5::/48") {
		t.Errorf("egress %v, ips.json %s", got, ips)
	}
	// The crawler page links it.
	if _, page := getWhenUp(t, "http://"+addr+"/crawler"); !strings.Contains(string(page), `href="/crawler/policy.json"`) {
		t.Errorf("the crawler page does not link /crawler/policy.json")
	}
	if r := stop(10 * time.Second); r.Code != 0 {
		t.Errorf("serve: exit %d %s", r.Code, r.Stderr)
	}
}
