package config

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// envOf is the lookup tests pass instead of os.LookupEnv.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// flagsOf registers every setting's flag and parses args, as cmd/corpusbot will.
func flagsOf(t *testing.T, args ...string) *flag.FlagSet {
	t.Helper()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return fs
}

func TestDefaultsMatchContract(t *testing.T) {
	want := Settings{
		DB:                  "./corpusbot.db",
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
		BodyMax:             5_000_000,
		AllowPrivate:        false,
		Concurrency:         2048,
		RetryAttempts:       5,
		RetryWindow:         72 * time.Hour,
		LogLevel:            "info",
		LogFormat:           "text",
		RequestLogRetention: 90 * 24 * time.Hour,
		DBWait:              5 * time.Minute,
		// METRICS_ALLOWED_NETWORKS and PROXY_DNS, as the contract lists them.
		MetricsAllowedNetworks: "127.0.0.0/8,::1/128",
		ProxyDNS:               "local",
	}
	if got := Defaults(); got != want {
		t.Errorf("Defaults() = %+v\nwant %+v", got, want)
	}
	got, err := Load(nil, "", nil)
	if err != nil || got != want {
		t.Errorf("Load with no sources = %+v, %v", got, err)
	}
	got, err = Load(envOf(nil), "testdata/empty.toml", flagsOf(t))
	if err != nil || got != want {
		t.Errorf("Load with empty sources = %+v, %v", got, err)
	}
}

