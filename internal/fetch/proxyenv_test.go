package fetch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// HTTP_PROXY and NO_PROXY are honoured by default. The environment is read
// once per process, so the check runs in a child process of the test binary.
func TestProxyFromEnvironment(t *testing.T) {
	if os.Getenv("FETCH_PROXY_CHILD") != "" {
		proxyChild(t)
		return
	}
	var seen atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		if r.URL.Path == "/robots.txt" {
			_, _ = w.Write([]byte("User-agent: *\nAllow: /\n"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>" + r.URL.Host + "</html>"))
	}))
	defer proxy.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProxyFromEnvironment$", "-test.v")
	cmd.Env = append(os.Environ(), "FETCH_PROXY_CHILD=1", "HTTP_PROXY="+proxy.URL, "NO_PROXY=127.0.0.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if n := seen.Load(); n != 2 {
		t.Errorf("proxy saw %d requests, want robots.txt and the page of proxied.example only", n)
	}
}

func proxyChild(t *testing.T) {
	s := config.Defaults()
	// Every default but the resolver (environment proxy, real dialer, guard
	// on): the target handed to the proxy is judged by what the fetcher's
	// resolver says of it, and this one says every name is public.
	f, err := fetch.New(fetch.Options{Settings: s, Logger: discard, Resolver: simweb.Remote{}})
	if err != nil {
		t.Fatal(err)
	}
	res := f.Fetch(context.Background(), fetch.Request{URL: "http://proxied.example/p", Purpose: model.PurposePage})
	if res.Outcome != model.OutcomeFetched || !strings.Contains(string(res.Body), "proxied.example") {
		t.Fatalf("through the proxy: %s %v %q", res.Outcome, res.Err, res.Body)
	}
	// NO_PROXY: dialled directly, where the guard refuses the loopback
	// literal before connecting; through the proxy it would have been
	// fetched (and counted by the parent). Loopback, and a port nothing
	// listens on, so that even a broken guard sends nothing off the machine.
	res = f.Fetch(context.Background(), fetch.Request{URL: "http://127.0.0.1:1/p", Purpose: model.PurposePage})
	// The guard refuses robots.txt first, and the page with it.
	if res.Outcome != model.OutcomeError || !fetch.GuardRefused(res.Err) {
		t.Fatalf("NO_PROXY host: %s (robots %s) %v, want robots.txt refused by the address guard", res.Outcome, res.Robots, res.Err)
	}
}
