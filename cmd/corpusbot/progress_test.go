package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// progressRecord is a record as crawl's Crawler.report logs it.
func progressRecord(done, due, inFlight int64, reqPerS int, errs int64, eta string) slog.Record {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "progress", 0)
	r.Add("sites_done", done, "sites_due", due, "in_flight", inFlight,
		"requests", int64(5000), "req_per_s", reqPerS, "errors", errs, "eta", eta)
	return r
}

func TestStatusLine(t *testing.T) {
	for _, tt := range []struct {
		r    slog.Record
		want string
	}{
		{progressRecord(120, 2000, 14, 35, 2, "3m10s"), "sites 120/2000 · 14 in flight · 35 req/s · 2 errors · ETA 3m10s"},
		{progressRecord(0, 2000, 2000, 0, 0, "0s"), "sites 0/2000 · 2000 in flight · 0 req/s · 0 errors · ETA ?"},
		{progressRecord(0, 1, 1, 0, 1, "unknown"), "sites 0/1 · 1 in flight · 0 req/s · 1 error · ETA ?"},
		{progressRecord(1999, 2000, 1, 40, 1, "1s"), "sites 1999/2000 · 1 in flight · 40 req/s · 1 error · ETA 1s"},
		{progressRecord(2000, 2000, 0, 40, 0, "0s"), "sites 2000/2000 · 0 in flight · 40 req/s · 0 errors · ETA 0s"},
	} {
		if got := statusLine(tt.r); got != tt.want {
			t.Errorf("statusLine = %q, want %q", got, tt.want)
		}
	}
}

// TestProgressHandler: the status line is drawn in place and stays, with
// the latest event after it; warnings and the round's summary get lines of
// their own and the status line is drawn again under a warning.
func TestProgressHandler(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(newProgressHandler(&out)).With("worker", 1)
	status := "sites 120/2000 · 14 in flight · 35 req/s · 2 errors · ETA 3m10s"
	log.Info("feed polled", "feed", "https://a.example/feed")
	if got := out.String(); got != "\r\033[Kfeed polled worker=1 feed=https://a.example/feed" {
		t.Errorf("before any progress: %q", got)
	}
	out.Reset()
	r := progressRecord(120, 2000, 14, 35, 2, "3m10s")
	if err := log.Handler().Handle(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "\r\033[K"+status {
		t.Errorf("progress: %q", got)
	}
	out.Reset()
	log.Info("feed polled", "feed", "https://b.example/feed")
	if got := out.String(); got != "\r\033[K"+status+" · feed polled worker=1 feed=https://b.example/feed" {
		t.Errorf("event after progress: %q", got)
	}
	out.Reset()
	log.Warn("store slow", "took", "3s")
	if got := out.String(); got != "\r\033[KWARN store slow worker=1 took=3s\n"+status {
		t.Errorf("warning: %q", got)
	}
	out.Reset()
	log.Info("round done", "requests", 5000)
	if got := out.String(); got != "\r\033[Kround done worker=1 requests=5000\n" {
		t.Errorf("round done: %q", got)
	}
	out.Reset()
	log.Info("feed polled", "feed", "https://"+strings.Repeat("x", 200)+".example/feed")
	if got := strings.TrimPrefix(out.String(), "\r\033[K"); !strings.HasPrefix(got, "feed polled") ||
		len([]rune(got)) != statusWidth || !strings.HasSuffix(got, "…") {
		t.Errorf("a long event after the round: %q", got)
	}
}
