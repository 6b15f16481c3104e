package fetch

import (
	"net/http"
	"strings"
)

// Directives are the indexing rules an X-Robots-Tag header gives one crawler.
type Directives struct {
	NoIndex  bool
	NoFollow bool
}

// valued are the directives whose own syntax is "name: value", so that
// their colon does not name a crawler.
var valued = map[string]bool{
	"unavailable_after": true, "max-snippet": true, "max-image-preview": true, "max-video-preview": true,
}

// XRobotsTag reads every X-Robots-Tag header of h for the crawler with
// product token agent. A header line applies to every crawler until a token
// "name: directive" names one; from there on, up to the next name, it
// applies to that crawler only (Google's reading). "none" is noindex plus
// nofollow. Names and directives are compared case-insensitively.
func XRobotsTag(h http.Header, agent string) Directives {
	var d Directives
	for _, line := range h.Values("X-Robots-Tag") {
		applies := true
		for _, tok := range strings.Split(line, ",") {
			tok = strings.TrimSpace(tok)
			if name, rest, ok := strings.Cut(tok, ":"); ok && !valued[strings.ToLower(strings.TrimSpace(name))] {
				applies = strings.EqualFold(strings.TrimSpace(name), agent)
				tok = strings.TrimSpace(rest)
			}
			if !applies {
				continue
			}
			switch strings.ToLower(tok) {
			case "noindex":
				d.NoIndex = true
			case "nofollow":
				d.NoFollow = true
			case "none":
				d.NoIndex, d.NoFollow = true, true
			}
		}
	}
	return d
}
