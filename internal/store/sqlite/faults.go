package sqlite

import (
	"errors"

	"corpus.blog/corpusbot/internal/store"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// fault is the SQLite dialect's reading of its driver's errors
// (store.Dialect.Fault): by the primary result code, the extended codes
// (SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED, …) being its refinements.
//
//   - The file cannot take the write: SQLITE_FULL (the disk or
//     max_page_count), SQLITE_READONLY, SQLITE_CORRUPT and SQLITE_NOTADB,
//     SQLITE_IOERR (the write or its fsync failed), SQLITE_CANTOPEN (the
//     file, its WAL or its directory cannot be opened).
//   - Try later: SQLITE_BUSY and SQLITE_LOCKED, which reach the store only
//     once the busy timeout (10 s) has passed with another process's
//     write holding the file.
func fault(err error) (store.Fault, error) {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return store.NoFault, nil
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB,
		sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		return store.CannotWrite, e
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return store.Unavailable, e
	}
	return store.NoFault, nil
}
