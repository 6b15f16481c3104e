package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/simweb"
)

// controlHost is the reserved name of the control endpoints. A request
// addressed to the server itself (an IP literal or localhost, as a script
// sends it without a proxy) is a control request too: the simulated web has
// names only.
const controlHost = "simweb.control"

// server serves the simulated web to the crawler (which uses it as its
// HTTP proxy) and the control endpoints to the script driving the crawl.
type server struct {
	web     *simweb.Web
	sc      *scenario
	sites   http.Handler
	control *http.ServeMux
	log     *slog.Logger

	mu        sync.Mutex
	dayStarts []dayStart // ascending: the requests from index on belong to day
}

type dayStart struct{ day, index int }

func newServer(web *simweb.Web, sc *scenario, log *slog.Logger) *server {
	s := &server{web: web, sc: sc, sites: web.Handler(), log: log, dayStarts: []dayStart{{day: sc.today(), index: 0}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /day", s.getDay)
	mux.HandleFunc("POST /day", s.setDay)
	mux.HandleFunc("GET /scenario", s.scenario)
	mux.HandleFunc("GET /requests", s.requests)
	mux.HandleFunc("GET /violations", s.violations)
	s.control = mux
	return s
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isControl(r.Host) {
		s.control.ServeHTTP(w, r)
		return
	}
	s.sites.ServeHTTP(w, r)
}

func isControl(hostport string) bool {
	host := strings.ToLower(hostport)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == controlHost || host == "localhost" {
		return true
	}
	// The server's own address (loopback): the scenario's blogs are on
	// public-looking addresses (TEST-NET-3), never loopback.
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

func (s *server) getDay(w http.ResponseWriter, _ *http.Request) {
	fmt.Fprintln(w, s.sc.today())
}

// setDay switches the scenario to day n (POST /day?n=2): the requests that
// arrive from now on are counted as that day's.
func (s *server) setDay(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.FormValue("n"))
	if err != nil || n < 1 {
		http.Error(w, "n must be a day number from 1", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.sc.SetDay(n)
	s.dayStarts = append(s.dayStarts, dayStart{day: n, index: len(s.web.Requests())})
	s.mu.Unlock()
	s.log.Info("day switched", "day", n)
	fmt.Fprintln(w, n)
}

func (s *server) scenario(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(s.sc.Manifest())
}

// requestLine is one recorded request, as GET /requests prints it.
type requestLine struct {
	Day             int    `json:"day"`
	Host            string `json:"host"`
	URI             string `json:"uri"`
	Status          int    `json:"status"` // 0: no response (a dropped connection, or still in flight)
	Bytes           int64  `json:"bytes"`
	Start           string `json:"start"` // RFC 3339 with nanoseconds
	End             string `json:"end"`   // "" while in flight
	IfNoneMatch     string `json:"if_none_match"`
	IfModifiedSince string `json:"if_modified_since"`
	UserAgent       string `json:"user_agent"`
}

// requests prints every request recorded so far, in order of arrival, as
// JSON lines.
func (s *server) requests(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	starts := slices.Clone(s.dayStarts)
	reqs := s.web.Requests()
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/jsonl")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	d := 0
	for i, r := range reqs {
		for d+1 < len(starts) && starts[d+1].index <= i {
			d++
		}
		line := requestLine{
			Day: starts[d].day, Host: r.Host, URI: r.URI, Status: r.Status, Bytes: r.Bytes,
			Start: stamp(r.Start), End: stamp(r.End),
			IfNoneMatch: r.Header.Get("If-None-Match"), IfModifiedSince: r.Header.Get("If-Modified-Since"),
			UserAgent: r.Header.Get("User-Agent"),
		}
		if err := enc.Encode(line); err != nil {
			return
		}
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// violations prints the server-side politeness verdict over every request
// so far (simweb's Web.Violations) as JSON lines, sorted, nothing when there
// is no breach. Query: min_gap (the crawler's MIN_GAP, default the
// production 1s), user_agent (default the crawler's default User-Agent) and
// agent (default its product token). robots.txt is judged as each host now
// serves it.
func (s *server) violations(w http.ResponseWriter, r *http.Request) {
	def := config.Defaults()
	ua, agent, gap := def.UserAgent, "", def.MinGap
	if v := r.FormValue("user_agent"); v != "" {
		ua = v
	}
	agent = config.Settings{UserAgent: ua}.ProductToken()
	if v := r.FormValue("agent"); v != "" {
		agent = v
	}
	if v := r.FormValue("min_gap"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			http.Error(w, "min_gap must be a duration such as 100ms", http.StatusBadRequest)
			return
		}
		gap = d
	}
	found := s.web.Violations(ua, agent, func(string) time.Duration { return gap })
	slices.Sort(found)
	w.Header().Set("Content-Type", "application/jsonl")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, v := range found {
		_ = enc.Encode(map[string]string{"violation": v})
	}
}
