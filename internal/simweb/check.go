package simweb

import (
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/robots"
)

// Violations checks every recorded request against the politeness rules
// that hold whatever the configuration, and returns one line per breach:
//   - never two requests in flight to one site;
//   - the gap from the end of one request to the start of the next on a site
//     at least gap(site) (nil: no gap checked);
//   - the first request to every host is its robots.txt;
//   - nothing robots.txt (as the host now serves it, for agent) disallows
//     was requested;
//   - the User-Agent is exactly userAgent and no Cookie was sent.
func (w *Web) Violations(userAgent, agent string, gap func(site string) time.Duration) []string {
	var out []string
	reqs := w.Requests()
	for site, rs := range BySite(reqs) {
		for i, r := range rs {
			if r.InFlight > 1 {
				out = append(out, fmt.Sprintf("%s: %d requests in flight at %s %s", site, r.InFlight, r.Host, r.URI))
			}
			if i > 0 && !rs[i-1].End.IsZero() && r.Start.Before(rs[i-1].End) {
				out = append(out, fmt.Sprintf("%s: %s%s started before %s%s ended", site, r.Host, r.URI, rs[i-1].Host, rs[i-1].URI))
			}
			if i > 0 && gap != nil {
				if g, want := r.Start.Sub(rs[i-1].End), gap(site); g < want {
					out = append(out, fmt.Sprintf("%s: gap %v < %v before %s%s", site, g, want, r.Host, r.URI))
				}
			}
		}
	}
	first := make(map[string]bool)
	rules := make(map[string]*robots.Rules)
	for _, r := range reqs {
		if !first[r.Host] {
			first[r.Host] = true
			if r.URI != "/robots.txt" {
				out = append(out, fmt.Sprintf("%s: first request %s, not /robots.txt", r.Host, r.URI))
			}
		}
		if r.URI != "/robots.txt" {
			rs, ok := rules[r.Host]
			if !ok {
				if h, found := w.lookup(r.Host); found {
					rs = h.rulesFor(agent)
				} else {
					rs = w.fallbackRules(r.Host, agent)
				}
				rules[r.Host] = rs
			}
			if rs != nil && !rs.Allowed(r.URI) {
				out = append(out, fmt.Sprintf("%s: disallowed %s fetched", r.Host, r.URI))
			}
		}
		if ua := r.Header.Values("User-Agent"); len(ua) != 1 || ua[0] != userAgent {
			out = append(out, fmt.Sprintf("%s%s: User-Agent %q", r.Host, r.URI, ua))
		}
		if c := r.Header.Values("Cookie"); len(c) > 0 {
			out = append(out, fmt.Sprintf("%s%s: Cookie %q sent", r.Host, r.URI, strings.Join(c, "; ")))
		}
	}
	return out
}

// rulesFor is what the host's robots.txt, as now configured, asks of agent:
// the file's rules when it is served with 2xx, nothing allowed when it
// answers 401, 403, 429 or 5xx or is overridden by a fault, everything
// allowed when it is absent.
func (h *Host) rulesFor(agent string) *robots.Rules {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.robots != nil:
		return robots.Parse(h.robots.body()).For(agent)
	case h.robotsStatus == 0 && h.override == nil && h.routes["/robots.txt"] == nil:
		return robots.AllowAll()
	case h.robotsStatus >= 400 && h.robotsStatus < 500 && h.robotsStatus != 401 && h.robotsStatus != 403 && h.robotsStatus != 429:
		return robots.AllowAll()
	}
	return robots.DisallowAll()
}
