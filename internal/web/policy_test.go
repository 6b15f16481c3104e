package web

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
)

// notPolicy are the settings /crawler/policy.json leaves out, each with
// why: they change nothing a site sees of the crawler. A setting added
// to config must be put here or in policySettings (TestPolicyCoversEverySetting).
var notPolicy = map[string]string{
	"DB":                       "where the crawler keeps its data: the operator's business",
	"DB_WAIT":                  "how long a command waits for its own database; nothing is sent meanwhile",
	"CONCURRENCY":              "how many different sites at once: each site still sees one request at a time, MIN_GAP apart",
	"LOG_LEVEL":                "the operator's logs",
	"LOG_FORMAT":               "the operator's logs",
	"WARC_DIR":                 "a copy of what was fetched, on the operator's disk; nothing more is fetched",
	"TRUSTED_PROXIES":          "the public site's reverse proxies, not the crawler's requests",
	"REQUEST_LOG_RETENTION":    "how long the operator keeps its own request log",
	"METRICS_ALLOWED_NETWORKS": "who may read the public site's /metrics",
}

// policyCase is one setting's non-default value, as the environment gives
// it, and what the document must say at the setting's pointer, written out
// by hand.
type policyCase struct {
	env  string
	want string // JSON
}

// policyCases changes every policy setting from its default, each to a
// value no other takes, so that a field stating the wrong setting shows.
var policyCases = map[string]policyCase{
	"USER_AGENT":           {"PolicyBot/3.1 (+https://bots.example.net/policy)", `"PolicyBot/3.1 (+https://bots.example.net/policy)"`},
	"MIN_GAP":              {"1500ms", `{"seconds": 1.5, "duration": "1.5s"}`},
	"CATALOGUE_PAGE_DELAY": {"7s", `{"seconds": 7, "duration": "7s"}`},
	"CATALOGUE_MAX_PAGES":  {"33", `33`},
	"ROBOTS_TTL":           {"11h", `{"seconds": 39600, "duration": "11h0m0s"}`},
	"ROBOTS_GUESS_TTL":     {"95m", `{"seconds": 5700, "duration": "1h35m0s"}`},
	"DISALLOWED_RECHECK":   {"50h", `{"seconds": 180000, "duration": "50h0m0s"}`},
	"REFUSAL_RECHECK":      {"200h", `{"seconds": 720000, "duration": "200h0m0s"}`},
	"RETRY_ATTEMPTS":       {"4", `4`},
	"RETRY_WINDOW":         {"10h", `{"seconds": 36000, "duration": "10h0m0s"}`},
	"BODY_MAX":             {"3MB", `3000000`},
	"ALLOW_PRIVATE":        {"true", `true`},
	"PROXY_DNS":            {"proxy", `"proxy"`},
	"RUN_INTERVAL":         {"20m", `{"seconds": 1200, "duration": "20m0s"}`},
	"FEED_SCHEDULE":        {"fixed", `"fixed"`},
	"FEED_INTERVAL":        {"13h", `{"seconds": 46800, "duration": "13h0m0s"}`},
	"FEED_MAX_INTERVAL":    {"100h", `{"seconds": 360000, "duration": "100h0m0s"}`},
	"FEED_BUDGET":          {"77", `77`},
	"SITEMAP_INTERVAL":     {"30h", `{"seconds": 108000, "duration": "30h0m0s"}`},
	"SITEMAP_RECHECK":      {"60h", `{"seconds": 216000, "duration": "60h0m0s"}`},
	"PUBLIC_URL":           {"https://public.example.org", `"https://public.example.org"`},
	"PUSH_SAFETY_POLL":     {"40h", `{"seconds": 144000, "duration": "40h0m0s"}`},
	"PUSH_LEASE":           {"90h", `{"seconds": 324000, "duration": "90h0m0s"}`},
}

// pointer resolves a JSON pointer (RFC 6901) in a decoded document.
func pointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v in %.300s", err, s)
	}
	return v
}

