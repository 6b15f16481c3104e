package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// TestSourcesListRemovePause: list as JSON lines (stdout is not a
// terminal) and OPML, which sources add --file reads back to the same
// sources; remove, pause and resume by URL and by site, each saying what it
// did; bad arguments change nothing.
func TestSourcesListRemovePause(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	run := func(wantCode int, args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runCLI(t, nil, env, args...)
		if code != wantCode {
			t.Fatalf("%v: exit %d, want %d; stdout %q stderr %q", args, code, wantCode, out, errOut)
		}
		return out, errOut
	}
	run(0, "sources", "add", "https://a.example/", "https://one.b.example/", "https://two.b.example/", "https://c.example/")

	list := func(args ...string) []listLine {
		t.Helper()
		out, _ := run(0, append([]string{"sources", "list"}, args...)...)
		var lines []listLine
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			var x listLine
			if err := json.Unmarshal([]byte(l), &x); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			lines = append(lines, x)
		}
		return lines
	}
	got := list()
	if len(got) != 4 || got[0] != (listLine{Source: "https://a.example/", State: model.StatePending, NextDue: got[0].NextDue}) || got[0].NextDue == "" {
		t.Errorf("sources list: %+v", got)
	}
	out, _ := run(0, "sources", "list")
	if !strings.Contains(out, `"posts_indexed":0,"last_read":"","next_due":"`) {
		t.Errorf("JSON line fields: %s", out)
	}

	// OPML, read back into a new database: the same sources.
	opml, _ := run(0, "sources", "list", "--opml")
	if !strings.HasPrefix(opml, "<?xml") || !strings.Contains(opml, `htmlUrl="https://one.b.example/"`) {
		t.Errorf("OPML: %s", opml)
	}
	db2 := filepath.Join(t.TempDir(), "d.db")
	if _, errOut, code := runCLI(t, nil, map[string]string{"CORPUSBOT_DB": db2}, "sources", "add", "--file", writeFile(t, "s.opml", opml)); code != 0 {
		t.Fatalf("add the OPML back: %s", errOut)
	}
	if a, b := storedSources(t, db), storedSources(t, db2); !slices.Equal(a, b) {
		t.Errorf("OPML round trip: %v, read back %v", a, b)
	}

	// Bad arguments: usage errors, or one line naming what matched nothing.
	_, errOut := run(2, "sources", "list", "--state", "sleeping")
	if !strings.Contains(errOut, "removed, paused, blocked") {
		t.Errorf("unknown state: %s", errOut)
	}
	_, errOut = run(1, "sources", "remove", "a.example", "nothing.example")
	if strings.TrimSpace(errOut) != "corpusbot sources remove: no source of nothing.example" {
		t.Errorf("remove of nothing: %q", errOut)
	}
	_, errOut = run(1, "sources", "pause", "https://a.example/", "https://a.example/other/")
	if strings.TrimSpace(errOut) != "corpusbot sources pause: no source https://a.example/other/" {
		t.Errorf("pause of nothing: %q", errOut)
	}
	run(2, "sources", "remove", "blog.b.example")
	run(2, "sources", "remove")
	if got := list("--state", model.StatePending); len(got) != 4 {
		t.Errorf("bad arguments changed something: %+v", got)
	}

	// Remove a source, purge a site, pause one; list by state.
	out, _ = run(0, "sources", "remove", "HTTPS://A.EXAMPLE")
	if out != "removed https://a.example/ (0 posts kept)\n" {
		t.Errorf("remove: %q", out)
	}
	out, _ = run(0, "sources", "remove", "--purge", "b.example")
	if out != "removed https://one.b.example/ (0 posts deleted)\nremoved https://two.b.example/ (0 posts deleted)\n" {
		t.Errorf("remove --purge: %q", out)
	}
	out, _ = run(0, "sources", "pause", "c.example")
	if out != "paused https://c.example/\n" {
		t.Errorf("pause: %q", out)
	}
	if got := list("--state", "removed"); len(got) != 1 || got[0].Source != "https://a.example/" || got[0].NextDue != "" {
		t.Errorf("removed: %+v", got)
	}
	if got := list("--state", "paused"); len(got) != 1 || got[0].Source != "https://c.example/" || got[0].NextDue != "" {
		t.Errorf("paused: %+v", got)
	}
	_, errOut = run(1, "sources", "resume", "a.example")
	if !strings.Contains(errOut, "was removed") {
		t.Errorf("resume of a removed source: %q", errOut)
	}
	out, _ = run(0, "sources", "resume", "c.example")
	if out != "resumed https://c.example/\n" {
		t.Errorf("resume: %q", out)
	}
	out, _ = run(0, "sources", "add", "https://a.example/")
	if out != "added https://a.example/\n" {
		t.Errorf("added again: %q", out)
	}
	if got := list(); len(got) != 2 || got[0].State != model.StatePending || got[1].State != model.StatePending {
		t.Errorf("after resume and add: %+v", got)
	}
	// Help for each.
	for _, c := range []string{"list", "remove", "pause", "resume"} {
		if out, _ := run(0, "sources", c, "--help"); !strings.Contains(out, "Usage: corpusbot sources "+c) {
			t.Errorf("sources %s --help: %s", c, out)
		}
	}
}

// The table a terminal gets: aligned columns, "-" for no time and no error.
func TestSourcesTable(t *testing.T) {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	read := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	err := sourcesTable(w, []store.ListedSource{
		{URL: "https://a.example/", State: "active", PostsIndexed: 12, LastRead: read, NextDue: read.Add(time.Hour)},
		{URL: "https://long.b.example/", State: "pending", Error: "robots.txt unreachable:\nDNS failure"},
	})
	if err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	want := `SOURCE                   STATE    POSTS INDEXED  LAST READ          NEXT DUE           LAST ERROR
https://a.example/       active   12             2026-03-01 12:00Z  2026-03-01 13:00Z  -
https://long.b.example/  pending  0              -                  -                  robots.txt unreachable: DNS failure
2 sources
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}
