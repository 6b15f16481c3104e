package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"corpus.blog/corpusbot/internal/metrics"
)

// pinger is the health check's question to the database.
type pinger interface {
	Ping(ctx context.Context) error
}

// opsHandler serves /metrics (Prometheus) and /healthz: 200 while the
// process runs and the database answers within two seconds, else 503 with
// the reason. Any other path goes to next (404 when nil).
func opsHandler(m *metrics.Metrics, db pinger, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if err := db.Ping(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "database": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"status": "ok", "database": "ok"})
	})
	if next != nil {
		mux.Handle("/", next)
	}
	return mux
}

// serveOps serves h at addr until ctx ends or stop is called.
func serveOps(ctx context.Context, addr string, h http.Handler, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address: %w", err)
	}
	srv := newHTTPServer(h, log)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}, nil
}
