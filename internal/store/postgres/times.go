package postgres

import "corpus.blog/corpusbot/internal/store/sqlstore"

// The lease's and the robots cache's times are stored as the shared
// queries store theirs.
var (
	ts = sqlstore.Nanos
	tm = sqlstore.Time
)
