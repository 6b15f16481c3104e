// Package logging makes the process's slog.Logger from the level and format
// an operator names, and logs the HTTP server's requests.
package logging

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Levels and Formats are the words New accepts, in the order help text
// lists them.
var (
	Levels  = []string{"debug", "info", "warn", "error"}
	Formats = []string{"text", "json"}
)

// New makes a logger writing to w. level is debug, info, warn or error
// (any case; empty: info); format is text or json (empty: text). Any other
// word is an error that names the accepted ones.
func New(w io.Writer, level, format string) (*slog.Logger, error) {
	var lvl slog.Level
	switch strings.ToLower(strings.TrimSpace(level)) {
	case "debug":
		lvl = slog.LevelDebug
	case "info", "":
		lvl = slog.LevelInfo
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		return nil, fmt.Errorf("log level %q: want one of %s", level, strings.Join(Levels, ", "))
	}
	opts := &slog.HandlerOptions{Level: lvl}
	switch strings.ToLower(strings.TrimSpace(format)) {
	case "text", "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, fmt.Errorf("log format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
}

// AccessLog logs one INFO line per request next serves: method, path (the
// query is left out: it may carry a token), status, body bytes written,
// duration and the client's address. clientAddr says the client's address
// (behind a proxy, the one the proxy vouches for); nil means r.RemoteAddr.
func AccessLog(next http.Handler, log *slog.Logger, clientAddr func(*http.Request) string) http.Handler {
	if clientAddr == nil {
		clientAddr = func(r *http.Request) string { return r.RemoteAddr }
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			status := rec.status
			if status == 0 {
				// Nothing written: net/http answers 200 with an empty body.
				status = http.StatusOK
			}
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("client", clientAddr(r)),
			)
		}()
		next.ServeHTTP(rec, r)
	})
}

// recorder notes the status and the bytes of a response as they pass.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	// 1xx answers (103 Early Hints) precede the real one.
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the writer's Flush, Hijack and
// deadlines through the recorder.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
