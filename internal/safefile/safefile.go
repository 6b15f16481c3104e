// Package safefile writes output files that can never destroy what was
// there before: an export or a backup is written under a temporary name
// beside its target and given the target's name only once it is whole, an
// existing file is replaced only when the caller says so, a symbolic link
// is never followed, and a set of protected files (a database and its
// companions) is never replaced whatever the caller says.
//
// The bug this prevents: an export opened its --output with os.Create, so
// `--output x.db` on the database x.db truncated the open database, and the
// failed export then removed what was left.
package safefile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// The reasons a target is refused; a refusal is an *Error that wraps one of
// them (errors.Is). An existing file refused for want of Options.Replace
// wraps fs.ErrExist.
var (
	ErrSymlink    = errors.New("is a symbolic link, which is never followed nor replaced: name its target, or remove the link")
	ErrDirectory  = errors.New("is a directory")
	ErrNotRegular = errors.New("is not a regular file (a device, a pipe or a socket)")
	ErrProtected  = errors.New("is a protected file")
)

// Error is a refused target.
type Error struct {
	Path string // the target as the caller named it
	Err  error  // fs.ErrExist or one of the Err* reasons above
	// Is, for ErrProtected, is the protected file the target is (as the
	// caller listed it), and What the name Options gave the protected set.
	Is, What string
}

func (e *Error) Error() string {
	switch {
	case errors.Is(e.Err, ErrProtected) && e.Is == e.Path:
		return fmt.Sprintf("%s is %s: it is never overwritten", e.Path, e.What)
	case errors.Is(e.Err, ErrProtected):
		return fmt.Sprintf("%s is %s (%s): it is never overwritten", e.Path, e.What, e.Is)
	case errors.Is(e.Err, fs.ErrExist):
		return e.Path + " already exists"
	default:
		return e.Path + " " + e.Err.Error()
	}
}

func (e *Error) Unwrap() error { return e.Err }

// Options say what a target may replace.
type Options struct {
	// Replace lets an existing regular file at the target be replaced (a
	// command's --force). Nothing else is ever replaced: not a symbolic
	// link, a directory, a device, nor a protected file.
	Replace bool
	// Protected are files the target may never be, whatever Replace says,
	// whether they exist or not: the target is compared with each by its
	// absolute path with its directory's symbolic links resolved, and,
	// where both exist, by os.SameFile (a hard link is the same file).
	Protected []string
	// ProtectedName names the protected files in a refusal, e.g. "the
	// database or one of its files"; "a protected file" when empty.
	ProtectedName string
	// Perm is the new file's permissions before the umask; 0o666 when 0.
	Perm fs.FileMode
}

// File is an output being written: an *os.File open on a temporary file
// beside the target. Commit gives it the target's name; Abort (deferred)
// removes it if Commit did not happen or failed.
type File struct {
	*os.File
	target string
	opts   Options
	closed bool
	done   bool // committed: the temporary name is gone
}

// Check says whether path may be written under opts, without writing
// anything: nil, or an *Error saying why not (or the error met looking).
func Check(path string, opts Options) error {
	info, err := os.Lstat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("look at %s: %w", path, err)
	}
	// A protected file first: telling someone to pass --force for the
	// database would only lead to a second refusal.
	if is, err := protectedAs(path, info, opts.Protected); err != nil {
		return err
	} else if is != "" {
		what := opts.ProtectedName
		if what == "" {
			what = "a protected file"
		}
		return &Error{Path: path, Err: ErrProtected, Is: is, What: what}
	}
	if !exists {
		return nil
	}
	switch mode := info.Mode(); {
	case mode&fs.ModeSymlink != 0:
		return &Error{Path: path, Err: ErrSymlink}
	case mode.IsDir():
		return &Error{Path: path, Err: ErrDirectory}
	case !mode.IsRegular():
		return &Error{Path: path, Err: ErrNotRegular}
	case !opts.Replace:
		return &Error{Path: path, Err: fs.ErrExist}
	}
	return nil
}

