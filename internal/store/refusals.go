package store

import (
	"context"
	"log/slog"

	"corpus.blog/corpusbot/internal/fetch"
)

// Refusals is fetch.Refusals kept in a Store, so that the 403 refusal list
// survives restarts. fetch.Refusals has no error return: a failed read
// answers "not refused" (the fetcher then asks and learns again), a failed
// write is logged.
type Refusals struct {
	Store Store
	Log   *slog.Logger
}

var _ fetch.Refusals = Refusals{}

// Get implements fetch.Refusals.
func (r Refusals) Get(site string) fetch.RefusalState {
	s, err := r.Store.Refusal(context.Background(), site)
	if err != nil {
		r.logger().Warn("refusal list read failed", "site", site, "err", err)
	}
	return s
}

// Put implements fetch.Refusals.
func (r Refusals) Put(site string, s fetch.RefusalState) {
	if err := r.Store.PutRefusal(context.Background(), site, s); err != nil {
		r.logger().Warn("refusal list write failed", "site", site, "err", err)
	}
}

func (r Refusals) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}
