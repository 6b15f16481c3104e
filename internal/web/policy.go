package web

import (
	"errors"
	"net/http"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/robots"
	"corpus.blog/corpusbot/sitemap"
)

// /crawler/policy.json is the crawler page for programs: every rule the
// crawler follows that a site owner could want to check, as numbers. It is
// built, like the page, from the Settings the crawler runs with, and every
// figure the code fixes is read from the constant, table or function the
// crawler decides by (fetch, robots, sitemap), never restated here. Its
// schema is docs/policy-json.md; a field is added, never renamed, and a
// change of meaning raises policyVersion.

// policySchema names the document's format; policyVersion is its version.
const (
	policySchema  = "corpusbot-crawl-policy"
	policyVersion = 1
)

// The public site's routes the document names, as paths on the site that
// served it. pages_test.go requests each.
const (
	routeCrawler = "/crawler"
	routePolicy  = "/crawler/policy.json"
	routeIPs     = "/crawler/ips.json"
	routeOptOut  = "/opt-out"
	routeClaim   = "/claim"
	routeAPI     = "/api/crawler"
	routeIndex   = "/indexnow"
)

// policySettings says where the document states each setting that governs
// what the crawler sends to a site, as a JSON pointer (RFC 6901); the
// document carries it as "settings". Every setting is either here or, not
// being crawl policy, on the list of policy_test.go.
var policySettings = map[string]string{
	"USER_AGENT":           "/user_agent",
	"MIN_GAP":              "/pace/min_gap",
	"CATALOGUE_PAGE_DELAY": "/pace/catalogue_page_delay",
	"CATALOGUE_MAX_PAGES":  "/limits/catalogue_max_pages",
	"ROBOTS_TTL":           "/robots_txt/ttl",
	"ROBOTS_GUESS_TTL":     "/robots_txt/guess_ttl",
	"DISALLOWED_RECHECK":   "/robots_txt/disallowed_feed_recheck",
	"REFUSAL_RECHECK":      "/refusal/recheck",
	"RETRY_ATTEMPTS":       "/retries/attempts",
	"RETRY_WINDOW":         "/retries/window",
	"BODY_MAX":             "/limits/body_max_bytes",
	"ALLOW_PRIVATE":        "/never_fetched/private_addresses/allow_private",
	"PROXY_DNS":            "/never_fetched/private_addresses/proxy_dns",
	"RUN_INTERVAL":         "/schedule/run_interval",
	"FEED_SCHEDULE":        "/schedule/feed_schedule",
	"FEED_INTERVAL":        "/schedule/feed_interval",
	"FEED_MAX_INTERVAL":    "/schedule/feed_max_interval",
	"FEED_BUDGET":          "/schedule/feed_budget_per_hour",
	"SITEMAP_INTERVAL":     "/schedule/sitemap_interval",
	"SITEMAP_RECHECK":      "/schedule/sitemap_recheck",
	"PUBLIC_URL":           "/push/public_url",
	"PUSH_SAFETY_POLL":     "/push/safety_poll",
	"PUSH_LEASE":           "/push/lease",
}

// policyDoc is /crawler/policy.json.
type policyDoc struct {
	Schema       string            `json:"schema"`
	Version      int               `json:"version"`
	UserAgent    string            `json:"user_agent"`
	ProductToken string            `json:"product_token"`
	CrawlerURL   string            `json:"crawler_url"`
	Pace         policyPace        `json:"pace"`
	Robots       policyRobots      `json:"robots_txt"`
	Refusal      policyRefusal     `json:"refusal"`
	Retries      policyRetries     `json:"retries"`
	Limits       policyLimits      `json:"limits"`
	Requests     policyRequests    `json:"requests"`
	Schedule     policySchedule    `json:"schedule"`
	Push         policyPush        `json:"push"`
	NeverFetched policyNever       `json:"never_fetched"`
	Egress       ipsDoc            `json:"egress"`
	Verification policyVerify      `json:"verification"`
	OptOut       policyOptOut      `json:"opt_out"`
	Routes       policyRoutes      `json:"routes"`
	Settings     map[string]string `json:"settings"`
}

// policyDuration is every duration of the document: seconds (fractions
// allowed) for arithmetic, and Go's own form (time.ParseDuration reads it)
// for people.
type policyDuration struct {
	Seconds  float64 `json:"seconds"`
	Duration string  `json:"duration"`
}

func duration(d time.Duration) policyDuration {
	return policyDuration{Seconds: d.Seconds(), Duration: d.String()}
}

// statusRange is the HTTP statuses From to To, both included.
type statusRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

