package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"corpus.blog/corpusbot/internal/safefile"
)

// fixture is a directory holding a database c.db with its -wal and -shm
// (its -journal absent), a file old.out, a subdirectory sub, and links
// beside them. Every file has content that a test can check is unchanged.
type fixture struct {
	dir, db string
	files   map[string]string // path → content that must survive a refusal
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, db: filepath.Join(dir, "c.db"), files: map[string]string{}}
	for name, content := range map[string]string{"c.db": "DB", "c.db-wal": "WAL", "c.db-shm": "SHM", "old.out": "OLD", "other.out": "OTHER"} {
		f.write(t, name, content)
	}
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.Symlink(dir, filepath.Join(dir, "linkdir")))            // a directory reached through a link
	must(t, os.Symlink("other.out", filepath.Join(dir, "link.out")))   // a link to a file
	must(t, os.Symlink("nowhere.out", filepath.Join(dir, "dangling"))) // a link to nothing
	must(t, os.Symlink("c.db", filepath.Join(dir, "dblink")))          // a link to the database
	must(t, os.Link(f.db, filepath.Join(dir, "hard.db")))              // the database under a second name
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))         // not a regular file
	f.files[filepath.Join(dir, "hard.db")] = "DB"
	return f
}

func (f *fixture) write(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(f.dir, name)
	must(t, os.WriteFile(p, []byte(content), 0o644))
	f.files[p] = content
}

// protected is what sqlite.Files gives for the database: the file and its
// three companions (the journal does not exist).
func (f *fixture) protected() []string {
	return []string{f.db, f.db + "-wal", f.db + "-shm", f.db + "-journal"}
}

// untouched fails t if a fixture file changed (other than except), a
// temporary file was left anywhere under the directory, or a file appeared
// where a link points.
func (f *fixture) untouched(t *testing.T, except string) {
	t.Helper()
	for p, want := range f.files {
		if p == except {
			continue
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q unchanged", filepath.Base(p), got, err, want)
		}
	}
	for _, link := range []string{"link.out", "dangling", "dblink", "linkdir"} {
		if info, err := os.Lstat(filepath.Join(f.dir, link)); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", link, err)
		}
	}
	for _, p := range []string{"nowhere.out", "c.db-journal"} {
		if _, err := os.Lstat(filepath.Join(f.dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was created (%v)", p, err)
		}
	}
	filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", p)
		}
		return nil
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// write is what an export does: create, write, commit.
func write(path string, opts safefile.Options, content string) error {
	f, err := safefile.Create(path, opts)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.WriteString(content); err != nil {
		return err
	}
	return f.Commit()
}

func TestCreate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  string // relative to the fixture's directory unless absolute-looking ("./", "/")
		replace bool
		want    error // nil: written; else the refusal's reason
	}{
		{"new file", "new.out", false, nil},
		{"new file with force", "new.out", true, nil},
		{"new file in a linked directory", "linkdir/new.out", false, nil},
		{"existing file", "old.out", false, fs.ErrExist},
		{"existing file with force", "old.out", true, nil},
		{"existing file through a linked directory, force", "linkdir/old.out", true, nil},
		{"symlink to a file", "link.out", false, safefile.ErrSymlink},
		{"symlink to a file with force", "link.out", true, safefile.ErrSymlink},
		{"dangling symlink", "dangling", false, safefile.ErrSymlink},
		{"dangling symlink with force", "dangling", true, safefile.ErrSymlink},
		{"directory", "sub", false, safefile.ErrDirectory},
		{"directory with force", "sub", true, safefile.ErrDirectory},
		{"named pipe with force", "fifo", true, safefile.ErrNotRegular},
		{"database", "c.db", false, safefile.ErrProtected},
		{"database with force", "c.db", true, safefile.ErrProtected},
		{"database, ./ relative", "./c.db", true, safefile.ErrProtected},
		{"database, bare relative", "=c.db", true, safefile.ErrProtected},
		{"database via ..", "sub/../c.db", true, safefile.ErrProtected},
		{"database via a linked directory", "linkdir/c.db", true, safefile.ErrProtected},
		{"database via a doubled slash", "sub//..//c.db", true, safefile.ErrProtected},
		{"hard link to the database", "hard.db", true, safefile.ErrProtected},
		{"symlink to the database", "dblink", true, safefile.ErrProtected},
		{"-wal", "c.db-wal", true, safefile.ErrProtected},
		{"-shm", "c.db-shm", true, safefile.ErrProtected},
		{"-journal, absent", "c.db-journal", false, safefile.ErrProtected},
		{"-journal, absent, via a linked directory", "linkdir/c.db-journal", true, safefile.ErrProtected},
		{"-wal via a linked directory", "linkdir/c.db-wal", true, safefile.ErrProtected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			target := filepath.Join(f.dir, tc.target)
			switch {
			case strings.HasPrefix(tc.target, "./"), strings.HasPrefix(tc.target, "="):
				// Relative to the working directory, the way a user types it.
				t.Chdir(f.dir)
				target = strings.TrimPrefix(tc.target, "=")
			case strings.Contains(tc.target, "//"):
				target = f.dir + "/" + tc.target
			}
			err := write(target, safefile.Options{Replace: tc.replace, Protected: f.protected(), ProtectedName: "the database"}, "NEW")
			if tc.want == nil {
				if err != nil {
					t.Fatalf("write %s: %v", tc.target, err)
				}
				if got, err := os.ReadFile(target); err != nil || string(got) != "NEW" {
					t.Errorf("%s holds %q, %v; want the output", tc.target, got, err)
				}
				f.untouched(t, filepath.Join(f.dir, filepath.Base(tc.target)))
				return
			}
			var refused *safefile.Error
			if !errors.As(err, &refused) || !errors.Is(err, tc.want) {
				t.Fatalf("write %s: %v, want a refusal: %v", tc.target, err, tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, target) || strings.Contains(msg, "\n") {
				t.Errorf("refusal %q: want one line naming %s", msg, target)
			}
			f.untouched(t, "")
		})
	}
}

