package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database behind db to a new file
// at path, with VACUUM INTO: a snapshot of one read transaction, so the
// crawler may go on writing meanwhile (WAL lets the read run beside the
// writer), and compacted, so the copy is no larger than the live data.
// Pass the store's writer pool (DB.Writer()).
//
// An existing file at path is never overwritten: a backup that lands on
// the live database, or on last night's copy, must fail rather than clobber
// it. The copy is written under a temporary name in path's directory,
// synced, and only then given its name, so that a crash leaves no
// half-written file where a backup is expected.
func Backup(ctx context.Context, db *sql.DB, path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("backup to %s: %w", path, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	// VACUUM INTO accepts an empty file as its target, so the temporary
	// name is reserved by creating it: no other writer can take it.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmpPath)
		}
	}()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmpPath); err != nil {
		return fmt.Errorf("backup to %s: vacuum into %s: %w", path, tmpPath, err)
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("backup to %s: %w", path, err)
	}
	// A hard link gives the name only if it is still free (rename would
	// replace a file that appeared meanwhile).
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("backup to %s: %w", path, fs.ErrExist)
		}
		// A file system without hard links: check again and rename.
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("backup to %s: %w", path, fs.ErrExist)
		}
		if err := os.Rename(tmpPath, path); err != nil {
			return fmt.Errorf("backup to %s: %w", path, err)
		}
	} else if err := os.Remove(tmpPath); err != nil {
		return fmt.Errorf("backup to %s: remove %s: %w", path, tmpPath, err)
	}
	done = true
	if err := syncFile(dir); err != nil {
		return fmt.Errorf("backup to %s: sync directory: %w", path, err)
	}
	return nil
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

// syncFile flushes a file or a directory to stable storage.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}
