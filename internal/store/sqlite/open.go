// Package sqlite is the embedded Store backend: one file, WAL, migrations
// versioned in the code, the pure-Go modernc.org/sqlite driver (no C
// toolchain needed). The queries are the store package's, shared with the
// PostgreSQL backend.
//
// Writes go through one connection (SQLite has one writer anyway; queueing
// them in the process rather than in busy loops keeps them fair), and
// through one goroutine that commits every write waiting in one transaction
// (the store's group commit, which waits up to 15 ms for more
// writes while writes are contended): with synchronous=FULL each commit is
// an fsync, which many writes then share. Reads go through a small pool that WAL lets
// run beside the writer. A write returns once committed, and a committed
// write survives kill -9 and power loss alike.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"

	"corpus.blog/corpusbot/internal/store"

	_ "modernc.org/sqlite" // the driver
)

var dialect = store.Dialect{Name: "sqlite", QuestionPlaceholders: true, GroupCommit: true, CacheStatements: true, BytewiseText: true, LocalWorkers: true, Fault: fault,
	// The one writer stamps changes in its commit order (migrate.go):
	// what changed after a cursor is what is stamped above it.
	Changes: store.Changes{
		Cursor: `SELECT CAST(n AS TEXT) FROM post_change_seq`,
		Valid: func(pos string) bool {
			_, err := strconv.ParseUint(pos, 10, 63)
			return err == nil
		},
		After: func(ph string) string { return `p.change_seq > CAST(` + ph + ` AS INTEGER)` },
	},
}

// WALCheckpointPages is how many pages the WAL may hold before the writer
// copies them into the database file (PRAGMA wal_autocheckpoint). A crawl
// writes the same pages again and again (the request log's last leaf, the
// indexes' hot leaves, the sources being worked on), and a checkpoint
// copies each page once however many commits wrote it since the last: so
// the longer the WAL between checkpoints, the fewer pages copied, read
// back and synced per write. At SQLite's default, 1,000 pages (4 MiB),
// checkpoints took 3.2–3.4% of the CPU of a 100,000-site first pass; at
// 10,000 pages (a WAL of 40 MiB at most beside the file) they took 1.3%,
// and the commits' whole cost fell by 11% on the first day and 22% on the
// second (BenchmarkFarmThroughput).
const WALCheckpointPages = 10_000

// DB is the SQLite Store.
type DB struct {
	*store.DB
}

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, dialect)
}

// open is Open with the dialect given (the benchmarks compare group commit
// with a transaction per write).
func open(ctx context.Context, path string, dialect store.Dialect) (*DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_txlock=immediate"
	// The writer keeps its temporary files in memory: above all the
	// savepoints' sub-journals (a group commit's every write has one), which
	// would otherwise cost a temporary file's writes per page changed.
	// Its page cache is 64 MiB rather than SQLite's 2 MiB: the indexes a
	// crawl writes into at random (posts by URL, above all) stay in memory
	// instead of being read back from the file at every write.
	// It checkpoints the WAL into the file every WALCheckpointPages pages
	// rather than SQLite's 1,000 (see there).
	w, err := sql.Open("sqlite", dsn+"&_pragma=temp_store(MEMORY)&_pragma=cache_size(-65536)"+
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)", WALCheckpointPages))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Writes go through one connection, the group commit's (the writer
	// goroutine's transaction holds it); a second one only ever prepares
	// statements for the first to keep (store/statements.go), which
	// database/sql does on whichever connection is free.
	w.SetMaxOpenConns(2)
	w.SetMaxIdleConns(2)
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Every reader kept open: a connection closed and opened again costs
	// its pragmas and its prepared statements anew.
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	// Every process is a worker of its own, as on PostgreSQL: several
	// crawl commands on one file share its sites through the checkouts.
	db := &DB{store.New(w, r, dialect, "", 0, nil)}
	// A process on this machine that was killed left its sites checked
	// out: they are free again before this one looks for work.
	if err := db.ReleaseDeadWorkers(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.Backfill(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}
