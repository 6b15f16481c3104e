package config

import (
	"flag"
	"io"
	"testing"
	"time"
)

func TestRegisterFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	RegisterFlags(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	want := []string{
		"allow-private", "body-max", "catalogue-max-pages", "catalogue-page-delay", "concurrency", "db", "db-wait", "disallowed-recheck",
		"feed-budget", "feed-interval", "feed-max-interval", "feed-schedule", "log-format", "log-level", "metrics-allowed-networks", "min-gap", "proxy-dns", "public-url", "push-lease", "push-safety-poll", "refusal-recheck", "request-log-retention", "retry-attempts", "retry-window", "robots-guess-ttl", "robots-ttl", "run-interval",
		"sitemap-interval", "sitemap-recheck", "trusted-proxies", "user-agent", "warc-dir",
	}
	if len(names) != len(want) {
		t.Fatalf("flags = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("flag %d = %q, want %q", i, names[i], want[i])
		}
	}
	for name, def := range map[string]string{
		"db": "./corpusbot.db", "min-gap": "1s", "body-max": "5MB", "refusal-recheck": "168h",
		"catalogue-max-pages": "200", "allow-private": "false",
	} {
		if got := fs.Lookup(name).DefValue; got != def {
			t.Errorf("--%s default = %q, want %q", name, got, def)
		}
	}
	// flag.PrintDefaults shows the backquoted word as the argument name.
	if name, _ := flag.UnquoteUsage(fs.Lookup("min-gap")); name != "duration" {
		t.Errorf("--min-gap argument name = %q", name)
	}
	if name, _ := flag.UnquoteUsage(fs.Lookup("allow-private")); name != "" {
		t.Errorf("--allow-private argument name = %q, want none for a boolean", name)
	}
}

func TestRegisterSomeFlags(t *testing.T) {
	fs := flag.NewFlagSet("sources add", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	once := fs.Bool("once", false, "")
	config := fs.String("config", "", "")
	RegisterFlags(fs, "DB", "USER_AGENT")
	if fs.Lookup("min-gap") != nil {
		t.Error("--min-gap registered though not asked for")
	}
	if err := fs.Parse([]string{"--once", "--config", "x.toml", "--db", "x.db", "https://example.com/"}); err != nil {
		t.Fatal(err)
	}
	s, err := Load(nil, "", fs) // flags that are not settings are left alone
	if err != nil {
		t.Fatal(err)
	}
	if s.DB != "x.db" || !*once || *config != "x.toml" || fs.Arg(0) != "https://example.com/" {
		t.Errorf("DB = %q, once = %v, config = %q, args = %v", s.DB, *once, *config, fs.Args())
	}
	if err := fs.Parse([]string{"--min-gap", "2s"}); err == nil {
		t.Error("--min-gap accepted though not registered")
	}
}

func TestRegisterFlagsUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("RegisterFlags with an unknown name did not panic")
		}
	}()
	RegisterFlags(flag.NewFlagSet("x", flag.ContinueOnError), "MIN_GAPP")
}

func TestRepeatedFlagLastWins(t *testing.T) {
	s, err := Load(nil, "", flagsOf(t, "--min-gap", "2s", "--min-gap", "3s"))
	if err != nil || s.MinGap != 3*time.Second {
		t.Errorf("MinGap = %v, %v", s.MinGap, err)
	}
}
