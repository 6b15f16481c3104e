package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"corpus.blog/corpusbot/internal/safefile"
)

// Backup writes a consistent copy of the database behind db to a new file
// at path, with VACUUM INTO: a snapshot of one read transaction, so the
// crawler may go on writing meanwhile (WAL lets the read run beside the
// writer), and compacted, so the copy is no larger than the live data.
// Pass the store's writer pool (DB.Writer()).
//
// An existing file at path is never overwritten, a symbolic link never
// followed, and the database's own files (Files) are refused whether they
// exist or not: a backup that lands on the live database, or on last
// night's copy, must fail rather than clobber it. The copy is written
// under a temporary name in path's directory, synced, and only then given
// its name (package safefile, which the exports share), so that a crash
// leaves no half-written file where a backup is expected.
func Backup(ctx context.Context, db *sql.DB, path string) error {
	live, err := mainFile(ctx, db)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	// The copy holds what the database holds: readable by its owner only
	// until they say otherwise.
	opts := safefile.Options{}
	if live != "" {
		opts = OutputOptions(live)
	}
	opts.Perm = 0o600
	out, err := safefile.Create(path, opts)
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	defer out.Abort()
	// VACUUM INTO accepts an empty file as its target, and writes it by
	// name: the temporary file is reserved (created) but written by SQLite.
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, out.TempName()); err != nil {
		return fmt.Errorf("backup to %s: vacuum into %s: %w", path, out.TempName(), err)
	}
	if err := out.Commit(); err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	return nil
}

// Files are the database file at path and the companions SQLite keeps
// beside it under its name (the write-ahead log and its index in WAL mode,
// the rollback journal otherwise), also under the name path resolves to
// when it is a symbolic link: the files an output must never replace.
func Files(path string) []string {
	names := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		names = append(names, real)
	}
	var files []string
	for _, n := range names {
		files = append(files, n, n+"-wal", n+"-shm", n+"-journal")
	}
	return files
}

// OutputOptions are the safefile options of an output written while the
// database at path is in use (an export, a backup): never onto its Files.
func OutputOptions(path string) safefile.Options {
	return safefile.Options{Protected: Files(path), ProtectedName: "the database or one of its files"}
}

// mainFile is the file of the database behind db, as SQLite names it
// ("" for an in-memory database).
func mainFile(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, `PRAGMA database_list`)
	if err != nil {
		return "", fmt.Errorf("name the database file: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var name, file string
		if err := rows.Scan(&seq, &name, &file); err != nil {
			return "", fmt.Errorf("name the database file: %w", err)
		}
		if name == "main" {
			return file, nil
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("name the database file: %w", err)
	}
	return "", nil
}

// Vacuum rebuilds the database behind db, returning the pages deleted rows
// left free to the file system, then truncates the write-ahead log that
// the rebuild filled. It needs the database to itself for its duration:
// writes wait for it (busy_timeout), so run it when the crawler is idle.
// Pass the store's writer pool (DB.Writer()).
func Vacuum(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("vacuum: checkpoint: %w", err)
	}
	return nil
}
