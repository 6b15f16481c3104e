package web

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/model"
)

var hrefRE = regexp.MustCompile(`(?:href|action)="([^"]+)"`)

// TestNoBodyTextServed walks every page reachable from the home page (every
// link, every page of every list, every site), every API response and the
// answers to the forms, and asserts that none holds any stored post text or
// the stored internal error — whole, escaped for HTML or JSON, or by its
// distinctive words.
func TestNoBodyTextServed(t *testing.T) {
	r := newRig(t)
	var needles []string
	for _, text := range append(slices.Clone(secretTexts), secretError) {
		js, _ := json.Marshal(text)
		needles = append(needles, text, html.EscapeString(text), strings.Trim(string(js), `"`))
		for _, w := range strings.Fields(text) {
			if len(w) >= 10 || strings.Contains(w, "-") {
				needles = append(needles, w)
			}
		}
	}
	leaks := func(body string) []string {
		var found []string
		for _, n := range needles {
			if strings.Contains(body, n) {
				found = append(found, n)
			}
		}
		return found
	}
	check := func(what, body string) {
		t.Helper()
		if found := leaks(body); len(found) > 0 {
			t.Errorf("%s serves stored text: %q", what, found)
		}
	}
	// The check can fail: a page with a text in it, raw or escaped, is caught.
	for _, text := range secretTexts {
		if len(leaks("<p>"+html.EscapeString(text)+"</p>")) == 0 {
			t.Fatalf("the check misses %q", text)
		}
	}

	// A verified claim, so that its management page is walked too.
	path, token := r.startClaim("alpha.example")
	r.txt.set("_corpusbot-claim.alpha.example", "corpusbot-claim="+token)
	if res := r.post(path+"/verify", nil); res.Code != 303 {
		t.Fatalf("verify: %d", res.Code)
	}

	seen := map[string]bool{}
	queue := []string{"/", "/api", path, "/api/coverage", "/api/crawler", "/crawler/ips.json", "/crawler/policy.json", "/api/sources?limit=1"}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		res := r.get(p)
		if res.Code >= 500 {
			t.Errorf("%s: %d", p, res.Code)
		}
		check(p, res.Body)
		for _, m := range hrefRE.FindAllStringSubmatch(res.Body, -1) {
			u, err := url.Parse(html.UnescapeString(m[1]))
			if err != nil || u.IsAbs() || !strings.HasPrefix(u.Path, "/") || strings.HasSuffix(u.Path, "/verify") ||
				strings.HasSuffix(u.Path, "/pause") || strings.HasSuffix(u.Path, "/resume") {
				continue
			}
			queue = append(queue, u.RequestURI())
		}
		if strings.HasPrefix(p, "/api/sources") {
			var pg struct {
				NextURL string              `json:"next_url"`
				Sites   []model.SiteSummary `json:"sites"`
			}
			if json.Unmarshal([]byte(res.Body), &pg) == nil {
				if pg.NextURL != "" {
					queue = append(queue, pg.NextURL)
				}
				for _, s := range pg.Sites {
					queue = append(queue, "/api/sources/"+s.Site, "/sources/"+s.Site)
				}
			}
		}
	}
	for _, want := range []string{"/sources/alpha.example", "/sources/delta.example", "/api/sources/gamma.blogspot.com", "/coverage", "/crawler", "/sources?state=disallowed"} {
		if !seen[want] && !seen[want+"?"] {
			found := false
			for p := range seen {
				if strings.HasPrefix(p, want) {
					found = true
				}
			}
			if !found {
				t.Errorf("the walk never reached %s", want)
			}
		}
	}
	if len(seen) < 20 {
		t.Errorf("walked only %d pages", len(seen))
	}

	// The forms' answers.
	check("opt-out", r.post("/opt-out", url.Values{"site": {"delta.example"}}).Body)
	check("claim pause", r.get(r.post(path+"/pause", url.Values{"source": {strconv.FormatInt(r.ids["alpha"], 10)}}).Header.Get("Location")).Body)
	check("verify failure", r.post(r.mustClaim("delta.example")+"/verify", nil).Body)
	check("sources after opt-out", r.get("/sources/delta.example").Body)
	t.Logf("walked %d pages and API responses", len(seen))
}

func (r *rig) mustClaim(site string) string {
	p, _ := r.startClaim(site)
	return p
}