type policyPace struct {
	Site               string           `json:"site"`
	MaxInFlight        int              `json:"max_in_flight_per_site"`
	MinGap             policyDuration   `json:"min_gap"`
	CataloguePageDelay policyDuration   `json:"catalogue_page_delay"`
	CrawlDelay         policyCrawlDelay `json:"crawl_delay"`
	BackOff            policyBackOff    `json:"back_off"`
}

type policyCrawlDelay struct {
	Obeyed          bool           `json:"obeyed"`
	RaisesOnly      bool           `json:"raises_only"`
	Max             policyDuration `json:"max"`
	WaitedWithinRun policyDuration `json:"waited_within_run_up_to"`
}

type policyBackOff struct {
	MaxAddedGap        policyDuration `json:"max_added_gap"`
	RetryAfterStatuses []statusRange  `json:"retry_after_statuses"`
	RetryAfterMax      policyDuration `json:"retry_after_max"`
}

type policyRobots struct {
	TTL                   policyDuration     `json:"ttl"`
	GuessTTL              policyDuration     `json:"guess_ttl"`
	MaxBytes              int                `json:"max_bytes"`
	MaxRedirects          int                `json:"max_redirects"`
	Statuses              []robotsStatusRule `json:"statuses"`
	NetworkError          robotsStatusRule   `json:"network_error"`
	StaleCopyMaxAge       policyDuration     `json:"stale_copy_max_age"`
	DisallowedFeedRecheck policyDuration     `json:"disallowed_feed_recheck"`
}

// robotsStatusRule is what one range of robots.txt answers means.
type robotsStatusRule struct {
	From int `json:"from,omitempty"`
	To   int `json:"to,omitempty"`
	// State is robots.State's word; Obeyed is "file" (the file's rules),
	// "allow_all", "disallow_all" or "follow" (a redirect, followed and
	// decided again); CachedFor names the TTL kept ("ttl", "guess_ttl",
	// or "" for a redirect).
	State     string `json:"state"`
	Obeyed    string `json:"obeyed"`
	CachedFor string `json:"cached_for"`
}

type policyRefusal struct {
	Status          int            `json:"status"`
	Consecutive     int            `json:"consecutive"`
	OnlyNeverServed bool           `json:"only_if_never_served"`
	Recheck         policyDuration `json:"recheck"`
	ClearedBy       string         `json:"cleared_by"`
}

type policyRetries struct {
	Attempts          int              `json:"attempts"`
	Window            policyDuration   `json:"window"`
	TransientStatuses []statusRange    `json:"transient_statuses"`
	NetworkErrors     bool             `json:"network_errors_transient"`
	FirstRetryMax     policyDuration   `json:"first_retry_max"`
	Delays            []policyDuration `json:"delays"`
}

type policyLimits struct {
	BodyMaxBytes      int64 `json:"body_max_bytes"`
	SitemapMaxBytes   int   `json:"sitemap_max_bytes"`
	SitemapMaxEntries int   `json:"sitemap_max_entries"`
	MaxRedirects      int   `json:"max_redirects"`
	CatalogueMaxPages int   `json:"catalogue_max_pages"`
}

type policyRequests struct {
	Schemes        []string                  `json:"schemes"`
	AcceptEncoding string                    `json:"accept_encoding"`
	Conditional    bool                      `json:"conditional"`
	Cookies        bool                      `json:"cookies"`
	Credentials    bool                      `json:"credentials"`
	JavaScript     bool                      `json:"javascript"`
	ContentTypes   map[string]policyTypeRule `json:"content_types"`
}

type policyTypeRule struct {
	Any             bool     `json:"any"`
	Read            []string `json:"read"`
	Sniffed         []string `json:"sniffed"`
	SniffedSuffixes []string `json:"sniffed_suffixes"`
	UntypedSniffed  bool     `json:"untyped_sniffed"`
}

type policySchedule struct {
	RunInterval     policyDuration `json:"run_interval"`
	FeedSchedule    string         `json:"feed_schedule"`
	FeedInterval    policyDuration `json:"feed_interval"`
	FeedMaxInterval policyDuration `json:"feed_max_interval"`
	FeedBudget      int            `json:"feed_budget_per_hour"`
	SitemapInterval policyDuration `json:"sitemap_interval"`
	SitemapRecheck  policyDuration `json:"sitemap_recheck"`
}

type policyPush struct {
	WebSub     bool           `json:"websub"`
	PublicURL  string         `json:"public_url"`
	SafetyPoll policyDuration `json:"safety_poll"`
	Lease      policyDuration `json:"lease"`
	IndexNow   string         `json:"indexnow"`
}

type policyNever struct {
	PrivateAddresses policyPrivate `json:"private_addresses"`
	Content          []string      `json:"content"`
	OptedOutSites    bool          `json:"opted_out_sites"`
}

