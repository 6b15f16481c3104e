package e2e

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestExportOutputNeverDestroys (issue 31, item 4): `export --output`
// onto the database, one of its companions, an existing file or a symbolic
// link is refused with one line on stderr and a non-zero exit, whatever
// the format and mode, and leaves everything as it was (the database still
// exports the same posts and sources); --force replaces an existing
// regular file, and only that.
func TestExportOutputNeverDestroys(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	posts := blog(web.Host("203.0.113.31"), 2)
	env := binarytest.NewEnv(t).Proxy(t, web)
	if r := env.Run(t, time.Minute, "sources", "add", "http://203.0.113.31/"); r.Code != 0 {
		t.Fatalf("sources add: %d %s", r.Code, r.Stderr)
	}
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	export := func(args ...string) binarytest.Result {
		t.Helper()
		return env.Run(t, time.Minute, append([]string{"export"}, args...)...)
	}
	wantPosts, wantSources := export(), export("--sources")
	if wantPosts.Code != 0 || len(binarytest.Lines(wantPosts.Stdout)) != len(posts) {
		t.Fatalf("export: %d %q %s", wantPosts.Code, wantPosts.Stdout, wantPosts.Stderr)
	}
	if wantSources.Code != 0 || !strings.Contains(wantSources.Stdout, `"source":"http://203.0.113.31/"`) {
		t.Fatalf("export --sources: %d %q %s", wantSources.Code, wantSources.Stdout, wantSources.Stderr)
	}
	// stillWhole fails t unless the database exports what it did at first.
	stillWhole := func(after string) {
		t.Helper()
		if r := export(); r.Code != 0 || r.Stdout != wantPosts.Stdout {
			t.Fatalf("after %s, export: %d %q %s", after, r.Code, r.Stdout, r.Stderr)
		}
		if r := export("--sources"); r.Code != 0 || r.Stdout != wantSources.Stdout {
			t.Fatalf("after %s, export --sources: %d %q %s", after, r.Code, r.Stdout, r.Stderr)
		}
	}
	refused := func(r binarytest.Result, what, want string) {
		t.Helper()
		if r.Code == 0 || r.Stdout != "" || len(binarytest.Lines(r.Stderr)) != 1 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want a one-line refusal saying %q", what, r.Code, r.Stdout, r.Stderr, want)
		}
	}

	db := env.DB()
	mustOutput(t, os.Symlink(env.Dir, filepath.Join(env.Dir, "linkdir")))
	mustOutput(t, os.Link(db, filepath.Join(env.Dir, "hard.db")))
	modes := []struct {
		name string
		args []string
	}{
		{"posts jsonl", nil},
		{"posts jsonl --text", []string{"--text"}},
		{"posts parquet", []string{"--format", "parquet"}},
		{"sources", []string{"--sources"}},
	}
	for _, m := range modes {
		// The database, spelt every way, and its companions: refused even
		// with --force. The hard link is the database's file under another
		// name; the binary runs in env.Dir, so relative names are relative
		// to the database's folder.
		for _, target := range []string{db, "corpusbot.db", "./corpusbot.db", "linkdir/corpusbot.db", "hard.db",
			db + "-wal", "corpusbot.db-shm", "corpusbot.db-journal"} {
			for _, force := range []bool{false, true} {
				args := append(append([]string(nil), m.args...), "--output", target)
				if force {
					args = append(args, "--force")
				}
				refused(export(args...), m.name+" onto "+target, "database")
				stillWhole(m.name + " --output " + target)
			}
		}

		// An existing file: refused and unchanged; replaced with --force.
		existing := filepath.Join(env.Dir, "existing.out")
		mustOutput(t, os.WriteFile(existing, []byte("KEEP"), 0o644))
		refused(export(append(m.args, "--output", existing)...), m.name+" onto an existing file", "--force")
		if got, _ := os.ReadFile(existing); string(got) != "KEEP" {
			t.Errorf("%s: a refused export changed the existing file to %q", m.name, got)
		}
		if r := export(append(m.args, "--output", existing, "--force")...); r.Code != 0 || r.Stdout != "" {
			t.Errorf("%s --force onto an existing file: %d %q %s", m.name, r.Code, r.Stdout, r.Stderr)
		}
		checkExport(t, m.name, existing, m.args, wantPosts.Stdout, wantSources.Stdout)

		// A symbolic link, to a file or to nothing: refused, with or
		// without --force; the link and what it points at are unchanged.
		victim := filepath.Join(env.Dir, "victim.out")
		mustOutput(t, os.WriteFile(victim, []byte("VICTIM"), 0o644))
		link, dangling := filepath.Join(env.Dir, "link.out"), filepath.Join(env.Dir, "dangling.out")
		mustOutput(t, os.Symlink("victim.out", link))
		mustOutput(t, os.Symlink("nowhere.out", dangling))
		for _, force := range []bool{false, true} {
			for _, l := range []string{link, dangling} {
				args := append(append([]string(nil), m.args...), "--output", l)
				if force {
					args = append(args, "--force")
				}
				refused(export(args...), m.name+" onto the link "+filepath.Base(l), "symbolic link")
			}
		}
		if got, _ := os.ReadFile(victim); string(got) != "VICTIM" {
			t.Errorf("%s: an export through a symbolic link changed its target to %q", m.name, got)
		}
		if _, err := os.Lstat(filepath.Join(env.Dir, "nowhere.out")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: an export through a dangling link created its target", m.name)
		}
		for _, l := range []string{link, dangling} {
			if info, err := os.Lstat(l); err != nil || info.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s: %s is no longer a link (%v)", m.name, filepath.Base(l), err)
			}
		}
		for _, p := range []string{existing, victim, link, dangling} {
			mustOutput(t, os.Remove(p))
		}

		// A new file is written whole.
		fresh := filepath.Join(env.Dir, "fresh.out")
		if r := export(append(m.args, "--output", fresh)...); r.Code != 0 || r.Stdout != "" {
			t.Errorf("%s onto a new file: %d %q %s", m.name, r.Code, r.Stdout, r.Stderr)
		}
		checkExport(t, m.name, fresh, m.args, wantPosts.Stdout, wantSources.Stdout)
		mustOutput(t, os.Remove(fresh))
	}
	stillWhole("every refusal")
	entries, _ := os.ReadDir(env.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || strings.HasSuffix(e.Name(), ".out") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// checkExport fails t unless file holds the export that args ask for: the
// posts' or the sources' JSON lines as printed on stdout, or a Parquet
// file (whose magic bytes frame it).
func checkExport(t *testing.T, mode, file string, args []string, posts, sources string) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", mode, err)
		return
	}
	switch {
	case strings.Contains(strings.Join(args, " "), "parquet"):
		if len(got) < 8 || !bytes.HasPrefix(got, []byte("PAR1")) || !bytes.HasSuffix(got, []byte("PAR1")) {
			t.Errorf("%s: %s is no whole Parquet file (%d bytes)", mode, filepath.Base(file), len(got))
		}
	case strings.Contains(strings.Join(args, " "), "--sources"):
		if string(got) != sources {
			t.Errorf("%s: %s holds %q, want %q", mode, filepath.Base(file), got, sources)
		}
	case strings.Contains(strings.Join(args, " "), "--text"):
		if n := strings.Count(string(got), `"text":"`); n != len(binarytest.Lines(posts)) || strings.Contains(string(got), `"text":""`) {
			t.Errorf("%s: %s holds %d posts with text, want %d:\n%s", mode, filepath.Base(file), n, len(binarytest.Lines(posts)), got)
		}
	default:
		if string(got) != posts {
			t.Errorf("%s: %s holds %q, want %q", mode, filepath.Base(file), got, posts)
		}
	}
}

func mustOutput(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
