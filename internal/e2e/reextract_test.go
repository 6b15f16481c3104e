package e2e

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// TestReextractOffline: a blog crawled with its pages kept (WARC_DIR); the
// stored text of one post made wrong behind the crawler's back;
// `reextract` puts it right from the archive and sends not one request.
// Then the bad inputs: --site naming no source, a file that is not WARC
// and a torn one, each said in one line, the first two changing nothing.
func TestReextractOffline(t *testing.T) {
	t.Parallel()
	web := simweb.New()
	defer web.Close()
	const host = "203.0.113.70"
	urls := blog(web.Host(host), 3)
	warcDir := filepath.Join(t.TempDir(), "warc")
	env := binarytest.NewEnv(t).Proxy(t, web).Set("CORPUSBOT_WARC_DIR", warcDir)
	addSources(t, env, host)
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	posts, _ := exportRecords(t, env)
	right := posts[urls[0]].Text
	if !strings.Contains(right, "Words of a real post") {
		t.Fatalf("after the crawl, %s has text %q", urls[0], right)
	}

	setText := func(text string) {
		t.Helper()
		db, err := sql.Open("sqlite", env.DB())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		res, err := db.Exec(`UPDATE posts SET text = ? WHERE url = ?`, text, urls[0])
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%d rows of %s", n, urls[0])
		}
	}
	setText("a wrong text")
	asked := len(web.Requests())

	// --site naming no source: one line, nothing changed.
	r := env.Run(t, time.Minute, "reextract", "--site", "nowhere.example")
	if lines := binarytest.Lines(r.Stderr); r.Code == 0 || len(lines) != 1 || !strings.Contains(lines[0], "no source of nowhere.example") {
		t.Errorf("--site nowhere.example: exit %d, stderr %q", r.Code, r.Stderr)
	}
	// A file that is not WARC: one line, nothing changed.
	notWarc := filepath.Join(t.TempDir(), "page.warc.gz")
	if err := os.WriteFile(notWarc, []byte("<html><body>not an archive</body></html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = env.Run(t, time.Minute, "reextract", "--warc", warcDir, notWarc)
	if lines := binarytest.Lines(r.Stderr); r.Code == 0 || len(lines) != 1 || !strings.Contains(lines[0], "not a WARC file") {
		t.Errorf("--warc NOTWARC: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if posts, _ := exportRecords(t, env); posts[urls[0]].Text != "a wrong text" {
		t.Fatalf("a failed reextract changed the text: %q", posts[urls[0]].Text)
	}

	// The web's proxy stays up, counting: reextract must not use it.
	r = env.Run(t, time.Minute, "reextract")
	if r.Code != 0 || !strings.Contains(r.Stdout, "1 posts updated, 2 unchanged") {
		t.Fatalf("reextract: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if posts, _ := exportRecords(t, env); posts[urls[0]].Text != right {
		t.Errorf("after reextract, %s has text %q, want the page's", urls[0], posts[urls[0]].Text)
	}
	if got := web.Requests(); len(got) != asked {
		t.Errorf("reextract sent %d requests: %v", len(got)-asked, got[asked:])
	}

	// A torn copy of the archive: the records before the tear are used,
	// one warning line, exit 1.
	files, _ := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if len(files) == 0 {
		t.Fatal("no WARC file kept")
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(t.TempDir(), "torn.warc.gz")
	if err := os.WriteFile(torn, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	setText("a wrong text")
	r = env.Run(t, time.Minute, "reextract", "--warc", torn)
	lines := binarytest.Lines(r.Stderr)
	if r.Code == 0 || len(lines) != 2 || !strings.Contains(lines[0], "WARC file torn") || !strings.Contains(r.Stdout, "posts updated") {
		t.Errorf("--warc TORN: exit %d\nstdout %s\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if posts, _ := exportRecords(t, env); posts[urls[0]].Text != right {
		t.Errorf("a torn archive: the record before the tear not used (%q)", posts[urls[0]].Text)
	}
	if got := web.Requests(); len(got) != asked {
		t.Errorf("reextract sent %d requests", len(got)-asked)
	}
}
