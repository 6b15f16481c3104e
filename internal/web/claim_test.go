package web

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var tokenRE = regexp.MustCompile(`corpusbot-claim=([A-Z2-7]{26})`)

// startClaim creates a claim for site and returns its page path and token.
func (r *rig) startClaim(site string) (path, token string) {
	r.t.Helper()
	res := r.post("/claim", url.Values{"site": {site}})
	if res.Code != http.StatusSeeOther {
		r.t.Fatalf("create claim: %d %s", res.Code, res.Body)
	}
	path = res.Header.Get("Location")
	page := r.get(path)
	if page.Code != 200 || page.Header.Get("Cache-Control") != "no-store" {
		r.t.Fatalf("claim page: %d %v", page.Code, page.Header)
	}
	m := tokenRE.FindStringSubmatch(page.Body)
	if m == nil {
		r.t.Fatalf("no token on the claim page:\n%s", page.Body)
	}
	return path, m[1]
}

func TestClaimByDNS(t *testing.T) {
	r := newRig(t)
	path, token := r.startClaim("https://blog.alpha.example/")
	secret := strings.TrimPrefix(path, "/claim/")
	if !validSecret(secret) {
		t.Fatalf("secret %q", secret)
	}
	c, err := r.data.Claim(t.Context(), claimID(secret))
	if err != nil || c.Site != "alpha.example" || c.Token != token || c.ID == secret || strings.Contains(c.ID, secret) {
		t.Fatalf("stored claim %+v, %v", c, err)
	}

	// Nothing published yet.
	res := r.post(path+"/verify", nil)
	if res.Code != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "no TXT record found at _corpusbot-claim.alpha.example") {
		t.Fatalf("unpublished: %d %s", res.Code, res.Body)
	}
	// Acting before verifying is refused.
	if res := r.post(path+"/pause", url.Values{"source": {"all"}}); res.Code != http.StatusForbidden {
		t.Fatalf("pause before verify: %d", res.Code)
	}
	// A record with another token.
	r.txt.set("_corpusbot-claim.alpha.example", "v=spf1 -all", "corpusbot-claim=WRONGTOKENWRONGTOKENWRONG2")
	res = r.post(path+"/verify", nil)
	if res.Code != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "2 TXT record(s)") {
		t.Fatalf("wrong token: %d %s", res.Code, res.Body)
	}
	// The right one.
	r.txt.set("_corpusbot-claim.alpha.example", "v=spf1 -all", "corpusbot-claim="+token)
	res = r.post(path+"/verify", nil)
	if res.Code != http.StatusSeeOther || res.Header.Get("Location") != path+"?done=verified" {
		t.Fatalf("verify: %d %s", res.Code, res.Body)
	}
	page := r.get(path + "?done=verified")
	if !strings.Contains(page.Body, "Verified.") || !strings.Contains(page.Body, "https://blog.alpha.example/") {
		t.Fatalf("verified page:\n%s", page.Body)
	}

	// Pause and resume one source.
	id := strconv.FormatInt(r.ids["alpha"], 10)
	if res := r.post(path+"/pause", url.Values{"source": {id}}); res.Code != http.StatusSeeOther || !r.data.SourcePaused(r.ids["alpha"]) {
		t.Fatalf("pause: %d", res.Code)
	}
	if r.data.SourcePaused(r.ids["alpha-blog"]) {
		t.Fatal("pausing one source paused another")
	}
	if res := r.post(path+"/resume", url.Values{"source": {id}}); res.Code != http.StatusSeeOther || r.data.SourcePaused(r.ids["alpha"]) {
		t.Fatalf("resume: %d", res.Code)
	}
	// Another site's source, or junk, is refused.
	for _, bad := range []string{strconv.FormatInt(r.ids["beta"], 10), "x", "", "999"} {
		if res := r.post(path+"/pause", url.Values{"source": {bad}}); res.Code != http.StatusBadRequest {
			t.Errorf("pause %q: %d", bad, res.Code)
		}
	}
	if r.data.SourcePaused(r.ids["beta"]) {
		t.Fatal("a claim paused another site's source")
	}
	// The whole site, and back — undoing an anonymous opt-out too.
	r.post("/opt-out", url.Values{"site": {"alpha.example"}})
	if res := r.post(path+"/resume", url.Values{"source": {"all"}}); res.Code != http.StatusSeeOther {
		t.Fatalf("resume all: %d", res.Code)
	}
	if r.data.SiteOptedOut("alpha.example") || r.data.SourcePaused(r.ids["alpha"]) || r.data.SourcePaused(r.ids["alpha-blog"]) {
		t.Fatal("resume all left something paused")
	}
	if res := r.post(path+"/pause", url.Values{"source": {"all"}}); res.Code != http.StatusSeeOther || !r.data.SiteOptedOut("alpha.example") || !r.data.SourcePaused(r.ids["alpha-blog"]) {
		t.Fatalf("pause all: %d", res.Code)
	}

	// Verification grows old: acting needs a fresh proof.
	r.clock.Add(91 * 24 * time.Hour)
	if res := r.post(path+"/resume", url.Values{"source": {"all"}}); res.Code != http.StatusForbidden {
		t.Fatalf("stale claim acted: %d", res.Code)
	}
	if !strings.Contains(r.get(path).Body, "Prove control again") {
		t.Error("stale claim page does not ask for a new proof")
	}
	if res := r.post(path+"/verify", nil); res.Code != http.StatusSeeOther {
		t.Fatalf("re-verify: %d", res.Code)
	}
}

