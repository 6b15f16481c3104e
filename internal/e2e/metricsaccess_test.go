package e2e

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
)

// freeAddr is a loopback address nothing listens on, for serve --addr.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// getMetrics asks serve at addr for /metrics with header set, waiting for
// it to listen; it returns the status and body.
func getMetrics(t *testing.T, addr string, header map[string]string) (int, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve at %s never answered: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBinaryServeMetricsAccess: `serve` answers /metrics to loopback by
// default, refuses it (403) to a client outside METRICS_ALLOWED_NETWORKS,
// and a request forwarded by a proxy TRUSTED_PROXIES does not list gets
// nothing, whatever X-Forwarded-For says; the pages stay public.
func TestBinaryServeMetricsAccess(t *testing.T) {
	t.Parallel()
	env := binarytest.NewEnv(t)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.30/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}

	addr := freeAddr(t)
	stop := env.Start(t, "serve", "--addr", addr)
	code, body := getMetrics(t, addr, nil)
	if code != http.StatusOK || !strings.Contains(body, "corpusbot_") {
		t.Errorf("default, from loopback: %d %.200q, want the metrics", code, body)
	}
	for _, h := range []map[string]string{
		{"X-Forwarded-For": "203.0.113.9"}, // an untrusted local proxy forwarding a visitor
		{"X-Real-IP": "203.0.113.9"},
	} {
		if code, body := getMetrics(t, addr, h); code != http.StatusForbidden || strings.Contains(body, "corpusbot_") {
			t.Errorf("default, forwarded by an untrusted proxy %v: %d %.200q, want 403", h, code, body)
		}
	}
	res, err := http.Get("http://" + addr + "/crawler")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("/crawler: %v %v", res, err)
	} else {
		res.Body.Close()
	}
	if r := stop(10 * time.Second); r.Code != 0 {
		t.Errorf("serve: exit %d %s", r.Code, r.Stderr)
	}

	// Loopback outside the allowed networks: refused, and so is a
	// spoofed X-Forwarded-For naming an allowed address.
	addr = freeAddr(t)
	env.Set("CORPUSBOT_METRICS_ALLOWED_NETWORKS", "10.0.0.0/8")
	stop = env.Start(t, "serve", "--addr", addr)
	for _, h := range []map[string]string{nil, {"X-Forwarded-For": "10.1.2.3"}} {
		if code, body := getMetrics(t, addr, h); code != http.StatusForbidden || strings.Contains(body, "corpusbot_") {
			t.Errorf("METRICS_ALLOWED_NETWORKS=10.0.0.0/8, from loopback %v: %d %.200q, want 403", h, code, body)
		}
	}
	if r := stop(10 * time.Second); r.Code != 0 {
		t.Errorf("serve: exit %d %s", r.Code, r.Stderr)
	}

	// A bad value is refused at start, naming the setting.
	env.Set("CORPUSBOT_METRICS_ALLOWED_NETWORKS", "10.0.0.0/33")
	if r := env.Run(t, time.Minute, "serve", "--addr", freeAddr(t)); r.Code == 0 || !strings.Contains(r.Stderr, "METRICS_ALLOWED_NETWORKS") {
		t.Errorf("bad METRICS_ALLOWED_NETWORKS: exit %d %s", r.Code, r.Stderr)
	}
}
