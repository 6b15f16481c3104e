package postgres

import "corpus.blog/corpusbot/internal/store"

// The lease's and the robots cache's times are stored as the shared
// queries store theirs.
var (
	ts = store.Nanos
	tm = store.Time
)
