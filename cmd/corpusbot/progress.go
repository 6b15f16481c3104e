package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/logging"
)

// crawlLogger is where a crawl command's progress goes: on a terminal, at
// the default level and format, one status line rewritten in place
// (warnings and errors on lines of their own); otherwise log lines, one per
// event, for files and journals, at LOG_LEVEL in LOG_FORMAT.
func crawlLogger(w io.Writer, s config.Settings) (*slog.Logger, error) {
	if isTerminal(w) && s.LogLevel == "info" && s.LogFormat == "text" {
		return slog.New(&progressHandler{w: w, mu: new(sync.Mutex)}), nil
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

// progressHandler draws Info records as the one status line and prints
// Warn and above above it.
type progressHandler struct {
	w     io.Writer
	mu    *sync.Mutex
	attrs []slog.Attr
}

func (h *progressHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *progressHandler) Handle(_ context.Context, r slog.Record) error {
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
	h.mu.Lock()
	defer h.mu.Unlock()
	line := b.String()
	if r.Level >= slog.LevelWarn {
		_, err := fmt.Fprintf(h.w, "\r\033[K%s %s\n", r.Level, line)
		return err
	}
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	_, err := fmt.Fprintf(h.w, "\r\033[K%s", line)
	return err
}

func (h *progressHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &progressHandler{w: h.w, mu: h.mu, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *progressHandler) WithGroup(string) slog.Handler { return h }
