package robots

import (
	"testing"

	"github.com/temoto/robotstxt"
)

// TestTemotoFailures records why this package exists rather than using
// github.com/temoto/robotstxt, the most used Go library: run through it, the
// ported Google suite and this package's own fixtures give these many wrong
// answers. Percent-encoding is not normalised, ties go to Disallow, agents
// match by prefix, rules are ranked by the length of their regular
// expression, and the group naming the crawler is not chosen the RFC's way.
// If an upgrade of temoto changes the figures, update them here and in the
// README.
func TestTemotoFailures(t *testing.T) {
	const wantGoogleWrong, wantFixtureWrong = 15, 21

	googleWrong := 0
	for _, c := range googleCases {
		// Judge temoto by Google's own expectation, not by our divergences.
		want := c.want
		if c.divergence != "" {
			want = !want
		}
		if temotoAllowed(c.robotstxt, c.agent, c.url) != want {
			googleWrong++
			t.Logf("google %s: %q for %s: temoto says %v", c.test, c.url, c.agent, !want)
		}
	}

	fixtureWrong, fixtureTotal := 0, 0
	for _, c := range loadCases(t) {
		for _, e := range c.expect {
			if e.kind != "ALLOWED" && e.kind != "DISALLOWED" {
				continue
			}
			fixtureTotal++
			if temotoAllowed(string(c.body), e.agent, e.arg) != (e.kind == "ALLOWED") {
				fixtureWrong++
				t.Logf("fixture %s: %s for %s: temoto says the opposite", c.name, e.arg, e.agent)
			}
		}
	}
	t.Logf("temoto/robotstxt: %d of %d Google cases wrong, %d of %d fixture cases wrong",
		googleWrong, len(googleCases), fixtureWrong, fixtureTotal)
	if googleWrong != wantGoogleWrong || fixtureWrong != wantFixtureWrong {
		t.Errorf("temoto now gets %d Google and %d fixture cases wrong; the recorded figures are %d and %d",
			googleWrong, fixtureWrong, wantGoogleWrong, wantFixtureWrong)
	}
}

func temotoAllowed(body, agent, url string) bool {
	data, err := robotstxt.FromString(body)
	if err != nil {
		return false
	}
	path, addSlash := requestPath(url)
	if addSlash {
		path = "/" + path
	}
	return data.TestAgent(path, agent)
}
