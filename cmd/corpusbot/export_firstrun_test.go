package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/sqlite"
)

// export --sources says why a source waits (its last discovery's failure,
// kept until one succeeds) and what a sitemap's last read found though it
// is active (a cut at the protocol's limit): where the operator looks,
// not only in the log of the run that met it.
func TestExportSourcesErrorAndNote(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "https://down.example/", "https://big.example/"); code != 0 {
		t.Fatalf("add: %d %s", code, errOut)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var down, big store.Source
	st.EachSource(ctx, func(s store.Source) error {
		if strings.Contains(s.URL, "down") {
			down = s
		} else {
			big = s
		}
		return nil
	})
	const why = "robots.txt unreachable: DNS failure"
	if err := st.PostponeDiscovery(ctx, down.ID, store.Retry{Attempts: 1, At: now.Add(time.Hour), Error: why}); err != nil {
		t.Fatal(err)
	}
	if err := st.MarkDiscovered(ctx, big.ID, now); err != nil {
		t.Fatal(err)
	}
	sm, err := st.AddSitemap(ctx, store.Sitemap{SourceID: big.ID, URL: "https://big.example/sitemap.xml", Via: model.ViaRobots})
	if err != nil {
		t.Fatal(err)
	}
	const note = "cut at the protocol's limit (more than 50000 entries): the first 50000 entries kept"
	sm.State, sm.LastRead, sm.Note = "active", now, note
	if err := st.UpdateSitemap(ctx, sm); err != nil {
		t.Fatal(err)
	}
	st.Close()

	out, errOut, code := runCLI(t, nil, env, "export", "--sources")
	if code != 0 {
		t.Fatalf("export --sources: %d %s", code, errOut)
	}
	type line struct {
		Source   string `json:"source"`
		State    string `json:"state"`
		Error    *string
		Sitemaps []struct {
			URL, State string
			Note       *string
		}
	}
	got := map[string]line{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var x line
		if err := json.Unmarshal([]byte(l), &x); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got[x.Source] = x
	}
	d := got["https://down.example/"]
	if d.Error == nil || *d.Error != why {
		t.Errorf("the failing source's line does not say why: %s", out)
	}
	b := got["https://big.example/"]
	if b.Error == nil || *b.Error != "" {
		t.Errorf("a discovered source carries an error: %s", out)
	}
	if len(b.Sitemaps) != 1 || b.Sitemaps[0].State != "active" || b.Sitemaps[0].Note == nil || *b.Sitemaps[0].Note != note {
		t.Errorf("the cut sitemap's note is missing: %s", out)
	}
	if len(d.Sitemaps) != 0 {
		t.Errorf("sitemaps of the failing source: %s", out)
	}
}