// TestProtectedSpelledRelative: the protected list, too, may be relative
// to the working directory (CORPUSBOT_DB=c.db) while the target is
// absolute.
func TestProtectedSpelledRelative(t *testing.T) {
	f := newFixture(t)
	t.Chdir(f.dir)
	opts := safefile.Options{Replace: true, Protected: []string{"c.db", "c.db-wal", "c.db-shm", "c.db-journal"}}
	for _, target := range []string{f.db, f.db + "-journal", filepath.Join(f.dir, "linkdir", "c.db-shm"), filepath.Join(f.dir, "hard.db")} {
		if err := write(target, opts, "NEW"); !errors.Is(err, safefile.ErrProtected) {
			t.Errorf("write %s: %v, want ErrProtected", target, err)
		}
	}
	if err := write(filepath.Join(f.dir, "fine.out"), opts, "NEW"); err != nil {
		t.Errorf("an unprotected target: %v", err)
	}
	f.untouched(t, "")
}

// TestFailedWriteLeavesTarget: an output abandoned half way (the export
// failed) leaves the target as it was, or absent, and no temporary file.
func TestFailedWriteLeavesTarget(t *testing.T) {
	for _, target := range []string{"old.out", "new.out"} {
		t.Run(target, func(t *testing.T) {
			f := newFixture(t)
			path := filepath.Join(f.dir, target)
			out, err := safefile.Create(path, safefile.Options{Replace: true})
			must(t, err)
			if _, err := out.WriteString("half an export"); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(filepath.Base(out.TempName()), "."+target+".tmp-") || filepath.Dir(out.TempName()) != f.dir {
				t.Errorf("temporary file %s: want a hidden name beside %s", out.TempName(), path)
			}
			out.Abort()
			out.Abort() // twice is harmless
			if target == "new.out" {
				if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("an abandoned output created %s", target)
				}
			}
			f.untouched(t, "")
		})
	}
}

// TestCommitChecksAgain: a target that changed between Create and Commit
// is judged as it is at Commit: a file that appeared is not replaced
// without Replace, a symbolic link that appeared is never written through.
func TestCommitChecksAgain(t *testing.T) {
	f := newFixture(t)
	appeared := filepath.Join(f.dir, "appeared.out")
	out, err := safefile.Create(appeared, safefile.Options{})
	must(t, err)
	f.write(t, "appeared.out", "THEIRS")
	out.WriteString("NEW")
	if err := out.Commit(); !errors.Is(err, fs.ErrExist) {
		t.Errorf("commit onto a file that appeared: %v, want fs.ErrExist", err)
	}
	out.Abort()

	linked := filepath.Join(f.dir, "linked.out")
	out, err = safefile.Create(linked, safefile.Options{Replace: true})
	must(t, err)
	must(t, os.Symlink("other.out", linked))
	out.WriteString("NEW")
	if err := out.Commit(); !errors.Is(err, safefile.ErrSymlink) {
		t.Errorf("commit onto a link that appeared: %v, want ErrSymlink", err)
	}
	f.untouched(t, "")
	if target, err := os.Readlink(linked); err != nil || target != "other.out" {
		t.Errorf("the link that appeared was replaced: %q, %v", target, err)
	}
}

// TestCommitThenAbort: Abort after a successful Commit (a deferred one)
// leaves the output in place; the file is created with Perm.
func TestCommitThenAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.out")
	out, err := safefile.Create(path, safefile.Options{Perm: 0o600})
	must(t, err)
	out.WriteString("whole")
	must(t, out.Commit())
	must(t, out.Commit()) // nothing more to do
	out.Abort()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "whole" {
		t.Fatalf("after commit and abort: %q, %v", got, err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want the output alone", len(entries))
	}
}

// TestMissingDirectory: a target whose directory does not exist is an
// error (not a refusal), and creates nothing.
func TestMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := safefile.Create(filepath.Join(dir, "no", "such", "x.out"), safefile.Options{})
	var refused *safefile.Error
	if err == nil || errors.As(err, &refused) {
		t.Errorf("create in a missing directory: %v, want an error that is no refusal", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v", entries)
	}
}
