package fetch_test

import (
	"net/http"
	"testing"

	"corpus.blog/corpusbot/internal/fetch"
)

func TestXRobotsTag(t *testing.T) {
	cases := []struct {
		lines []string
		want  fetch.Directives
	}{
		{[]string{"noindex"}, fetch.Directives{NoIndex: true}},
		{[]string{"NoIndex, NOFOLLOW"}, fetch.Directives{NoIndex: true, NoFollow: true}},
		{[]string{"none"}, fetch.Directives{NoIndex: true, NoFollow: true}},
		{[]string{"corpusbot: noindex"}, fetch.Directives{NoIndex: true}},
		{[]string{"CorpusBot: nofollow"}, fetch.Directives{NoFollow: true}},
		{[]string{"googlebot: noindex"}, fetch.Directives{}},
		{[]string{"googlebot: noindex, nofollow"}, fetch.Directives{}},
		{[]string{"googlebot: noindex", "nofollow"}, fetch.Directives{NoFollow: true}},
		{[]string{"googlebot: noindex, corpusbot: nofollow"}, fetch.Directives{NoFollow: true}},
		{[]string{"unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"}, fetch.Directives{NoIndex: true}},
		{[]string{"max-snippet: 20"}, fetch.Directives{}},
		{[]string{"bloggerbot: noindex"}, fetch.Directives{}},
		{nil, fetch.Directives{}},
	}
	for _, c := range cases {
		h := http.Header{}
		for _, l := range c.lines {
			h.Add("X-Robots-Tag", l)
		}
		if got := fetch.XRobotsTag(h, "CorpusBot"); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.lines, got, c.want)
		}
	}
}

func FuzzXRobotsTag(f *testing.F) {
	for _, s := range []string{"noindex", "corpusbot: none", "googlebot: noindex, nofollow", "max-snippet: 1, noindex", ":,:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{"X-Robots-Tag": {v}}
		d := fetch.XRobotsTag(h, "CorpusBot")
		// Whatever names another crawler cannot bind us: prefixing the line
		// with another crawler's name only ever removes directives.
		o := fetch.XRobotsTag(http.Header{"X-Robots-Tag": {"otherbot: " + v}}, "CorpusBot")
		if (o.NoIndex && !d.NoIndex) || (o.NoFollow && !d.NoFollow) {
			t.Fatalf("%q: %+v, with another crawler named first %+v", v, d, o)
		}
	})
}
