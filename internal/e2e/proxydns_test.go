package e2e

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// nxBlog is a name the crawler's own resolver cannot resolve here (the
// test checks; .example is reserved and never delegated), which the
// loopback proxy serves: an egress proxy that does the DNS.
const nxBlog = "nxdomain-blog.example"

// privateSources are sources at private literals, and the Host each would
// be asked for: the proxy must never be asked for them, whatever PROXY_DNS
// says.
var privateSources = []struct{ url, host string }{
	{"http://10.0.0.5/", "10.0.0.5"},
	{"http://127.0.0.1:9/", "127.0.0.1"},
	{"http://[::1]/", "[::1]"},
}

// sourceLine is one line of `export --sources`, as far as this check reads it.
type sourceLine struct {
	Source string `json:"source"`
	State  string `json:"state"`
	Robots struct {
		Status int    `json:"status"`
		State  string `json:"state"`
	} `json:"robots"`
}

func exportSources(t *testing.T, env *binarytest.Env) map[string]sourceLine {
	t.Helper()
	r := env.Run(t, time.Minute, "export", "--sources")
	if r.Code != 0 {
		t.Fatalf("export --sources: %d %s", r.Code, r.Stderr)
	}
	out := map[string]sourceLine{}
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var s sourceLine
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("export --sources line %q: %v", line, err)
		}
		out[s.Source] = s
	}
	return out
}

// askedForPrivate is every request the simulated web saw for a private
// literal (through the proxy or not).
func askedForPrivate(web *simweb.Web) []string {
	var out []string
	for _, q := range web.Requests() {
		for _, p := range privateSources {
			h := strings.Trim(p.host, "[]")
			if q.Host == p.host || q.Host == h || strings.HasPrefix(q.Host, h+":") {
				out = append(out, q.Host+q.URI)
			}
		}
	}
	return out
}

// TestBinaryProxyDNS: behind an egress proxy that does the DNS, with the
// guard on, a blog at a name our resolver cannot resolve is crawled with
// PROXY_DNS=proxy; with the default (local) nothing is asked of the proxy
// and nothing is stored as the site's answer, so that switching to proxy
// crawls it at once; private literals are never asked of the proxy.
func TestBinaryProxyDNS(t *testing.T) {
	t.Parallel()
	if addrs, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", nxBlog); err == nil {
		t.Skipf("%s resolves here (%v): the check needs a name our resolver cannot resolve", nxBlog, addrs)
	} else {
		t.Logf("our resolver on %s: %v", nxBlog, err)
	}
	web := simweb.New()
	defer web.Close()
	urls := blog(web.Host(nxBlog), 3)
	blogSource := "http://" + nxBlog + "/"
	env := binarytest.NewEnv(t).Proxy(t, web)
	for _, u := range append([]string{blogSource}, privateURLs()...) {
		if r := env.Run(t, time.Minute, "sources", "add", u); r.Code != 0 {
			t.Fatalf("sources add %s: %d %s", u, r.Code, r.Stderr)
		}
	}

	// PROXY_DNS unset (local): the blog's name is not handed to the proxy,
	// and its failure is ours, not the site's.
	local := env.Run(t, 2*time.Minute, "run", "--once")
	t.Logf("run --once, PROXY_DNS=local: exit %d", local.Code)
	if local.Code == -1 {
		t.Fatalf("run --once did not end: %s", local.Stderr)
	}
	if n := len(web.Requests()); n != 0 {
		t.Errorf("PROXY_DNS=local: the proxy was asked %d requests: %v", n, web.Requests())
	}
	if !strings.Contains(local.Stderr, "PROXY_DNS") {
		t.Errorf("PROXY_DNS=local: the run does not say why the blog was not crawled:\n%s", local.Stderr)
	}
	src := exportSources(t, env)[blogSource]
	if src.Robots.State != "" || src.State == "unreachable" || src.State == "error" {
		t.Errorf("PROXY_DNS=local: stored as the site's answer: %+v", src)
	}
	if r := env.Run(t, time.Minute, "export"); strings.Contains(r.Stdout, nxBlog) {
		t.Errorf("PROXY_DNS=local: posts exported:\n%s", r.Stdout)
	}

	// PROXY_DNS=proxy on the same database: nothing was left to wait out,
	// so the blog is crawled at once, through the proxy, and indexed.
	// The run still fails (exit 1) for the private literals, which the
	// guard refuses, and for nothing else.
	env.Set("CORPUSBOT_PROXY_DNS", "proxy")
	run := env.Run(t, 2*time.Minute, "run", "--once")
	if run.Code != 0 && run.Code != 1 {
		t.Fatalf("run --once, PROXY_DNS=proxy: %d %s", run.Code, run.Stderr)
	}
	if !strings.Contains(run.Stderr, "error_reasons=\"private address refused×3\"") || strings.Contains(run.Stderr, "site "+nxBlog) {
		t.Errorf("run --once, PROXY_DNS=proxy: exit %d, want only the private literals refused:\n%s", run.Code, run.Stderr)
	}
	wantIndexed(t, env, urls)
	if src := exportSources(t, env)[blogSource]; src.Robots.State != "parsed" {
		t.Errorf("PROXY_DNS=proxy: robots %+v, want the file read through the proxy", src.Robots)
	}
	if n := len(web.RequestsTo(nxBlog)); n == 0 {
		t.Errorf("the proxy was never asked for %s", nxBlog)
	}
	if got := askedForPrivate(web); len(got) != 0 {
		t.Errorf("private literals asked of the proxy: %v", got)
	}
	if v := web.Violations("CorpusBot/1.0 (+https://corpus.blog/crawler)", "CorpusBot", func(string) time.Duration { return 50 * time.Millisecond }); len(v) > 0 {
		t.Errorf("politeness violations: %v", v)
	}
	t.Logf("the proxy was asked %d requests, %d for %s, none for %d private literals",
		len(web.Requests()), len(web.RequestsTo(nxBlog)), nxBlog, len(privateSources))
}

func privateURLs() []string {
	var out []string
	for _, p := range privateSources {
		out = append(out, p.url)
	}
	return out
}
