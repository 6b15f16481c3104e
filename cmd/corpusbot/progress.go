package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/logging"
)

// crawlLogger is where a crawl command's progress goes: on a terminal, at
// the default level and format, one status line rewritten in place
// (warnings and errors on lines of their own); otherwise log lines, one per
// event, for files and journals, at LOG_LEVEL in LOG_FORMAT.
func crawlLogger(w io.Writer, s config.Settings) (*slog.Logger, error) {
	if isTerminal(w) && s.LogLevel == "info" && s.LogFormat == "text" {
		return slog.New(newProgressHandler(w)), nil
	}
	return logging.New(w, s.LogLevel, s.LogFormat)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressHandler draws the crawler's progress records as one status line
// rewritten in place ("sites 120/2000 · 14 in flight · 35 req/s · 2 errors ·
// ETA 3m10s"), the latest other Info record after it, prints each round's
// summary and every Warn and above on a line of its own, and redraws the
// status line under them.
type progressHandler struct {
	w     io.Writer
	state *progressState // shared with the WithAttrs copies
	attrs []slog.Attr
}

// progressState is the status line last drawn from a progress record; mu
// also keeps the lines of concurrent records whole.
type progressState struct {
	mu     sync.Mutex
	status string
}

// Records the handler treats apart (crawl's Crawler.report and the end of
// a round).
const (
	progressMessage  = "progress"
	roundDoneMessage = "round done"
)

// statusWidth bounds the line drawn in place: a longer one would wrap, and
// the next carriage return would then rewrite only its last row.
const statusWidth = 120

func newProgressHandler(w io.Writer) *progressHandler {
	return &progressHandler{w: w, state: new(progressState)}
}

func (h *progressHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *progressHandler) Handle(_ context.Context, r slog.Record) error {
	st := h.state
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case r.Level >= slog.LevelWarn:
		_, err := fmt.Fprintf(h.w, "\r\033[K%s %s\n%s", r.Level, h.plain(r), clip(st.status))
		return err
	case r.Message == progressMessage:
		st.status = statusLine(r)
		_, err := fmt.Fprintf(h.w, "\r\033[K%s", clip(st.status))
		return err
	case r.Message == roundDoneMessage:
		// The round's summary stays on screen; its status line is done.
		st.status = ""
		_, err := fmt.Fprintf(h.w, "\r\033[K%s\n", h.plain(r))
		return err
	}
	line := h.plain(r)
	if st.status != "" {
		line = st.status + " · " + line
	}
	_, err := fmt.Fprintf(h.w, "\r\033[K%s", clip(line))
	return err
}

// plain is a record as "message key=value ...".
func (h *progressHandler) plain(r slog.Record) string {
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	return b.String()
}

// statusLine renders a progress record (attributes sites_done, sites_due,
// in_flight, req_per_s, errors and eta, as crawl's report logs them):
// "sites 120/2000 · 14 in flight · 35 req/s · 2 errors · ETA 3m10s". The
// ETA is "?" until a site is done, the rate of finishing unknown before.
func statusLine(r slog.Record) string {
	v := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		v[a.Key] = a.Value.String()
		return true
	})
	or := func(key, def string) string {
		if s, ok := v[key]; ok && s != "" {
			return s
		}
		return def
	}
	done, due := or("sites_done", "0"), or("sites_due", "?")
	eta := or("eta", "unknown")
	if eta == "unknown" || eta == "0s" && done != due {
		eta = "?"
	}
	errs := or("errors", "0")
	noun := "errors"
	if errs == "1" {
		noun = "error"
	}
	return fmt.Sprintf("sites %s/%s · %s in flight · %s req/s · %s %s · ETA %s",
		done, due, or("in_flight", "0"), or("req_per_s", "0"), errs, noun, eta)
}

// clip cuts s to statusWidth characters (not bytes: "·" is two), marking
// the cut.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= statusWidth {
		return s
	}
	return string([]rune(s)[:statusWidth-1]) + "…"
}

func (h *progressHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &progressHandler{w: h.w, state: h.state, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *progressHandler) WithGroup(string) slog.Handler { return h }
