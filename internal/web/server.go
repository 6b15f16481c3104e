package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/clientip"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/logging"
	"corpus.blog/corpusbot/internal/verify"
)

// Options configure the site. Data and Settings are required; everything
// else has a working default.
type Options struct {
	Data Data
	// Settings are the crawler's own: the crawler page is written from them,
	// so it says what the crawler that uses them does.
	Settings config.Settings

	// EgressPrefixes are the addresses the crawler sends from, published at
	// /crawler/ips.json. EgressUpdated is that list's creationTime (the
	// server's start when zero).
	EgressPrefixes []netip.Prefix
	EgressUpdated  time.Time
	// VerifyDomains are the domains the crawler's reverse DNS names end in
	// (FCrDNS). Empty: the host of the URL in the user agent.
	VerifyDomains []string

	// Resolver answers DNS TXT lookups for claims; ClaimFetcher reads the
	// well-known claim file. Either may be nil: that proof is then
	// unavailable and the claim page says so.
	Resolver     TXTResolver
	ClaimFetcher ClaimFetcher
	// ClaimTTL is how long an unverified claim can be verified (72h);
	// ClaimValidity how long a verification lets the owner act before it
	// must be renewed (90 days): domains change hands.
	ClaimTTL      time.Duration
	ClaimValidity time.Duration

	// FormLimit bounds POSTs (opt-out, claim, verify, pause) per client
	// address: a token bucket of FormLimit.Burst refilled one per
	// FormLimit.Every (5, one per minute).
	FormLimit RateLimit
	// Proxies are the reverse proxies whose X-Forwarded-For names the
	// client (TRUSTED_PROXIES); the zero value trusts none, so the client
	// is the peer.
	Proxies clientip.Resolver
	// TrustedOrigins are extra origins (scheme://host[:port]) allowed to
	// POST, for a front proxy that rewrites Host.
	TrustedOrigins []string

	// PublicURL is this site's base URL as the world reaches it
	// (https://corpus.blog): WebSub hubs call back under it
	// (CallbackBase). WebSub receives the hubs' verifications and
	// deliveries; IndexNow and IndexNowFetcher take IndexNow submissions;
	// Deliveries says which sources are pushed or polled (else Data, when
	// it implements DeliveryData). Each may be nil: that part is off.
	PublicURL       string
	WebSub          WebSubReceiver
	IndexNow        IndexNowData
	IndexNowFetcher IndexNowFetcher
	Deliveries      DeliveryData

	Now func() time.Time // time.Now when nil
	Log *slog.Logger     // nil: slog.Default (logging.OrDefault)
}

// RateLimit is a token bucket's shape.
type RateLimit struct {
	Burst int
	Every time.Duration
}

// maxForm bounds a POST body: the forms have one or two short fields.
const maxForm = 8 << 10

// Server is the public site.
type Server struct {
	opt          Options
	pages        *pages
	limiter      *limiter
	indexLimiter *limiter // IndexNow submissions: the forms' shape, its own buckets
	keys         keyCache // IndexNow keys verified, per host
	start        time.Time
	handler      http.Handler
}