// TestPolicyJSONFollowsSettings serves /crawler/policy.json under settings
// loaded from the environment, every policy setting off its default, and
// checks that the document states each one's value in force where its
// "settings" index says, and the rest of what it promises.
func TestPolicyJSONFollowsSettings(t *testing.T) {
	env := map[string]string{}
	for name, c := range policyCases {
		env[config.EnvPrefix+name] = c.env
	}
	st, err := config.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range st.Entries() {
		if _, ok := policyCases[e.Name]; ok && e.Value == e.Default {
			t.Errorf("%s=%s is its default: the case proves nothing", e.Name, e.Value)
		}
	}
	egress := []netip.Prefix{netip.MustParsePrefix("198.51.100.0/29"), netip.MustParsePrefix("2001:db8:7::/48")}
	r := newRig(t, func(o *Options) {
		o.Settings = st
		o.EgressPrefixes = egress
		o.EgressUpdated = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
		o.VerifyDomains = []string{"crawl.example.net"}
	})
	res := r.get("/crawler/policy.json")
	if res.Code != http.StatusOK {
		t.Fatalf("status %d\n%s", res.Code, res.Body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=3600" {
		t.Errorf("Cache-Control %q", cc)
	}
	doc := decodeJSON(t, res.Body)

	index, _ := pointer(doc, "/settings")
	idx, _ := index.(map[string]any)
	if len(idx) != len(policyCases) {
		t.Errorf("settings index names %d settings, the cases %d", len(idx), len(policyCases))
	}
	for name, c := range policyCases {
		ptr, _ := idx[name].(string)
		got, ok := pointer(doc, ptr)
		if !ok {
			t.Errorf("%s: the index points at %q, which is not in the document", name, ptr)
			continue
		}
		if want := decodeJSON(t, c.want); !reflect.DeepEqual(got, want) {
			t.Errorf("%s=%s: %s is %v, want %v", name, c.env, ptr, got, want)
		}
	}

	// What the settings imply, and what the code fixes.
	want := map[string]string{
		"/schema":        `"corpusbot-crawl-policy"`,
		"/version":       `1`,
		"/product_token": `"PolicyBot"`,
		"/crawler_url":   `"https://bots.example.net/policy"`,
		"/push/websub":   `true`,
		// Read off the code's own rules, so written out here by hand.
		"/pace/max_in_flight_per_site":                 `1`,
		"/pace/crawl_delay/max":                        `{"seconds": 86400, "duration": "24h0m0s"}`,
		"/pace/crawl_delay/waited_within_run_up_to":    `{"seconds": 120, "duration": "2m0s"}`,
		"/pace/back_off/max_added_gap":                 `{"seconds": 3600, "duration": "1h0m0s"}`,
		"/pace/back_off/retry_after_statuses":          `[{"from": 429, "to": 429}, {"from": 503, "to": 503}]`,
		"/retries/transient_statuses":                  `[{"from": 408, "to": 408}, {"from": 429, "to": 429}, {"from": 500, "to": 599}]`,
		"/refusal/status":                              `403`,
		"/refusal/consecutive":                         `3`,
		"/refusal/only_if_never_served":                `true`,
		"/limits/max_redirects":                        `5`,
		"/limits/sitemap_max_bytes":                    `52428800`,
		"/limits/sitemap_max_entries":                  `50000`,
		"/robots_txt/max_redirects":                    `5`,
		"/robots_txt/max_bytes":                        `1048576`,
		"/robots_txt/stale_copy_max_age":               `{"seconds": 2592000, "duration": "720h0m0s"}`,
		"/robots_txt/network_error":                    `{"state": "unreachable", "obeyed": "disallow_all", "cached_for": "guess_ttl"}`,
		"/requests/accept_encoding":                    `"gzip, br"`,
		"/requests/schemes":                            `["http", "https"]`,
		"/requests/cookies":                            `false`,
		"/requests/credentials":                        `false`,
		"/requests/content_types/robots/any":           `true`,
		"/requests/content_types/page/read":            `["application/xhtml+xml", "text/html"]`,
		"/requests/content_types/page/untyped_sniffed": `true`,
		"/never_fetched/opted_out_sites":               `true`,
		"/egress":                                      `{"creationTime": "2026-11-30T08:00:00.000000", "prefixes": [{"ipv4Prefix": "198.51.100.0/29"}, {"ipv6Prefix": "2001:db8:7::/48"}]}`,
		"/verification/reverse_dns_domains":            `["crawl.example.net"]`,
		"/verification/ips":                            `"/crawler/ips.json"`,
		"/opt_out/robots_txt":                          `"User-agent: PolicyBot\nDisallow: /\n"`,
		"/opt_out/form":                                `"/opt-out"`,
		"/opt_out/claim":                               `"/claim"`,
	}
	for ptr, w := range want {
		got, ok := pointer(doc, ptr)
		if !ok {
			t.Errorf("%s missing", ptr)
			continue
		}
		if w := decodeJSON(t, w); !reflect.DeepEqual(got, w) {
			t.Errorf("%s is %v, want %v", ptr, got, w)
		}
	}
	// The egress addresses are ips.json's, to the byte.
	if got, _ := pointer(doc, "/egress"); !reflect.DeepEqual(got, decodeJSON(t, r.get("/crawler/ips.json").Body)) {
		t.Errorf("egress %v differs from ips.json", got)
	}

	// robots.txt: every status from 100 to 599 in exactly one range, and
	// the answers RFC 9309 and our one stricter rule give meaning to.
	var policy policyDoc
	if err := json.Unmarshal([]byte(res.Body), &policy); err != nil {
		t.Fatal(err)
	}
	next := 100
	for _, ru := range policy.Robots.Statuses {
		if ru.From != next || ru.To < ru.From {
			t.Fatalf("robots statuses not contiguous at %d: %+v", next, policy.Robots.Statuses)
		}
		next = ru.To + 1
	}
	if next != 600 {
		t.Errorf("robots statuses end at %d", next-1)
	}
	robotsRule := func(status int) string {
		for _, ru := range policy.Robots.Statuses {
			if ru.From <= status && status <= ru.To {
				return ru.State + " " + ru.Obeyed + " " + ru.CachedFor
			}
		}
		return ""
	}
	for status, w := range map[int]string{
		200: "parsed file ttl", 204: "parsed file ttl", 301: "redirect follow ", 308: "redirect follow ",
		401: "refused disallow_all ttl", 403: "refused disallow_all ttl", 404: "no-file allow_all guess_ttl",
		410: "no-file allow_all guess_ttl", 408: "unreachable disallow_all guess_ttl", 429: "unreachable disallow_all guess_ttl",
		500: "unreachable disallow_all guess_ttl", 503: "unreachable disallow_all guess_ttl",
	} {
		if got := robotsRule(status); got != w {
			t.Errorf("robots.txt answering %d: %q, want %q", status, got, w)
		}
	}

	// The retry delays are the schedule's: one fewer than the tries, growing,
	// the last try at the end of the window.
	d := policy.Retries.Delays
	if len(d) != 3 {
		t.Fatalf("retry delays %+v, want 3 for RETRY_ATTEMPTS=4", d)
	}
	var sum float64
	for i, x := range d {
		if i > 0 && x.Seconds <= d[i-1].Seconds {
			t.Errorf("retry delays do not grow: %+v", d)
		}
		if p, err := time.ParseDuration(x.Duration); err != nil || p.Seconds() != x.Seconds {
			t.Errorf("delay %+v: duration and seconds disagree (%v)", x, err)
		}
		sum += x.Seconds
	}
	if sum < 36000*0.99 || sum > 36000*1.01 {
		t.Errorf("retry delays sum to %.0fs, want RETRY_WINDOW's 36000s", sum)
	}
	if d[0].Seconds > 30 {
		t.Errorf("first retry after %vs, want at most 30s", d[0].Seconds)
	}

	// What is never fetched: the guard's own lists.
	priv := policy.NeverFetched.PrivateAddresses
	for _, p := range []string{"127.0.0.0/8", "10.0.0.0/8", "169.254.0.0/16", "::1/128", "fc00::/7"} {
		if !slices.Contains(priv.RefusedPrefixes, p) {
			t.Errorf("refused prefixes %v lack %s", priv.RefusedPrefixes, p)
		}
	}
	if !slices.Contains(priv.RefusedNames, "localhost") || !slices.Contains(priv.RefusedNames, "internal") {
		t.Errorf("refused names %v", priv.RefusedNames)
	}
	for p, tr := range policy.Requests.ContentTypes {
		if !tr.Any && len(tr.Read) == 0 {
			t.Errorf("content types of %s: nothing read", p)
		}
	}
	if feed := policy.Requests.ContentTypes["feed"]; !slices.Contains(feed.Read, "application/rss+xml") ||
		!slices.Contains(feed.Sniffed, "text/html") || !slices.Equal(feed.SniffedSuffixes, []string{"+xml"}) {
		t.Errorf("feed content types %+v", feed)
	}

	// Every route named is the site's own.
	for _, path := range []string{policy.Routes.Crawler, policy.Routes.Policy, policy.Routes.IPs, policy.Routes.OptOut,
		policy.Routes.Claim, policy.Routes.API, policy.Verification.IPs, policy.OptOut.Form, policy.OptOut.Claim} {
		if res := r.get(path); res.Code != http.StatusOK {
			t.Errorf("route %q: status %d", path, res.Code)
		}
	}
	// This site takes no IndexNow submissions: the document names no route.
	if policy.Routes.IndexNow != "" || policy.Push.IndexNow != "" {
		t.Errorf("IndexNow off, yet the document names %q", policy.Routes.IndexNow)
	}
}

// TestPolicyIndexNowRoute: a site that takes IndexNow submissions names
// the route, and the route answers.
func TestPolicyIndexNowRoute(t *testing.T) {
	r, _, _ := indexNowRig(t, RateLimit{Burst: 1000, Every: time.Millisecond})
	var policy policyDoc
	if err := json.Unmarshal([]byte(r.get("/crawler/policy.json").Body), &policy); err != nil {
		t.Fatal(err)
	}
	if policy.Routes.IndexNow != "/indexnow" || policy.Push.IndexNow != "/indexnow" {
		t.Fatalf("IndexNow on, routes %+v push %+v", policy.Routes, policy.Push)
	}
	if res := r.get(policy.Routes.IndexNow + "?url=https://blog.example/a&key=abcd1234"); res.Code != http.StatusOK {
		t.Errorf("route %q: status %d %s", policy.Routes.IndexNow, res.Code, res.Body)
	}
}

// TestPolicyDefaults: under the defaults, the document states the
// contract's values.
func TestPolicyDefaults(t *testing.T) {
	r := newRig(t)
	doc := decodeJSON(t, r.get("/crawler/policy.json").Body)
	for ptr, w := range map[string]string{
		"/user_agent":                `"CorpusBot/1.0 (+https://corpus.blog/crawler)"`,
		"/product_token":             `"CorpusBot"`,
		"/pace/min_gap":              `{"seconds": 1, "duration": "1s"}`,
		"/pace/catalogue_page_delay": `{"seconds": 2, "duration": "2s"}`,
		"/robots_txt/ttl":            `{"seconds": 86400, "duration": "24h0m0s"}`,
		"/limits/body_max_bytes":     `5000000`,
		"/push/websub":               `false`,
		"/never_fetched/private_addresses/allow_private": `false`,
		"/egress/prefixes":                  `[]`,
		"/verification/reverse_dns_domains": `["corpus.blog"]`,
	} {
		got, ok := pointer(doc, ptr)
		if !ok {
			t.Errorf("%s missing", ptr)
			continue
		}
		if w := decodeJSON(t, w); !reflect.DeepEqual(got, w) {
			t.Errorf("%s is %v, want %v", ptr, got, w)
		}
	}
}

// TestPolicyCoversEverySetting fails when a setting is added to config
// without being either stated in /crawler/policy.json (policySettings, and
// a case of TestPolicyJSONFollowsSettings) or listed as not policy, with
// why.
func TestPolicyCoversEverySetting(t *testing.T) {
	names := map[string]bool{}
	for _, e := range config.Defaults().Entries() {
		names[e.Name] = true
		_, stated := policySettings[e.Name]
		_, left := notPolicy[e.Name]
		switch {
		case stated && left:
			t.Errorf("%s is both in policy.json and on the not-policy list", e.Name)
		case !stated && !left:
			t.Errorf("setting %s is neither in policy.json (policySettings) nor on the not-policy list: "+
				"if it changes what a site sees of the crawler, state it in the document", e.Name)
		}
		if _, ok := policyCases[e.Name]; stated && !ok {
			t.Errorf("%s has no case in TestPolicyJSONFollowsSettings", e.Name)
		}
	}
	for n := range policySettings {
		if !names[n] {
			t.Errorf("policySettings names %s, which is no setting", n)
		}
	}
	for n := range notPolicy {
		if !names[n] {
			t.Errorf("the not-policy list names %s, which is no setting", n)
		}
	}
}
