package config

import (
	"strings"
	"testing"
)

func TestEntries(t *testing.T) {
	entries := Defaults().Entries()
	wantNames := []string{
		"DB", "DB_WAIT", "USER_AGENT", "MIN_GAP", "CATALOGUE_PAGE_DELAY", "CATALOGUE_MAX_PAGES", "ROBOTS_TTL",
		"ROBOTS_GUESS_TTL", "REFUSAL_RECHECK", "FEED_INTERVAL", "FEED_SCHEDULE", "FEED_BUDGET", "FEED_MAX_INTERVAL", "SITEMAP_INTERVAL", "SITEMAP_RECHECK", "DISALLOWED_RECHECK",
		"RUN_INTERVAL", "PUSH_SAFETY_POLL", "PUSH_LEASE", "BODY_MAX", "PUBLIC_URL", "ALLOW_PRIVATE", "CONCURRENCY", "RETRY_ATTEMPTS", "RETRY_WINDOW",
		"LOG_LEVEL", "LOG_FORMAT", "WARC_DIR", "TRUSTED_PROXIES", "REQUEST_LOG_RETENTION",
		"METRICS_ALLOWED_NETWORKS", "PROXY_DNS",
	}
	wantValues := []string{
		"./corpusbot.db", "5m", "CorpusBot/1.0 (+https://corpus.blog/crawler)", "1s", "2s", "200", "24h",
		"6h", "168h", "24h", "adaptive", "300", "168h", "24h", "168h", "168h", "1h", "168h", "240h", "5MB", "", "false", "2048", "5", "72h",
		"info", "text", "", "", "2160h",
		"127.0.0.0/8,::1/128", "local",
	}
	if len(entries) != len(wantNames) {
		t.Fatalf("%d entries, want %d", len(entries), len(wantNames))
	}
	for i, e := range entries {
		if e.Name != wantNames[i] || e.Value != wantValues[i] || e.Default != wantValues[i] {
			t.Errorf("entry %d = %s=%q (default %q), want %s=%q", i, e.Name, e.Value, e.Default, wantNames[i], wantValues[i])
		}
		if e.Env != "CORPUSBOT_"+e.Name || e.Flag != strings.ReplaceAll(strings.ToLower(e.Name), "_", "-") {
			t.Errorf("%s: env %q, flag %q", e.Name, e.Env, e.Flag)
		}
		if e.Help == "" || strings.Contains(e.Help, "`") {
			t.Errorf("%s: help %q", e.Name, e.Help)
		}
	}
}

// The listed values must read back as the same settings, so that a value
// copied from the crawler page or --help into the environment means the same.
func TestEntriesRoundTrip(t *testing.T) {
	loaded, err := Load(nil, "testdata/valid.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{Defaults(), loaded} {
		env := map[string]string{}
		for _, e := range s.Entries() {
			env[e.Env] = e.Value
		}
		back, err := Load(envOf(env), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if back != s {
			t.Errorf("round trip\n got  %+v\n want %+v", back, s)
		}
	}
}

func TestEntriesMaskPassword(t *testing.T) {
	s := Defaults()
	s.DB = "postgres://crawler:secret@db.internal/corpus?password=other&sslmode=require"
	for _, e := range s.Entries() {
		if e.Name != "DB" {
			continue
		}
		if strings.Contains(e.Value, "secret") || strings.Contains(e.Value, "other") {
			t.Errorf("DB shown as %q", e.Value)
		}
		if !strings.Contains(e.Value, "crawler") || !strings.Contains(e.Value, "db.internal/corpus") {
			t.Errorf("DB shown as %q, lost more than the password", e.Value)
		}
	}
}