func TestLoadFile(t *testing.T) {
	tests := []struct {
		file string
		want func(*Settings)
	}{
		{"testdata/valid.toml", func(s *Settings) {
			*s = Settings{
				DB:                  "postgres://crawler@db.internal/corpus",
				UserAgent:           "CorpusBot/2.0 (+https://corpus.blog/crawler)",
				MinGap:              2 * time.Second,
				CataloguePageDelay:  3 * time.Second,
				CatalogueMaxPages:   50,
				RobotsTTL:           12 * time.Hour,
				RobotsGuessTTL:      90 * time.Minute,
				RefusalRecheck:      24 * time.Hour,
				FeedInterval:        6 * time.Hour,
				FeedSchedule:        ScheduleAdaptive,
				FeedBudget:          300,
				FeedMaxInterval:     7 * 24 * time.Hour,
				SitemapInterval:     12 * time.Hour,
				SitemapRecheck:      7 * 24 * time.Hour,
				DisallowedRecheck:   72 * time.Hour,
				RunInterval:         30 * time.Minute,
				PushSafetyPoll:      7 * 24 * time.Hour,
				PushLease:           10 * 24 * time.Hour,
				BodyMax:             5 << 20,
				AllowPrivate:        true,
				Concurrency:         DefaultConcurrency,
				RetryAttempts:       5,
				RetryWindow:         72 * time.Hour,
				LogLevel:            "info",
				LogFormat:           "text",
				RequestLogRetention: 90 * 24 * time.Hour,
				DBWait:              5 * time.Minute,
			}
			s.MetricsAllowedNetworks, s.ProxyDNS = "10.0.0.0/8, ::1", ProxyDNSProxy
		}},
		{"testdata/strings.toml", func(s *Settings) {
			s.MinGap = 5 * time.Second
			s.CatalogueMaxPages = 7
			s.BodyMax = 512 << 10
			s.AllowPrivate = true
		}},
		{"testdata/partial.toml", func(s *Settings) {
			s.MinGap = 3 * time.Second
			s.BodyMax = 1 << 20
		}},
		{"testdata/empty.toml", func(*Settings) {}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want := Defaults()
			tt.want(&want)
			got, err := Load(nil, tt.file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want func(*Settings)
	}{
		{name: "file over default", file: "testdata/partial.toml",
			want: func(s *Settings) { s.MinGap, s.BodyMax = 3*time.Second, 1<<20 }},
		{name: "env over file", file: "testdata/partial.toml",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "4s"},
			want: func(s *Settings) { s.MinGap, s.BodyMax = 4*time.Second, 1<<20 }},
		{name: "flag over env over file", file: "testdata/partial.toml",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "4s", "CORPUSBOT_BODY_MAX": "2MB"},
			args: []string{"--min-gap", "5s"},
			want: func(s *Settings) { s.MinGap, s.BodyMax = 5*time.Second, 2_000_000 }},
		{name: "flag set to the default still wins",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "4s"},
			args: []string{"--min-gap=1s"},
			want: func(s *Settings) {}},
		{name: "registered but unset flag does not override",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "4s"},
			want: func(s *Settings) { s.MinGap = 4 * time.Second }},
		{name: "empty env counts as unset", file: "testdata/partial.toml",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "", "CORPUSBOT_DB": ""},
			want: func(s *Settings) { s.MinGap, s.BodyMax = 3*time.Second, 1<<20 }},
		{name: "env without prefix is ignored",
			env:  map[string]string{"MIN_GAP": "9s", "DB": "other.db"},
			want: func(s *Settings) {}},
		{name: "env integer seconds",
			env:  map[string]string{"CORPUSBOT_FEED_INTERVAL": "3600"},
			want: func(s *Settings) { s.FeedInterval = time.Hour }},
		{name: "flag integer seconds and bare bool",
			args: []string{"--robots-guess-ttl", "600", "--allow-private"},
			want: func(s *Settings) { s.RobotsGuessTTL, s.AllowPrivate = 10*time.Minute, true }},
		{name: "flag false over env true",
			env:  map[string]string{"CORPUSBOT_ALLOW_PRIVATE": "true"},
			args: []string{"--allow-private=false"},
			want: func(s *Settings) {}},
		{name: "every kind from env",
			env: map[string]string{
				"CORPUSBOT_DB":                  "postgres://db.internal/corpus",
				"CORPUSBOT_USER_AGENT":          "CorpusBot/3.0",
				"CORPUSBOT_CATALOGUE_MAX_PAGES": "10",
				"CORPUSBOT_BODY_MAX":            "1GiB",
				"CORPUSBOT_ALLOW_PRIVATE":       "1",
			},
			want: func(s *Settings) {
				s.DB, s.UserAgent, s.CatalogueMaxPages = "postgres://db.internal/corpus", "CorpusBot/3.0", 10
				s.BodyMax, s.AllowPrivate = 1<<30, true
			}},
		{name: "every kind from flags",
			args: []string{"--db", "/tmp/x.db", "--user-agent", "CorpusBot/4.0", "--catalogue-max-pages", "12",
				"--body-max", "1KiB", "--catalogue-page-delay", "1m"},
			want: func(s *Settings) {
				s.DB, s.UserAgent, s.CatalogueMaxPages = "/tmp/x.db", "CorpusBot/4.0", 12
				s.BodyMax, s.CataloguePageDelay = 1<<10, time.Minute
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Defaults()
			tt.want(&want)
			got, err := Load(envOf(tt.env), tt.file, flagsOf(t, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		args []string
		want string
	}{
		{name: "env bad duration", env: map[string]string{"CORPUSBOT_MIN_GAP": "abc"},
			want: `setting MIN_GAP (from env CORPUSBOT_MIN_GAP): invalid duration "abc" (want e.g. "90s", "1h30m" or whole seconds)`},
		{name: "env zero gap", env: map[string]string{"CORPUSBOT_MIN_GAP": "0"},
			want: `setting MIN_GAP (from env CORPUSBOT_MIN_GAP): must be more than 0 (the pause cannot be switched off)`},
		{name: "env negative gap", env: map[string]string{"CORPUSBOT_CATALOGUE_PAGE_DELAY": "-2s"},
			want: `setting CATALOGUE_PAGE_DELAY (from env CORPUSBOT_CATALOGUE_PAGE_DELAY): negative duration "-2s"`},
		{name: "env robots ttl over RFC limit", env: map[string]string{"CORPUSBOT_ROBOTS_TTL": "25h"},
			want: `setting ROBOTS_TTL (from env CORPUSBOT_ROBOTS_TTL): must be at most 24h`},
		{name: "env guess ttl negative", env: map[string]string{"CORPUSBOT_ROBOTS_GUESS_TTL": "-30s"},
			want: `setting ROBOTS_GUESS_TTL (from env CORPUSBOT_ROBOTS_GUESS_TTL): negative duration "-30s"`},
		{name: "env recheck over 90 days", env: map[string]string{"CORPUSBOT_REFUSAL_RECHECK": "2161h"},
			want: `setting REFUSAL_RECHECK (from env CORPUSBOT_REFUSAL_RECHECK): must be at most 2160h`},
		{name: "env zero catalogue delay", env: map[string]string{"CORPUSBOT_CATALOGUE_PAGE_DELAY": "0s"},
			want: `setting CATALOGUE_PAGE_DELAY (from env CORPUSBOT_CATALOGUE_PAGE_DELAY): must be more than 0 (the pause cannot be switched off)`},
		{name: "flag zero lease", args: []string{"--push-lease", "0"},
			want: `setting PUSH_LEASE (from flag --push-lease): must be at least 1h`},
		{name: "env body too large", env: map[string]string{"CORPUSBOT_BODY_MAX": "2GiB"},
			want: `setting BODY_MAX (from env CORPUSBOT_BODY_MAX): must be at most 1GiB`},
		{name: "env bad db", env: map[string]string{"CORPUSBOT_DB": "mysql://h/db"},
			want: `setting DB (from env CORPUSBOT_DB): unsupported database URL scheme "mysql" (want a file path or postgres://)`},
		{name: "env bad bool", env: map[string]string{"CORPUSBOT_ALLOW_PRIVATE": "yes"},
			want: `setting ALLOW_PRIVATE (from env CORPUSBOT_ALLOW_PRIVATE): invalid boolean "yes" (want true, false, 1 or 0)`},
		{name: "flag pages zero", args: []string{"--catalogue-max-pages", "0"},
			want: `setting CATALOGUE_MAX_PAGES (from flag --catalogue-max-pages): must be at least 1`},
		{name: "flag feed interval too long", args: []string{"--feed-interval", "721h"},
			want: `setting FEED_INTERVAL (from flag --feed-interval): must be at most 720h`},
		{name: "flag sitemap interval bad", args: []string{"--sitemap-interval", "soon"},
			want: `setting SITEMAP_INTERVAL (from flag --sitemap-interval): invalid duration "soon" (want e.g. "90s", "1h30m" or whole seconds)`},
		{name: "flag bad user agent", args: []string{"--user-agent", "Mozilla"},
			want: `setting USER_AGENT (from flag --user-agent): "Mozilla" must start with a product token and version such as "CorpusBot/1.0"`},
		{name: "flag bad bool", args: []string{"--allow-private=maybe"},
			want: `setting ALLOW_PRIVATE (from flag --allow-private): invalid boolean "maybe" (want true, false, 1 or 0)`},
		{name: "env proxy dns not a choice", env: map[string]string{"CORPUSBOT_PROXY_DNS": "Proxy"},
			want: `setting PROXY_DNS (from env CORPUSBOT_PROXY_DNS): must be one of local, proxy`},
		{name: "env metrics network bad prefix", env: map[string]string{"CORPUSBOT_METRICS_ALLOWED_NETWORKS": "127.0.0.0/8,10.0.0.0/33"},
			want: `setting METRICS_ALLOWED_NETWORKS (from env CORPUSBOT_METRICS_ALLOWED_NETWORKS): network "10.0.0.0/33": want a CIDR prefix or an IP address`},
		{name: "flag metrics network a name", args: []string{"--metrics-allowed-networks", "localhost"},
			want: `setting METRICS_ALLOWED_NETWORKS (from flag --metrics-allowed-networks): network "localhost": want a CIDR prefix or an IP address`},
		{name: "file error even when env overrides it", file: "testdata/bad_duration.toml",
			env:  map[string]string{"CORPUSBOT_MIN_GAP": "2s"},
			want: `setting MIN_GAP (from config file testdata/bad_duration.toml): invalid duration "abc" (want e.g. "90s", "1h30m" or whole seconds)`},
		{name: "env error even when a flag overrides it", env: map[string]string{"CORPUSBOT_MIN_GAP": "abc"},
			args: []string{"--min-gap", "2s"},
			want: `setting MIN_GAP (from env CORPUSBOT_MIN_GAP): invalid duration "abc" (want e.g. "90s", "1h30m" or whole seconds)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(envOf(tt.env), tt.file, flagsOf(t, tt.args...))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v\nwant    %s", err, tt.want)
			}
		})
	}
}

// badValues holds, for every setting, a value that must be refused; the test
// below fails when a setting is added without one.
var badValues = map[string]string{
	"DB":                    "sqlite://x.db",
	"USER_AGENT":            "no-version",
	"MIN_GAP":               "0s",
	"CATALOGUE_PAGE_DELAY":  "0",
	"CATALOGUE_MAX_PAGES":   "100001",
	"DB_WAIT":               "25h",
	"ROBOTS_TTL":            "48h",
	"ROBOTS_GUESS_TTL":      "25h",
	"REFUSAL_RECHECK":       "1000d",
	"FEED_INTERVAL":         "721h",
	"FEED_SCHEDULE":         "sometimes",
	"FEED_BUDGET":           "0",
	"FEED_MAX_INTERVAL":     "2161h",
	"SITEMAP_INTERVAL":      "-1h",
	"SITEMAP_RECHECK":       "weekly",
	"DISALLOWED_RECHECK":    "-30m",
	"RUN_INTERVAL":          "169h",
	"PUSH_SAFETY_POLL":      "2161h",
	"PUSH_LEASE":            "9000h",
	"BODY_MAX":              "1023",
	"PUBLIC_URL":            "ftp://corpus.blog",
	"ALLOW_PRIVATE":         "on",
	"CONCURRENCY":           "0",
	"RETRY_ATTEMPTS":        "0",
	"RETRY_WINDOW":          "2161h",
	"LOG_LEVEL":             "verbose",
	"LOG_FORMAT":            "xml",
	"WARC_DIR":              "s3://corpus/warc",
	"TRUSTED_PROXIES":       "10.0.0.0/33",
	"REQUEST_LOG_RETENTION": "-1h",

	// Issue 31.
	"METRICS_ALLOWED_NETWORKS": "127.0.0.0/8;::1/128",
	"PROXY_DNS":                "remote",
}

func TestEveryErrorNamesSettingAndSource(t *testing.T) {
	for _, p := range table {
		bad, ok := badValues[p.name]
		if !ok {
			t.Errorf("no bad value for %s in badValues", p.name)
			continue
		}
		t.Run(p.name, func(t *testing.T) {
			file := t.TempDir() + "/bad.toml"
			writeFile(t, file, strings.ToLower(p.name)+" = "+quote(bad)+"\n")
			sources := []struct {
				source string
				load   func() (Settings, error)
			}{
				{"env " + EnvPrefix + p.name, func() (Settings, error) {
					return Load(envOf(map[string]string{EnvPrefix + p.name: bad}), "", nil)
				}},
				{"flag --" + p.flagName(), func() (Settings, error) {
					return Load(nil, "", flagsOf(t, "--"+p.flagName()+"="+bad))
				}},
				{"config file " + file, func() (Settings, error) { return Load(nil, file, nil) }},
			}
			for _, src := range sources {
				_, err := src.load()
				var serr *SettingError
				if !errors.As(err, &serr) {
					t.Errorf("%s: error %v is not a *SettingError", src.source, err)
					continue
				}
				if serr.Name != p.name || serr.Source != src.source || serr.Err == nil {
					t.Errorf("%s: got %+v", src.source, serr)
				}
				prefix := "setting " + p.name + " (from " + src.source + "): "
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("error %q does not start with %q", err, prefix)
				}
			}
		})
	}
}

// Pages are kept beside the database unless WARC_DIR says otherwise; "off"
// keeps none; the setting itself stays as given.
func TestPagesDir(t *testing.T) {
	for _, tc := range []struct{ db, warcDir, want string }{
		{"./corpusbot.db", "", "./corpusbot.db.warc"},
		{"/var/lib/c/c.db", "", "/var/lib/c/c.db.warc"},
		{"postgres://db.internal/corpus", "", "warc"},
		{"./corpusbot.db", "/srv/warc", "/srv/warc"},
		{"./corpusbot.db", "off", ""},
	} {
		env := map[string]string{"CORPUSBOT_DB": tc.db, "CORPUSBOT_WARC_DIR": tc.warcDir}
		s, err := Load(envOf(env), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.PagesDir(); got != tc.want || s.WarcDir != tc.warcDir {
			t.Errorf("DB %q WARC_DIR %q: pages in %q (WARC_DIR %q), want %q", tc.db, tc.warcDir, got, s.WarcDir, tc.want)
		}
	}
}