// Create checks path (Check) and opens a new temporary file in its
// directory to write the output to. Nothing is written at path until
// Commit.
func Create(path string, opts Options) (*File, error) {
	if err := Check(path, opts); err != nil {
		return nil, err
	}
	perm := opts.Perm
	if perm == 0 {
		perm = 0o666
	}
	dir, base := filepath.Split(path)
	// The temporary name is hidden and says what it is, so that one left
	// by a killed process is recognisable; O_EXCL makes it ours alone.
	for range 100 {
		tmp := filepath.Join(dir, "."+base+".tmp-"+randomSuffix())
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create a temporary file beside %s: %w", path, err)
		}
		return &File{File: f, target: path, opts: opts}, nil
	}
	return nil, fmt.Errorf("create a temporary file beside %s: no free name", path)
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// TempName is the temporary file's path, for a writer that must name it
// rather than write to the open file (SQLite's VACUUM INTO).
func (f *File) TempName() string { return f.File.Name() }

// Target is the path Commit writes to.
func (f *File) Target() string { return f.target }

// Commit makes the output durable and gives it the target's name, after
// checking the target again (it may have changed since Create): without
// Replace the name is taken only if still free (a hard link, which fails
// rather than replace), with Replace by a rename, which replaces a file and
// never writes through a symbolic link. On error the target is as it was.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	defer f.Abort() // a failed commit leaves no temporary file
	if err := f.File.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", f.target, err)
	}
	f.closed = true
	if err := f.File.Close(); err != nil {
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	if err := Check(f.target, f.opts); err != nil {
		return err
	}
	tmp := f.TempName()
	if f.opts.Replace {
		if err := os.Rename(tmp, f.target); err != nil {
			return fmt.Errorf("write %s: %w", f.target, err)
		}
	} else if err := os.Link(tmp, f.target); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &Error{Path: f.target, Err: fs.ErrExist}
		}
		// A file system without hard links: check again and rename
		// (a file appearing in between would be replaced; the window is
		// the two calls').
		if err := Check(f.target, f.opts); err != nil {
			return err
		}
		if err := os.Rename(tmp, f.target); err != nil {
			return fmt.Errorf("write %s: %w", f.target, err)
		}
	} else {
		// The target has its name: the output is done, whatever follows.
		f.done = true
		if err := os.Remove(tmp); err != nil {
			return fmt.Errorf("write %s: remove %s: %w", f.target, tmp, err)
		}
	}
	f.done = true
	if err := syncDir(filepath.Dir(f.target)); err != nil {
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// Abort removes the temporary file unless Commit succeeded in naming it;
// the target is left as it was. Safe to call more than once, and after
// Commit (defer it).
func (f *File) Abort() {
	if f.done {
		return
	}
	if !f.closed {
		f.closed = true
		f.File.Close()
	}
	os.Remove(f.TempName())
	f.done = true
}

// syncDir flushes a directory's entries (a new name) to stable storage.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// protectedAs is the protected file path is ("" when none). info is
// path's Lstat, nil when it does not exist.
func protectedAs(path string, info fs.FileInfo, protected []string) (string, error) {
	if len(protected) == 0 {
		return "", nil
	}
	names, err := spellings(path)
	if err != nil {
		return "", err
	}
	var target fs.FileInfo // what path names, through a symbolic link
	if info != nil {
		target, _ = os.Stat(path)
	}
	for _, p := range protected {
		pnames, err := spellings(p)
		if err != nil {
			return "", err
		}
		for _, a := range names {
			for _, b := range pnames {
				if a == b {
					return p, nil
				}
			}
		}
		if info == nil {
			continue
		}
		// A protected path that does not exist matched above or not at
		// all. The link's target too: a symbolic link to the database is
		// refused as the database, the clearer of the two refusals.
		pinfo, err := os.Stat(p)
		if err != nil {
			continue
		}
		if os.SameFile(info, pinfo) || (target != nil && os.SameFile(target, pinfo)) {
			return p, nil
		}
	}
	return "", nil
}

// spellings are the absolute paths that name path: with its directory's
// symbolic links resolved (a path through a linked directory is the same
// file), and, when path itself is a symbolic link, what it resolves to.
// A directory that does not exist is taken as written.
func spellings(path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	out := []string{abs}
	dir, base := filepath.Split(abs)
	if rdir, err := filepath.EvalSymlinks(dir); err == nil {
		out = append(out, filepath.Join(rdir, base))
	}
	if full, err := filepath.EvalSymlinks(abs); err == nil {
		out = append(out, full)
	}
	return out, nil
}
