package config

import (
	"strings"
	"time"

	"corpus.blog/corpusbot/robots"
)

// Settings is the crawler's whole configuration. The zero value is not
// useful; start from Defaults or Load.
type Settings struct {
	DB                  string        // SQLite file path or postgres:// URL
	DBWait              time.Duration // how long a command waits for a database that went away
	UserAgent           string
	MinGap              time.Duration
	CataloguePageDelay  time.Duration
	CatalogueMaxPages   int
	RobotsTTL           time.Duration
	RobotsGuessTTL      time.Duration
	RefusalRecheck      time.Duration
	FeedInterval        time.Duration // fixed: every feed's interval; adaptive: the mean interval planned for
	FeedSchedule        string        // ScheduleAdaptive or ScheduleFixed
	FeedBudget          int           // feed polls an hour at most
	FeedMaxInterval     time.Duration // adaptive: the longest any feed waits
	SitemapInterval     time.Duration
	SitemapRecheck      time.Duration // a child sitemap whose index entry did not change is still re-read this often
	DisallowedRecheck   time.Duration // how often a feed robots.txt disallows is tried again
	RunInterval         time.Duration // how often `run` starts a round of due work
	PushSafetyPoll      time.Duration // a feed pushed by WebSub is still polled at least this often
	PushLease           time.Duration // the WebSub lease asked of hubs
	PublicURL           string        // the public site's base URL; "" turns WebSub off
	BodyMax             int64         // bytes
	AllowPrivate        bool
	Concurrency         int           // sites worked on at once by one process
	RetryAttempts       int           // tries of an item failing with transient faults, the first included
	RetryWindow         time.Duration // the span those tries are spread over
	LogLevel            string        // debug, info, warn or error
	LogFormat           string        // text or json
	WarcDir             string        // where fetched pages are also written as WARC files; "" for none
	TrustedProxies      string        // CIDRs whose X-Forwarded-For the public site believes
	RequestLogRetention time.Duration // request-log rows older than this are pruned each round (0: kept)
	// MetricsAllowedNetworks are the CIDRs whose clients the public site
	// serves /metrics to (read with clientip.ParseNetworks).
	MetricsAllowedNetworks string
	ProxyDNS               string // ProxyDNSLocal or ProxyDNSProxy
}

// Defaults returns the settings promised by the command-line contract.
func Defaults() Settings {
	return Settings{
		DB:                  "./corpusbot.db",
		DBWait:              5 * time.Minute,
		UserAgent:           "CorpusBot/1.0 (+https://corpus.blog/crawler)",
		MinGap:              time.Second,
		CataloguePageDelay:  2 * time.Second,
		CatalogueMaxPages:   200,
		RobotsTTL:           24 * time.Hour,
		RobotsGuessTTL:      6 * time.Hour,
		RefusalRecheck:      168 * time.Hour,
		FeedInterval:        24 * time.Hour,
		FeedSchedule:        ScheduleAdaptive,
		FeedBudget:          300,
		FeedMaxInterval:     7 * 24 * time.Hour,
		SitemapInterval:     24 * time.Hour,
		SitemapRecheck:      7 * 24 * time.Hour,
		DisallowedRecheck:   168 * time.Hour,
		RunInterval:         time.Hour,
		PushSafetyPoll:      7 * 24 * time.Hour,
		PushLease:           10 * 24 * time.Hour,
		PublicURL:           "",
		BodyMax:             5 * 1000 * 1000,
		AllowPrivate:        false,
		Concurrency:         DefaultConcurrency,
		RetryAttempts:       5,
		RetryWindow:         72 * time.Hour,
		LogLevel:            "info",
		LogFormat:           "text",
		WarcDir:             "",
		TrustedProxies:      "",
		RequestLogRetention: 90 * 24 * time.Hour,
		// Loopback only: a Prometheus on the same machine, nobody else.
		MetricsAllowedNetworks: "127.0.0.0/8,::1/128",
		ProxyDNS:               ProxyDNSLocal,
	}
}

// DefaultConcurrency is CONCURRENCY's default: what the frontier benchmark
// showed a 2-core machine keeps busy (docs/operations.md, "How many sites at once").
const DefaultConcurrency = 2048

// Feed schedules (FEED_SCHEDULE).
const (
	// ScheduleAdaptive polls each feed at an interval that follows its
	// observed publishing rate (package schedule), spending no more polls
	// than the fixed rotation would.
	ScheduleAdaptive = "adaptive"
	// ScheduleFixed is the seed's rotation: every feed once per
	// FEED_INTERVAL, longest-waited first.
	ScheduleFixed = "fixed"
)

// Who resolves the name of a target handed to an HTTP proxy (PROXY_DNS).
// The private-address guard judges every target either way; the setting
// only says what a name our resolver cannot resolve means.
const (
	// ProxyDNSLocal judges every proxied name by our resolver alone: a
	// name it cannot resolve cannot be judged, and is refused.
	ProxyDNSLocal = "local"
	// ProxyDNSProxy leaves a name our resolver cannot resolve to the
	// proxy, which resolves names of its own (an egress proxy with its own
	// DNS). IP literals, local names and names that resolve locally to a
	// refused address are still refused.
	ProxyDNSProxy = "proxy"
)

// ProductToken is the name robots.txt groups are matched against: the
// leading token of the user agent ("CorpusBot"), read the way the robots
// package reads it. Validation guarantees it is not empty for loaded settings.
func (s Settings) ProductToken() string {
	return robots.ProductToken(s.UserAgent)
}

// WarcDirOff is the WARC_DIR value that keeps no pages. An empty value
// cannot say it: an empty variable means "not given" (applyEnv).
const WarcDirOff = "off"

// PagesDir is where the pages fetched are kept as WARC files, "" for
// nowhere: WARC_DIR as given; none for "off"; and when it is not given,
// beside the database (a SQLite file's path with ".warc" added, so that a
// database and its pages move and are backed up together; ./warc for a
// PostgreSQL database, whose workers each keep their own). Pages are kept
// by default so that a corpus can be rebuilt without a request
// (reextract); they cost about 41 KiB a page on disk (docs/warc.md). WARC_DIR
// itself stays as given, so that the settings shown and round-tripped are
// the operator's.
func (s Settings) PagesDir() string {
	switch {
	case s.WarcDir == WarcDirOff:
		return ""
	case s.WarcDir != "":
		return s.WarcDir
	case strings.HasPrefix(s.DB, "postgres://") || strings.HasPrefix(s.DB, "postgresql://"):
		return "warc"
	case s.DB == "":
		return ""
	}
	return s.DB + ".warc"
}