// New builds the site.
func New(opt Options) (*Server, error) {
	if opt.Data == nil {
		return nil, errors.New("web: Options.Data is required")
	}
	if opt.Settings.UserAgent == "" {
		return nil, errors.New("web: Options.Settings has no user agent")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	opt.Log = logging.OrDefault(opt.Log)
	if opt.ClaimTTL <= 0 {
		opt.ClaimTTL = 72 * time.Hour
	}
	if opt.ClaimValidity <= 0 {
		opt.ClaimValidity = 90 * 24 * time.Hour
	}
	if opt.FormLimit.Burst <= 0 || opt.FormLimit.Every <= 0 {
		opt.FormLimit = RateLimit{Burst: 5, Every: time.Minute}
	}
	if len(opt.VerifyDomains) == 0 {
		if d := uaDomain(opt.Settings.UserAgent); d != "" {
			opt.VerifyDomains = []string{d}
		}
	}
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	s := &Server{opt: opt, pages: p, start: opt.Now(), limiter: newLimiter(opt.FormLimit, opt.Now, 10000),
		indexLimiter: newLimiter(opt.FormLimit, opt.Now, 10000)}
	cop := http.NewCrossOriginProtection()
	// Hubs and IndexNow clients are servers, not browsers: no cookie, no
	// session, nothing a cross-site request could borrow.
	cop.AddInsecureBypassPattern("POST /websub/callback/{id}")
	cop.AddInsecureBypassPattern("POST /indexnow")
	for _, o := range opt.TrustedOrigins {
		if err := cop.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("web: trusted origin %q: %w", o, err)
		}
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, "This form was sent from another site",
			"For your protection, forms here are accepted only when sent from this site's own pages. Open the form on this site and send it again.")
	}))
	s.handler = s.recoverer(securityHeaders(cop.Handler(s.routes())))
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.home)
	mux.HandleFunc("GET /crawler", s.crawler)
	mux.HandleFunc("GET /crawler/ips.json", s.ipsJSON)
	mux.HandleFunc("GET "+routePolicy, s.policyJSON)
	mux.HandleFunc("GET /coverage", s.coverage)
	mux.HandleFunc("GET /sources", s.sources)
	mux.HandleFunc("GET /sources/{site}", s.sourceDetail)
	mux.HandleFunc("GET /opt-out", s.optOutForm)
	mux.HandleFunc("POST /opt-out", s.limited(s.optOut))
	mux.HandleFunc("GET /claim", s.claimForm)
	mux.HandleFunc("POST /claim", s.limited(s.claimCreate))
	mux.HandleFunc("GET /claim/{secret}", s.claimPage)
	mux.HandleFunc("POST /claim/{secret}/verify", s.limited(s.claimVerify))
	mux.HandleFunc("POST /claim/{secret}/pause", s.limited(s.claimPause))
	mux.HandleFunc("POST /claim/{secret}/resume", s.limited(s.claimResume))
	mux.HandleFunc("GET /websub/callback/{id}", s.websubIntent)
	mux.HandleFunc("POST /websub/callback/{id}", s.websubDeliver)
	mux.HandleFunc("GET /indexnow", s.indexNowGet)
	mux.HandleFunc("POST /indexnow", s.indexNowPost)
	mux.HandleFunc("GET /api", s.apiDocs)
	mux.HandleFunc("GET /api/crawler", s.apiCrawler)
	mux.HandleFunc("GET /api/coverage", s.apiCoverage)
	mux.HandleFunc("GET /api/sources", s.apiSources)
	mux.HandleFunc("GET /api/sources/{site}", s.apiSource)
	mux.HandleFunc("GET /static/style.css", s.stylesheet)
	mux.HandleFunc("GET /robots.txt", s.robotsTxt)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.apiError(w, http.StatusNotFound, "no such API endpoint; see /api")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
	})
	return mux
}

// securityHeaders sets what every response carries. The policy allows no
// script at all and styles only from the stylesheet; charts are inline SVG
// drawn with attributes, which the policy permits.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		// Claim pages carry their secret in the path: no referrer leaves.
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Method == http.MethodPost && !ownsBodyLimit(r.URL.Path) {
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		}
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic in a handler into a logged 500 rather than a
// dropped connection.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opt.Log.Error("web: panic", "path", safePath(r), "panic", fmt.Sprint(v))
				http.Error(w, "internal error", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// safePath is the request path for logs, with claim secrets cut out.
func safePath(r *http.Request) string {
	p := r.URL.Path
	if strings.HasPrefix(p, "/claim/") {
		return "/claim/…"
	}
	return p
}

// serverError logs err and answers 500 without its details, which may name
// internals.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	s.opt.Log.Error("web: request failed", "path", safePath(r), "err", err)
	s.fail(w, r, http.StatusInternalServerError, "Something went wrong",
		"The page could not be made just now. Try again in a minute.")
}

// uaDomain is the host of the URL in a user agent, the default domain of
// the crawler's reverse DNS names.
func uaDomain(ua string) string { return verify.UserAgentDomain(ua) }

// crawlerURL is the URL in the user agent, or "" when it names none.
func crawlerURL(ua string) string { return verify.UserAgentURL(ua) }