func TestClaimByFile(t *testing.T) {
	r := newRig(t)
	path, token := r.startClaim("beta.example")
	r.files.set("https://www.beta.example/.well-known/corpusbot-claim.txt", "\ufeff# corpusbot claim\r\n\r\ncorpusbot-claim="+token+"\r\n")
	res := r.post(path+"/verify", nil)
	if res.Code != http.StatusSeeOther {
		t.Fatalf("verify: %d %s", res.Code, res.Body)
	}
	c, _ := r.data.Claim(t.Context(), claimID(strings.TrimPrefix(path, "/claim/")))
	if c.Method != methodFile || !c.Verified.Equal(testNow) {
		t.Errorf("claim %+v", c)
	}
	if !slices.Equal(r.files.asked, []string{"https://beta.example/.well-known/corpusbot-claim.txt", "https://www.beta.example/.well-known/corpusbot-claim.txt"}) {
		t.Errorf("fetched %v", r.files.asked)
	}
}

func TestClaimWrongFileToken(t *testing.T) {
	r := newRig(t)
	path, _ := r.startClaim("beta.example")
	r.files.set("https://beta.example/.well-known/corpusbot-claim.txt", "corpusbot-claim=SOMEONEELSESTOKEN234567ABCD\n")
	res := r.post(path+"/verify", nil)
	if res.Code != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "does not hold this claim") || !strings.Contains(res.Body, "404 Not Found") {
		t.Fatalf("%d %s", res.Code, res.Body)
	}
}

func TestClaimExpires(t *testing.T) {
	r := newRig(t)
	path, token := r.startClaim("beta.example")
	r.clock.Add(72*time.Hour + time.Second)
	r.txt.set("_corpusbot-claim.beta.example", "corpusbot-claim="+token)
	res := r.post(path+"/verify", nil)
	if res.Code != http.StatusGone || !strings.Contains(res.Body, "This claim has expired") {
		t.Fatalf("%d %s", res.Code, res.Body)
	}
	if r.txt.calls != 0 {
		t.Error("an expired claim still looked up DNS")
	}
}

func TestClaimWithoutProofServices(t *testing.T) {
	r := newRig(t, func(o *Options) { o.Resolver, o.ClaimFetcher = nil, nil })
	path, _ := r.startClaim("beta.example")
	res := r.post(path+"/verify", nil)
	if res.Code != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "cannot look up DNS") || !strings.Contains(res.Body, "cannot fetch claim files") {
		t.Fatalf("%d %s", res.Code, res.Body)
	}
}

func TestClaimFormErrors(t *testing.T) {
	r := newRig(t)
	res := r.post("/claim", url.Values{"site": {"github.io"}})
	if res.Code != 400 || !strings.Contains(res.Body, "public suffix") {
		t.Errorf("%d", res.Code)
	}
	for _, p := range []string{"/claim/" + strings.Repeat("A", 52), "/claim/short", "/claim/" + strings.Repeat("a", 52)} {
		if res := r.get(p); res.Code != 404 {
			t.Errorf("%s: %d", p, res.Code)
		}
		if res := r.post(p+"/verify", nil); res.Code != 404 {
			t.Errorf("%s verify: %d", p, res.Code)
		}
	}
}

func TestParseClaimFile(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"TOKEN1\n", []string{"TOKEN1"}},
		{"corpusbot-claim=TOKEN1", []string{"TOKEN1"}},
		{"CorpusBot-Claim = TOKEN1 ", nil}, // key must be followed by "=" directly
		{"corpusbot-claim= TOKEN1 ", []string{"TOKEN1"}},
		{"\ufeff# comment\r\n\r\ncorpusbot-claim=A\r\nB\r\n", []string{"A", "B"}},
		{"<html><body>Not found</body></html>", []string{"<html><body>Not"}[:0]},
		{"key=value\nother words here\n", nil},
		{"corpusbot-claim=\n", nil},
		{strings.Repeat("x", 300) + "\nOK\n", []string{"OK"}},
		{strings.Repeat("L\n", 100), slices.Repeat([]string{"L"}, 64)},
	}
	for _, c := range cases {
		got := ParseClaimFile([]byte(c.in))
		if len(got) != len(c.want) || (len(got) > 0 && !slices.Equal(got, c.want)) {
			t.Errorf("ParseClaimFile(%.40q) = %q, want %q", c.in, got, c.want)
		}
	}
	big := strings.Repeat("a", MaxClaimFile) + "\nLATE\n"
	if got := ParseClaimFile([]byte(big)); len(got) != 0 {
		t.Errorf("read past MaxClaimFile: %q", got)
	}
}

func FuzzParseClaimFile(f *testing.F) {
	for _, s := range []string{"corpusbot-claim=ABC\n", "# c\nX\r\n", "\ufeffA", "", strings.Repeat("z", 5000)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		toks := ParseClaimFile(body)
		if len(toks) > 64 {
			t.Fatalf("%d tokens", len(toks))
		}
		for _, tok := range toks {
			if tok == "" || len(tok) > maxToken || strings.ContainsAny(tok, " \t\r\n") {
				t.Fatalf("token %q", tok)
			}
			// A token read from a file is found again when written back alone.
			if again := ParseClaimFile([]byte(claimTXTKey + tok + "\n")); len(again) != 1 || again[0] != tok {
				t.Fatalf("token %q reads back as %q", tok, again)
			}
		}
	})
}
