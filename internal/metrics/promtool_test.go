package metrics

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os/exec"
	"testing"
)

// TestPromtoolCheckMetrics runs Prometheus's own linter, `promtool check
// metrics`, over a scrape with every family exposed. promtool comes with
// Debian's prometheus package, which CI installs (.ci/run); the test skips
// where it is missing.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian: apt-get install prometheus)")
	}
	m := exercised()
	m.KnownRetryKinds("page", "feed")
	m.KnownStoreOps("tx")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("scrape: %d", rec.Code)
	}
	ctx := context.Background()
	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(rec.Body.Bytes())
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
