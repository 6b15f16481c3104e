package robots

import (
	"strings"
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// TestGrobotstxtAgrees runs the ported Google suite and this project's
// fixtures through grobotstxt, with the figures recorded so that a change
// is noticed. On Google's rows it agrees with Google but for the two
// ID_Encoding rows with a raw non-ASCII character in the URL, which
// Google's C++ percent-encodes before matching and the Go port does not.
// The fixture rows where it differs from this package are this project's
// deliberate readings: percent-encoding normalised on both sides (RFC 9309
// §2.2.2), and /robots.txt always allowed.
func TestGrobotstxtAgrees(t *testing.T) {
	const wantGoogleDiffer, wantFixtureDiffer = 2, 11
	googleWrong := 0
	for _, c := range googleCases {
		want := c.want
		if c.divergence != "" {
			want = !want // Google's own expectation
		}
		if grobotstxt.AgentAllowed(c.robotstxt, c.agent, c.url) != want {
			googleWrong++
			t.Logf("google %s: %q for %s: grobotstxt says %v, Google's suite %v", c.test, c.url, c.agent, !want, want)
		}
	}
	differ, total := 0, 0
	for _, c := range loadCases(t) {
		for _, e := range c.expect {
			if e.kind != "ALLOWED" && e.kind != "DISALLOWED" {
				continue
			}
			total++
			if grobotstxt.AgentAllowed(string(c.body), e.agent, absolute(e.arg)) != (e.kind == "ALLOWED") {
				differ++
				t.Logf("fixture %s: %s for %s: grobotstxt says the opposite", c.name, e.arg, e.agent)
			}
		}
	}
	t.Logf("grobotstxt: %d of %d Google cases differ from Google, %d of %d fixture cases differ from corpusbot",
		googleWrong, len(googleCases), differ, total)
	if googleWrong != wantGoogleDiffer || differ != wantFixtureDiffer {
		t.Errorf("grobotstxt now differs on %d Google and %d fixture cases; the recorded figures are %d and %d",
			googleWrong, differ, wantGoogleDiffer, wantFixtureDiffer)
	}
}

// absolute makes a fixture's path a URL, as grobotstxt takes them.
func absolute(arg string) string {
	if strings.Contains(arg, "://") {
		return arg
	}
	return "http://example.com" + arg
}
