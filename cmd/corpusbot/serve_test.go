package main

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/web"
)

func TestServeFlags(t *testing.T) {
	out, _, code := runCLI(t, nil, nil, "serve", "--help")
	listed := helpFlags(out)
	for _, want := range []string{"addr", "egress", "verify-domain", "config", "db", "user-agent", "public-url", "trusted-proxies", "metrics-allowed-networks", "log-level", "log-format"} {
		if _, ok := listed[want]; code != 0 || !ok {
			t.Errorf("serve --help lacks -%s: %d %s", want, code, out)
		}
	}
	// Only its own: the crawler's settings are run's flags.
	if len(listed) != 11 {
		t.Errorf("serve --help lists %d flags, want 11: %v", len(listed), slices.Sorted(maps.Keys(listed)))
	}
	if _, errOut, code := runCLI(t, nil, nil, "serve", "--min-gap", "2s"); code != exitUsage || !strings.Contains(errOut, "min-gap") {
		t.Errorf("serve --min-gap: %d %q", code, errOut)
	}
	// The crawler's settings are still read, from the environment and the
	// file, for the crawler page: a bad one is refused before anything opens.
	if _, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_MIN_GAP": "0s"}, "serve", "--addr", "127.0.0.1:0"); code == 0 || !strings.Contains(errOut, "MIN_GAP") {
		t.Errorf("serve with CORPUSBOT_MIN_GAP=0s: %d %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, nil, nil, "serve", "--egress", "10.0.0.0/8,nonsense"); code != exitUsage || !strings.Contains(errOut, "nonsense") {
		t.Errorf("bad --egress: %d %s", code, errOut)
	}
	if _, _, code := runCLI(t, nil, nil, "serve", "extra"); code != exitUsage {
		t.Errorf("positional argument accepted: %d", code)
	}
}

func TestParsePrefixes(t *testing.T) {
	got, err := parsePrefixes(" 203.0.113.7, 198.51.100.0/24 ,2001:db8::1, 2001:db8:1::5/48,")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"203.0.113.7/32", "198.51.100.0/24", "2001:db8::1/128", "2001:db8:1::/48"}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i, p := range got {
		if p.String() != want[i] {
			t.Errorf("%d: %s, want %s", i, p, want[i])
		}
	}
	if p, _ := parsePrefixes(""); len(p) != 0 {
		t.Errorf("empty: %v", p)
	}
}

// TestServeUntilDone serves the site over an empty SQLite store on
// loopback, reads a page through a real connection and stops on cancel.
func TestServeUntilDone(t *testing.T) {
	db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "serve.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	site, err := web.New(web.Options{Data: db.SiteData(), Settings: config.Defaults(),
		EgressPrefixes: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() { done <- serveUntilDone(ctx, ln, site, log) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/crawler/ips.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"ipv4Prefix": "203.0.113.0/24"`) {
		t.Errorf("%d %s", res.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestHTTPServerTimeouts(t *testing.T) {
	s := newHTTPServer(http.NotFoundHandler(), slog.New(slog.DiscardHandler))
	if s.ReadHeaderTimeout <= 0 || s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 || s.MaxHeaderBytes <= 0 {
		t.Errorf("unbounded server: %+v", s)
	}
}
