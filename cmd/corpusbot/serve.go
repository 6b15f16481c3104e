package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/clientip"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/metrics"
	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/web"
)

// serveSettings are the settings serve takes as flags: those of the site
// itself (its database, the user agent its pages and claim checks name, the
// base URL hubs deliver to, the proxies it trusts, who may read its
// /metrics, its log). The crawler's other settings, which its page shows
// and its claim checks fetch under, come from --config and the environment
// like everywhere else.
var serveSettings = []string{"DB", "USER_AGENT", "PUBLIC_URL", "TRUSTED_PROXIES", "METRICS_ALLOWED_NETWORKS", "LOG_LEVEL", "LOG_FORMAT"}

func serveSite(env environment, args []string) error {
	fs := newFlags("serve", "serve [--addr 127.0.0.1:8080] [--egress PREFIX,...] [--verify-domain DOMAIN,...] [--config FILE] [setting flags]\n\n"+
		"Serves the public site: the crawler page the user agent points to, coverage, sources, the\n"+
		"opt-out form and claiming. It reads every setting the crawler runs with, from the same --config\n"+
		"file and CORPUSBOT_* variables, so that the crawler page states what the crawler does; the\n"+
		"flags below are the settings of the site itself (`run --help` lists the crawler's).\n"+
		"A SQLite path with no database gets an empty one, and one log line says so: the crawler page\n"+
		"is up before the first crawl (`sources add` and `run` fill it).")
	addr := fs.String("addr", "127.0.0.1:8080", "`address` to listen on")
	egress := fs.String("egress", "", "comma-separated `prefixes` (CIDR) the crawler sends from, published at /crawler/ips.json")
	domains := fs.String("verify-domain", "", verifyDomainUsage)
	configPath := crawlFlags(fs, serveSettings...)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("serve takes no arguments (see --help)")
	}
	prefixes, err := parsePrefixes(*egress)
	if err != nil {
		return err
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	return runSite(ctx, env, s, func() (net.Listener, error) { return net.Listen("tcp", *addr) }, func(o *web.Options) {
		o.EgressPrefixes, o.VerifyDomains = prefixes, splitList(*domains)
	}, func(log *slog.Logger, a net.Addr) { log.Info("serving", "url", "http://"+a.String()+"/") })
}

// runSite serves the public site over the store s names, on the listener
// listen gives, until ctx ends: set adjusts the options, ready is told the
// address listened on. A SQLite path with no database gets an empty one
// (the crawler page must be up before the first crawl), said in one line.
func runSite(ctx context.Context, env environment, s config.Settings, listen func() (net.Listener, error),
	set func(*web.Options), ready func(*slog.Logger, net.Addr)) (err error) {
	log, err := logging.New(env.stderr, s.LogLevel, s.LogFormat)
	if err != nil {
		return err
	}
	created := !postgres.IsDSN(s.DB) && sqliteExists(s.DB) != nil
	st, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	if created {
		log.Info("database created", "db", s.DB, "why", "there was none; `corpusbot sources add` and `run` fill it")
	}
	trusted, err := clientip.ParseTrusted(s.TrustedProxies)
	if err != nil {
		return fmt.Errorf("TRUSTED_PROXIES: %w", err)
	}
	proxies := clientip.Resolver{Trusted: trusted}
	metricsFrom, err := clientip.ParseNetworks(s.MetricsAllowedNetworks)
	if err != nil {
		return fmt.Errorf("METRICS_ALLOWED_NETWORKS: %w", err)
	}
	m := metrics.New()
	c, err := newCrawler(env, st, s, m)
	if err != nil {
		return err
	}
	// Its error says what the crawl could not finish storing or archiving.
	defer func() { err = errors.Join(err, c.Close()) }()
	opts := c.SiteOptions(s)
	opts.Log, opts.Proxies = log, proxies
	set(&opts)
	pages, err := web.New(opts)
	if err != nil {
		return err
	}
	// /metrics (to METRICS_ALLOWED_NETWORKS only) and /healthz beside the
	// site; every request in the access log, under the client address the
	// trusted proxies forwarded.
	site := logging.AccessLog(web.MetricsOnlyFrom(opsHandler(m, st, pages), metricsFrom, proxies), log, proxies.ClientString)
	ln, err := listen()
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ready(log, ln.Addr())
	return serveUntilDone(ctx, ln, site, log)
}

// newHTTPServer bounds every phase of a connection, so that slow or idle
// clients cannot hold the server's resources: the site is public.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		// Verifying a claim waits for DNS and for the polite fetcher.
		WriteTimeout:   90 * time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 32 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// serveUntilDone serves on ln until ctx ends, then lets requests in flight
// finish (for up to ten seconds).
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger) error {
	srv := newHTTPServer(h, log)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// verifyDomainUsage is the help of --verify-domain, the one name serve and
// verify give the domains that forward-confirmed reverse DNS accepts.
const verifyDomainUsage = "comma-separated `domains` the crawler's reverse DNS names end in (default: the host of the URL in USER_AGENT)"

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parsePrefixes reads --egress: CIDR prefixes, or single addresses (a /32
// or /128).
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range splitList(s) {
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, usageError("--egress: %q is neither an address nor a prefix", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}
