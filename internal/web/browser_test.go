package web

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// chromiumPath is the browser the end-to-end test drives: $CORPUSBOT_CHROMIUM,
// else Debian's /usr/bin/chromium, else chromium on PATH.
func chromiumPath() string {
	if p := os.Getenv("CORPUSBOT_CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, _ := exec.LookPath("chromium")
	return p
}

// artifactDir is where screenshots go: $CORPUSBOT_ARTIFACTS/web when set,
// else the test's artifact directory (kept with `go test -artifacts
// -outputdir DIR`, a temporary directory otherwise).
func artifactDir(t *testing.T) string {
	if d := os.Getenv("CORPUSBOT_ARTIFACTS"); d != "" {
		dir := filepath.Join(d, "web")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

// browserDataNow is the date the browser test's data runs up to, far
// from testNow (the clock) and from the wall clock.
var browserDataNow = time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)

// TestBrowser opens the main pages in headless Chromium against the site
// served over the seeded SQLite store on loopback, saves a full-page screenshot of each,
// checks that the stylesheet applies and that the browser reports no
// Content-Security-Policy violation or script error, then submits the
// opt-out form as a visitor would and checks both the confirmation and the
// paused sources.
func TestBrowser(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install chromium, or set CORPUSBOT_CHROMIUM); .ci/run installs it")
	}
	// The data lies months before the clock (simulated dates, as the
	// demo's): the coverage page's screenshot shows the charts over the
	// data's own range.
	r := newRigAt(t, browserDataNow)
	ts := httptest.NewServer(r.srv) // 127.0.0.1 only
	defer ts.Close()
	dir := artifactDir(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// The machine has no internet: keep Chromium from trying.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	// Collect what the browser logs: a CSP violation or a failed stylesheet
	// shows up here.
	var mu sync.Mutex
	var logged []string
	entries := chromedp.Events(bctx, log.EntryAdded)
	go func() {
		for ev, err := range entries {
			if err != nil {
				return
			}
			mu.Lock()
			logged = append(logged, string(ev.Entry.Level)+": "+ev.Entry.Text+" "+ev.Entry.URL)
			mu.Unlock()
		}
	}()

	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pages := []struct{ path, name, heading string }{
		{"/", "home", "A polite crawler for a corpus of blogs"},
		{"/crawler", "crawler", "The crawler"},
		{"/coverage", "coverage", "Coverage"},
		{"/sources", "sources", "Sources"},
		{"/sources/alpha.example", "source-alpha", "alpha.example"},
		{"/claim", "claim", "Claim your site"},
		{"/api", "api", "API"},
		{"/opt-out", "opt-out", "Opt out"},
	}
	for _, p := range pages {
		if err := chromedp.Do(bctx, chromedp.Navigate(ts.URL+p.path), chromedp.WaitVisible("main h1")); err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		h1, err := chromedp.Run(bctx, chromedp.Text("main h1"))
		if err != nil || strings.TrimSpace(h1) != p.heading {
			t.Errorf("%s: heading %q, %v", p.path, h1, err)
		}
		// The stylesheet applied (CSP lets it through; nothing inline is needed).
		border, err := chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector("header.top")).borderBottomStyle`))
		if err != nil || border != "solid" {
			t.Errorf("%s: stylesheet not applied (header border %q, %v)", p.path, border, err)
		}
		shoot(p.name)
	}
	// The charts are real SVG with an accessible name.
	if err := chromedp.Do(bctx, chromedp.Navigate(ts.URL+"/coverage"), chromedp.WaitVisible("#requests-day svg")); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.chart svg[role=img] > title").length`))
	if err != nil || n != 3 {
		t.Errorf("charts with titles: %d, %v", n, err)
	}
	// Each chart draws bars from the data, none says it has nothing to show.
	for _, id := range []string{"posts-month", "sources-state", "requests-day"} {
		bars, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("#`+id+` svg rect").length`))
		caption, _ := chromedp.Run(bctx, chromedp.Text("#"+id+" figcaption"))
		if err != nil || bars == 0 || strings.Contains(caption, "nothing to show") {
			t.Errorf("chart %s: %d bars, caption %q, %v", id, bars, caption, err)
		}
	}

	// A mistake first: a public suffix is refused with a clear message.
	if err := chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/opt-out"),
		chromedp.WaitVisible("#site"),
		chromedp.SendKeys("#site", "github.io"),
		chromedp.Click("form.form button"),
		chromedp.WaitVisible("#site-error"),
	); err != nil {
		t.Fatalf("opt-out error path: %v", err)
	}
	msg, _ := chromedp.Run(bctx, chromedp.Text("#site-error"))
	if !strings.Contains(msg, "public suffix") {
		t.Errorf("error message %q", msg)
	}
	shoot("opt-out-error")

	// Then the real thing, typed as an owner would: a URL of a subdomain.
	if err := chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/opt-out"),
		chromedp.WaitVisible("#site"),
		chromedp.SendKeys("#site", "https://blog.alpha.example/2026/some-post"),
		chromedp.Click("form.form button"),
		chromedp.WaitVisible(".confirm h1"),
	); err != nil {
		t.Fatalf("opt-out: %v", err)
	}
	confirm, err := chromedp.Run(bctx, chromedp.Text(".confirm"))
	if err != nil || !strings.Contains(confirm, "alpha.example is opted out") || !strings.Contains(confirm, "2 sources paused now") {
		t.Errorf("confirmation %q, %v", confirm, err)
	}
	shoot("opt-out-done")
	if !r.data.SiteOptedOut("alpha.example") || !r.data.SourcePaused(r.ids["alpha"]) || !r.data.SourcePaused(r.ids["alpha-blog"]) {
		t.Error("the form returned, but the site's sources are not paused")
	}
	if r.data.SourcePaused(r.ids["beta"]) {
		t.Error("another site was paused")
	}

	// Claiming, by DNS: start a claim, publish its token, verify, pause a source.
	if err := chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/claim"),
		chromedp.WaitVisible("#site"),
		chromedp.SendKeys("#site", "beta.example"),
		chromedp.Click("form.form button"),
		chromedp.WaitVisible("form[action$='/verify'] button"),
	); err != nil {
		t.Fatalf("claim: %v", err)
	}
	shoot("claim-pending")
	body, err := chromedp.Run(bctx, chromedp.Text("main"))
	m := tokenRE.FindStringSubmatch(body)
	if err != nil || m == nil {
		t.Fatalf("no token on the claim page: %v\n%s", err, body)
	}
	r.txt.set("_corpusbot-claim.beta.example", "corpusbot-claim="+m[1])
	if err := chromedp.Do(bctx,
		chromedp.Click("form[action$='/verify'] button"),
		chromedp.WaitVisible("form[action$='/pause'] button.small"),
		chromedp.Click("form[action$='/pause'] button.small"),
		chromedp.WaitVisible("form[action$='/resume'] button.small"),
	); err != nil {
		t.Fatalf("claim verify and pause: %v", err)
	}
	shoot("claim-verified")
	if !r.data.SourcePaused(r.ids["beta"]) {
		t.Error("pausing from the claim page did not pause the source")
	}

	mu.Lock()
	defer mu.Unlock()
	for _, l := range logged {
		// The 400 of the deliberate mistake above is the one error expected.
		expected := strings.Contains(l, "status of 400") && strings.HasSuffix(l, "/opt-out")
		if strings.Contains(l, "Content Security Policy") || strings.HasPrefix(l, "error") && !expected && !strings.Contains(l, "favicon") {
			t.Errorf("browser logged: %s", l)
		}
	}
	t.Logf("screenshots in %s", dir)
}
