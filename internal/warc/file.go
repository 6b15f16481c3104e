package warc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// warcFile is what a Writer needs of a file it writes: *os.File has it.
// Truncate and Seek cut a failed write back.
type warcFile interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
	Sync() error
	Close() error
}

// createFunc creates a new file at path, failing if one exists.
type createFunc func(path string) (warcFile, error)

// createLocked creates path and takes an exclusive lock on it, which it
// keeps until it is closed (or the process ends, however it ends), so that
// Recover in another process leaves the file alone while it is written.
func createLocked(path string) (warcFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	locked, err := tryLock(f)
	if err == nil && !locked {
		err = fmt.Errorf("%s is locked by another process", path)
	}
	if err != nil {
		return nil, errors.Join(err, f.Close(), os.Remove(path))
	}
	return f, nil
}

// renameNoReplace renames from to to, refusing to replace a file already
// at to. The caller syncs the directory (syncDir) for the new name to
// survive a crash.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fmt.Errorf("rename %s: %s exists already", filepath.Base(from), filepath.Base(to))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(from, to)
}

// syncDir syncs a directory, so that the names changed in it last.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
