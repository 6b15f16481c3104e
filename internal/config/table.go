package config

import (
	"strconv"
	"strings"
	"time"
)

// EnvPrefix is prepended to a setting's name to form its environment variable.
const EnvPrefix = "CORPUSBOT_"

// spec is one row of the settings table, with its type erased so that the
// loaders can treat every setting alike.
type spec struct {
	name   string // MIN_GAP; the env, flag and TOML names derive from it
	help   string
	isBool bool
	// apply parses raw (see kind), checks it and stores it in s.
	apply func(s *Settings, raw any) error
	// show formats the setting's value in s for people to read.
	show func(s Settings) string
	// warning is "" or why the setting's value in s, though accepted,
	// is unfit for the real web (see Settings.Warnings).
	warning func(s Settings) string
}

func (p spec) flagName() string { return strings.ReplaceAll(strings.ToLower(p.name), "_", "-") }
func (p spec) envName() string  { return EnvPrefix + p.name }

// define ties a field to its kind and bounds; the help text is assembled from
// all three so it always states what is actually enforced.
func define[T any](name, purpose string, field func(*Settings) *T, k kind[T], r rule[T]) spec {
	help := purpose
	for _, part := range []string{k.desc, r.desc} {
		if part != "" {
			help += "; " + part
		}
	}
	return spec{
		name:   name,
		help:   help,
		isBool: k.isBool,
		apply: func(s *Settings, raw any) error {
			v, err := k.parse(raw)
			if err != nil {
				return err
			}
			if err := r.check(v); err != nil {
				return err
			}
			*field(s) = v
			return nil
		},
		show: func(s Settings) string { return k.format(*field(&s)) },
		warning: func(s Settings) string {
			v := *field(&s)
			if r.floor == nil {
				return ""
			}
			if floor := r.floor(v); floor != "" {
				return name + "=" + k.format(v) + " is below " + floor + ": for simulations only"
			}
			return ""
		},
	}
}