type policyPrivate struct {
	AllowPrivate     bool     `json:"allow_private"`
	RefusedPrefixes  []string `json:"refused_prefixes"`
	RefusedNames     []string `json:"refused_names"`
	SingleLabelNames bool     `json:"single_label_names"`
	NumericLastLabel bool     `json:"numeric_last_label"`
	EmbeddedIPv4     bool     `json:"embedded_ipv4_judged"`
	ProxyDNS         string   `json:"proxy_dns"`
}

type policyVerify struct {
	IPs               string   `json:"ips"`
	ReverseDNSDomains []string `json:"reverse_dns_domains"`
	Command           string   `json:"command"`
}

type policyOptOut struct {
	RobotsTxt string `json:"robots_txt"`
	Form      string `json:"form"`
	Claim     string `json:"claim"`
}

type policyRoutes struct {
	Crawler  string `json:"crawler"`
	Policy   string `json:"policy"`
	IPs      string `json:"ips"`
	OptOut   string `json:"opt_out"`
	Claim    string `json:"claim"`
	API      string `json:"api"`
	IndexNow string `json:"indexnow"`
}

// policyDoc is the document for the settings this server runs with.
func (s *Server) policyDoc() policyDoc {
	st := s.opt.Settings
	token := st.ProductToken()
	doc := policyDoc{
		Schema: policySchema, Version: policyVersion,
		UserAgent: st.UserAgent, ProductToken: token, CrawlerURL: crawlerURL(st.UserAgent),
		Pace: policyPace{
			// One lease per registrable domain (model.SiteOf), held for
			// the whole of each request (fetch.Lease).
			Site: "registrable_domain", MaxInFlight: 1,
			MinGap: duration(st.MinGap), CataloguePageDelay: duration(st.CataloguePageDelay),
			CrawlDelay: policyCrawlDelay{Obeyed: true, RaisesOnly: true,
				Max: duration(robots.MaxCrawlDelay), WaitedWithinRun: duration(fetch.MaxWaitedFloor)},
			BackOff: policyBackOff{MaxAddedGap: duration(fetch.MaxBackoff),
				RetryAfterStatuses: statusRanges(retryAfterHonoured), RetryAfterMax: duration(fetch.MaxRetryAfter)},
		},
		Robots: robotsPolicy(st, token),
		Refusal: policyRefusal{Status: fetch.RefusalStatus, Consecutive: fetch.RefusalThreshold, OnlyNeverServed: true,
			Recheck: duration(st.RefusalRecheck), ClearedBy: "any 2xx or 3xx answer"},
		Retries: retriesPolicy(st),
		Limits: policyLimits{BodyMaxBytes: st.BodyMax, SitemapMaxBytes: sitemap.DefaultMaxBytes,
			SitemapMaxEntries: sitemap.DefaultMaxEntries, MaxRedirects: fetch.MaxRedirects, CatalogueMaxPages: st.CatalogueMaxPages},
		Requests: policyRequests{Schemes: []string{"http", "https"}, AcceptEncoding: fetch.AcceptEncoding,
			Conditional: true, ContentTypes: map[string]policyTypeRule{}},
		Schedule: policySchedule{RunInterval: duration(st.RunInterval), FeedSchedule: st.FeedSchedule,
			FeedInterval: duration(st.FeedInterval), FeedMaxInterval: duration(st.FeedMaxInterval), FeedBudget: st.FeedBudget,
			SitemapInterval: duration(st.SitemapInterval), SitemapRecheck: duration(st.SitemapRecheck)},
		Push: policyPush{WebSub: st.PublicURL != "", PublicURL: st.PublicURL,
			SafetyPoll: duration(st.PushSafetyPoll), Lease: duration(st.PushLease)},
		NeverFetched: policyNever{
			PrivateAddresses: policyPrivate{AllowPrivate: st.AllowPrivate, RefusedNames: fetch.LocalNames(),
				SingleLabelNames: true, NumericLastLabel: true, EmbeddedIPv4: true, ProxyDNS: st.ProxyDNS},
			Content: []string{"images", "scripts", "stylesheets", "comment_feeds", "links_out_of_posts", "site_wide_crawl"},
			// fetch.Options.OptedOut: nothing is sent, not even robots.txt.
			OptedOutSites: true,
		},
		Egress:       s.ipsDoc(),
		Verification: policyVerify{IPs: routeIPs, ReverseDNSDomains: s.opt.VerifyDomains, Command: "corpusbot verify IP"},
		OptOut:       policyOptOut{RobotsTxt: "User-agent: " + token + "\nDisallow: /\n", Form: routeOptOut, Claim: routeClaim},
		Routes: policyRoutes{Crawler: routeCrawler, Policy: routePolicy, IPs: routeIPs, OptOut: routeOptOut,
			Claim: routeClaim, API: routeAPI},
		Settings: policySettings,
	}
	for _, p := range fetch.RefusedPrefixes() {
		doc.NeverFetched.PrivateAddresses.RefusedPrefixes = append(doc.NeverFetched.PrivateAddresses.RefusedPrefixes, p.String())
	}
	for _, p := range model.Purposes() {
		t := fetch.ContentTypes(p)
		doc.Requests.ContentTypes[string(p)] = policyTypeRule{Any: t.Any, Read: orEmpty(t.Read), Sniffed: orEmpty(t.Sniffed),
			SniffedSuffixes: orEmpty(t.SniffedSuffixes), UntypedSniffed: t.UntypedSniffed}
	}
	if s.indexNowOn() {
		doc.Push.IndexNow, doc.Routes.IndexNow = routeIndex, routeIndex
	}
	if doc.Verification.ReverseDNSDomains == nil {
		doc.Verification.ReverseDNSDomains = []string{}
	}
	return doc
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// robotsPolicy reads the fetch-status rules off robots.Decide itself: every
// status from 100 to 599, and a network failure, decided with no earlier
// copy, grouped into ranges that mean the same.
func robotsPolicy(st config.Settings, token string) policyRobots {
	// Distinct TTLs tell which of the two a verdict keeps, whatever the
	// settings' values (they may be equal).
	marks := robots.TTLs{Answer: 1, Guess: 2}
	now := time.Unix(0, 0)
	rule := func(f robots.Fetch) robotsStatusRule {
		v := robots.Decide(f, nil, time.Time{}, now, marks)
		r := robotsStatusRule{State: string(v.State)}
		switch {
		case v.State == robots.StateRedirect:
			r.Obeyed = "follow"
		case v.File != nil:
			r.Obeyed = "file"
		case v.For(token).Allowed("http://example.com/"):
			r.Obeyed = "allow_all"
		default:
			r.Obeyed = "disallow_all"
		}
		switch v.TTL {
		case marks.Answer:
			r.CachedFor = "ttl"
		case marks.Guess:
			r.CachedFor = "guess_ttl"
		}
		return r
	}
	p := policyRobots{
		TTL: duration(st.RobotsTTL), GuessTTL: duration(st.RobotsGuessTTL),
		MaxBytes: robots.MaxFileSize, MaxRedirects: robots.MaxRedirects,
		NetworkError:          rule(robots.Fetch{Err: errors.New("no answer")}),
		StaleCopyMaxAge:       duration(robots.MaxCopyAge),
		DisallowedFeedRecheck: duration(st.DisallowedRecheck),
	}
	for status := 100; status <= 599; status++ {
		r := rule(robots.Fetch{Status: status})
		if n := len(p.Statuses); n > 0 {
			last := &p.Statuses[n-1]
			if last.To == status-1 && last.State == r.State && last.Obeyed == r.Obeyed && last.CachedFor == r.CachedFor {
				last.To = status
				continue
			}
		}
		r.From, r.To = status, status
		p.Statuses = append(p.Statuses, r)
	}
	return p
}

// retriesPolicy is the retry schedule in force and the answers it applies
// to, read off fetch.RetrySchedule and fetch.TransientStatus.
func retriesPolicy(st config.Settings) policyRetries {
	p := policyRetries{Attempts: st.RetryAttempts, Window: duration(st.RetryWindow),
		TransientStatuses: statusRanges(fetch.TransientStatus), NetworkErrors: true,
		FirstRetryMax: duration(fetch.FirstRetry), Delays: []policyDuration{}}
	sched := fetch.RetrySchedule{Attempts: st.RetryAttempts, Window: st.RetryWindow}
	for n := 1; ; n++ {
		wait, ok := sched.Delay(n)
		if !ok {
			break
		}
		p.Delays = append(p.Delays, duration(wait))
	}
	return p
}

// retryAfterHonoured reports whether a Retry-After on an answer with this
// status is obeyed: fetch.Result.RetryAfter decides.
func retryAfterHonoured(status int) bool {
	r := fetch.Result{Status: status, Header: http.Header{"Retry-After": {"60"}}}
	return r.RetryAfter(time.Unix(0, 0)) > 0
}

// statusRanges groups the statuses from 100 to 599 for which in holds.
func statusRanges(in func(status int) bool) []statusRange {
	out := []statusRange{}
	for s := 100; s <= 599; s++ {
		if !in(s) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].To == s-1 {
			out[n-1].To = s
			continue
		}
		out = append(out, statusRange{From: s, To: s})
	}
	return out
}

func (s *Server) policyJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=3600")
	s.writeJSON(w, http.StatusOK, s.policyDoc())
}