// table lists the settings in the order of the contract, which is the order
// of flags in help output and of rows on the crawler page.
var table = []spec{
	define("DB", "the database",
		func(s *Settings) *string { return &s.DB }, dsnKind, dbRule),
	// Minutes: long enough for a server's restart or a failover, short
	// enough that a cron job whose database is gone for good says so
	// within the hour. A database that cannot write (a full disk) is not
	// waited for by a command that ends: it needs the operator.
	define("DB_WAIT", "how long a crawl command waits for a database that went away (a connection refused or lost, the server restarting, SQLite busy past its timeout) before it gives up, asking it again with back-off and sending no request meanwhile (0: gives up at once)",
		func(s *Settings) *time.Duration { return &s.DBWait }, durationKind, compressible(time.Minute, 24*time.Hour)),
	define("USER_AGENT", "the User-Agent header; its product token is the name robots.txt groups are matched against",
		func(s *Settings) *string { return &s.UserAgent }, stringKind, userAgentRule),
	define("MIN_GAP", "the pause between two requests to one site (Crawl-delay raises it, never lowers it)",
		func(s *Settings) *time.Duration { return &s.MinGap }, durationKind, positiveUpTo(24*time.Hour)),
	define("CATALOGUE_PAGE_DELAY", "the pause between two catalogue pages of one site (Crawl-delay raises it)",
		func(s *Settings) *time.Duration { return &s.CataloguePageDelay }, durationKind, positiveUpTo(24*time.Hour)),
	define("CATALOGUE_MAX_PAGES", "the most pages read in one feed's catalogue walk",
		func(s *Settings) *int { return &s.CatalogueMaxPages }, intKind, within(1, 100000, strconv.Itoa)),
	// RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours.
	define("ROBOTS_TTL", "how long a robots.txt answer the site gave (2xx, 401, 403) is cached (0: robots.txt is asked again before every request)",
		func(s *Settings) *time.Duration { return &s.RobotsTTL }, durationKind, compressible(time.Minute, 24*time.Hour)),
	define("ROBOTS_GUESS_TTL", "how long a guessed robots.txt answer (no file, site unreachable) is cached (0: asked again before every request)",
		func(s *Settings) *time.Duration { return &s.RobotsGuessTTL }, durationKind, compressible(time.Minute, 24*time.Hour)),
	define("REFUSAL_RECHECK", "how often a site on the 403 refusal list is asked again (0: whenever there is work for it)",
		func(s *Settings) *time.Duration { return &s.RefusalRecheck }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	define("FEED_INTERVAL", "how often a feed is read: with the fixed schedule, every feed's interval; with the adaptive one, the average interval it plans for (0: with the fixed schedule, every feed is due at every round; with the adaptive one, it plans for all of FEED_BUDGET)",
		func(s *Settings) *time.Duration { return &s.FeedInterval }, durationKind, compressible(time.Minute, 30*24*time.Hour)),
	define("FEED_SCHEDULE", "how the feeds' reads are spread",
		func(s *Settings) *string { return &s.FeedSchedule }, stringKind, oneOf(
			choice{ScheduleAdaptive, "each feed read at an interval that follows how often it publishes, busy feeds more often, quiet ones less, in all no more reads than fixed"},
			choice{ScheduleFixed, "every feed once per FEED_INTERVAL"})),
	define("FEED_BUDGET", "the most feed reads corpusbot run makes in an hour, over all sites",
		func(s *Settings) *int { return &s.FeedBudget }, intKind, within(1, 1000000, strconv.Itoa)),
	define("FEED_MAX_INTERVAL", "with the adaptive schedule, the longest any feed waits between two reads, however quiet (0, or anything under the schedule's shortest interval of 1h: every feed hourly, FEED_BUDGET permitting)",
		func(s *Settings) *time.Duration { return &s.FeedMaxInterval }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	define("SITEMAP_INTERVAL", "how old a sitemap's last read must be before it is read again (0: read at every round)",
		func(s *Settings) *time.Duration { return &s.SitemapInterval }, durationKind, compressible(time.Minute, 30*24*time.Hour)),
	// WordPress and Yoast give a child's <lastmod> in the index as its
	// newest post's date, so a removal leaves the index byte-identical.
	define("SITEMAP_RECHECK", "how often a child sitemap whose entry in its index did not change is read again all the same, conditionally, so that a post removed from it is seen (0: at every read of its index)",
		func(s *Settings) *time.Duration { return &s.SitemapRecheck }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	define("DISALLOWED_RECHECK", "how often a feed that robots.txt disallows is checked again, so that it resumes by itself when the rule goes (0: at every round)",
		func(s *Settings) *time.Duration { return &s.DisallowedRecheck }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	define("RUN_INTERVAL", "how often corpusbot run starts a round of the work that is due, whatever the last round still has in flight (the seed's hourly runs; 0: a round a second)",
		func(s *Settings) *time.Duration { return &s.RunInterval }, durationKind, compressible(time.Minute, 7*24*time.Hour)),
	// A week: a hub that silently loses our subscription (hubs restart and
	// forget) costs at most the wait of the quietest polled feed
	// (FEED_MAX_INTERVAL's default), and a pushed feed never costs more
	// polls than that quietest one.
	define("PUSH_SAFETY_POLL", "how often a feed whose hub pushes its posts (WebSub) is still read, in case the hub fails silently (0: on the feed schedule, as if it were not pushed)",
		func(s *Settings) *time.Duration { return &s.PushSafetyPoll }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	// Not compressible: the lease is asked of a hub, a third party, and
	// package push holds any lease a hub grants to at least an hour (a
	// shorter one would renew without pause), so a shorter ask would do
	// nothing but ask.
	define("PUSH_LEASE", "how long a WebSub subscription is asked for (the hub decides; it is renewed before it ends)",
		func(s *Settings) *time.Duration { return &s.PushLease }, durationKind, within(time.Hour, 365*24*time.Hour, formatDuration)),
	define("BODY_MAX", "the most bytes read of one response body",
		func(s *Settings) *int64 { return &s.BodyMax }, sizeKind, within(1<<10, 1<<30, formatSize)),
	define("PUBLIC_URL", "the public site's base URL (corpusbot serve), where WebSub hubs deliver pushed posts; empty: no WebSub subscriptions, feeds are only polled",
		func(s *Settings) *string { return &s.PublicURL }, stringKind, publicURLRule),
	define("ALLOW_PRIVATE", "fetch targets on loopback, private, link-local or unspecified addresses (for tests and private networks)",
		func(s *Settings) *bool { return &s.AllowPrivate }, boolKind, anyValue[bool]()),
	// A site in flight costs a goroutine and its timers while it waits out
	// its gaps, not a thread: the bound is the CPU and the store, not the
	// waiting (docs/operations.md, "How many sites at once").
	define("CONCURRENCY", "how many sites one process works on at once, each one request at a time",
		func(s *Settings) *int { return &s.Concurrency }, intKind, within(1, 100000, strconv.Itoa)),
	// A failure that says "try later" (429, 503, other 5xx, a timeout, a
	// reset) is retried; only a final answer is final (fetch.Result.Transient).
	define("RETRY_ATTEMPTS", "how many times an item (a page, a feed, a sitemap, robots.txt, a discovery) is tried when every try fails with a fault that says try later, the first included; after the last it is an error",
		func(s *Settings) *int { return &s.RetryAttempts }, intKind, within(1, 100, strconv.Itoa)),
	define("RETRY_WINDOW", "the span the retries of a failing item are spread over: the first as soon as the site's back-off and Retry-After allow, each later one a constant factor longer (0: every retry as soon as politeness allows)",
		func(s *Settings) *time.Duration { return &s.RetryWindow }, durationKind, compressible(time.Hour, 90*24*time.Hour)),
	define("LOG_LEVEL", "the least severe log lines written",
		func(s *Settings) *string { return &s.LogLevel }, stringKind, oneOf(
			choice{"debug", "every request"}, choice{"info", ""}, choice{"warn", "work lost or postponed"}, choice{"error", ""})),
	define("LOG_FORMAT", "how log lines are written to stderr",
		func(s *Settings) *string { return &s.LogFormat }, stringKind, oneOf(
			choice{"text", "key=value"}, choice{"json", "one object a line, for log collectors"})),
	define("WARC_DIR", "a directory where every page fetched is also written, request and response, as WARC/1.1 files (.warc.gz, a gzip member per record, a new file past 1 GiB), created if missing, from which `reextract` rebuilds the corpus; unset or empty: beside the database, DB with \".warc\" added (./warc for PostgreSQL); \"off\": none written",
		func(s *Settings) *string { return &s.WarcDir }, stringKind, warcDirRule),
	define("TRUSTED_PROXIES", "the reverse proxies in front of corpusbot serve: a visitor's address is taken from X-Forwarded-For only when the connection comes from one of them (empty: never)",
		func(s *Settings) *string { return &s.TrustedProxies }, stringKind, trustedProxiesRule),
	// Ninety days: the public site shows thirty days of requests per site
	// and the never-304 gap needs a history; older rows only grow the file.
	define("REQUEST_LOG_RETENTION", "how long request-log rows are kept; older ones are deleted a batch at a time in every run round (0: kept forever)",
		func(s *Settings) *time.Duration { return &s.RequestLogRetention }, durationKind, within(0, 100*365*24*time.Hour, formatDuration)),
	// The public site's port is public: its /metrics (requests, posts,
	// queues) is for the operator's scraper, not for every visitor.
	define("METRICS_ALLOWED_NETWORKS", "the networks corpusbot serve answers /metrics for, judged by the client address TRUSTED_PROXIES gives; others are refused with 403 (run --metrics-addr is not affected)",
		func(s *Settings) *string { return &s.MetricsAllowedNetworks }, stringKind, networksRule),
	// Behind an egress proxy that does the DNS, our own resolver may know
	// none of the names the proxy can reach.
	define("PROXY_DNS", "who resolves the host names of targets handed to an HTTP proxy (HTTP_PROXY, HTTPS_PROXY); the private-address guard judges every target either way",
		func(s *Settings) *string { return &s.ProxyDNS }, stringKind, oneOf(
			choice{ProxyDNSLocal, "our resolver: a name it cannot resolve is refused"},
			choice{ProxyDNSProxy, "a name our resolver cannot resolve is left to the proxy; IP literals, local names and names that resolve locally to a refused address are still refused"})),
}

// indexOf finds a setting by its canonical name, or returns -1.
func indexOf(name string) int {
	for i, p := range table {
		if p.name == name {
			return i
		}
	}
	return -1
}

func lookup(name string) (spec, bool) {
	if i := indexOf(name); i >= 0 {
		return table[i], true
	}
	return spec{}, false
}
