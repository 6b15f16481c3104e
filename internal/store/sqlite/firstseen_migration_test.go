package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// A database made before first_seen (here: made now, then the column
// taken out, the indexes the next migration drops put back, and the
// schema version stepped back over both) gains it when opened: a
// fetched post first seen at its fetch time, any other unknown (0).
func TestMigrationBackfillsFirstSeen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	src, _, err := db.AddSource(ctx, "https://a.example/", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.AddPosts(ctx, []store.NewPost{{URL: "https://a.example/1", SourceID: src.ID, Seen: seen}, {URL: "https://a.example/2", SourceID: src.ID, Seen: seen}}); err != nil {
		t.Fatal(err)
	}
	p, err := db.Post(ctx, "https://a.example/1")
	if err != nil {
		t.Fatal(err)
	}
	fetched := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	if err := db.SavePage(ctx, store.PageResult{PostID: p.ID, State: "indexed", Fetched: fetched}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	// The schema goes back to just before the first_seen migration; the
	// migrations after the index drop undo their own tables too.
	firstSeen := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "first_seen BIGINT") })
	if firstSeen < 0 {
		t.Fatal("no first_seen migration")
	}
	var undo []string
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "DROP INDEX posts_due_all") }) {
		undo = append(undo, `CREATE INDEX posts_due_all ON posts(id) WHERE due = 1`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "sitemaps_reread") }) {
		for _, index := range []string{"sources_sitemaps_due", "feeds_to_read", "feeds_catalogue_due", "sitemaps_reread", "sitemaps_retry"} {
			undo = append(undo, `DROP INDEX `+index)
		}
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "RENAME COLUMN claimed_until TO held_until") }) {
		undo = append(undo, `ALTER TABLE subscriptions RENAME COLUMN held_until TO claimed_until`, `DROP INDEX site_checkouts_worker`,
			`ALTER TABLE site_checkouts RENAME COLUMN worker TO claimed_by`, `ALTER TABLE site_checkouts RENAME COLUMN expires TO claimed_until`,
			`CREATE INDEX site_checkouts_claimed ON site_checkouts(claimed_by) WHERE claimed_until <> 0`)
		for _, table := range []string{"posts", "feeds", "sources", "sitemaps"} {
			undo = append(undo, `ALTER TABLE `+table+` ADD COLUMN claimed_by TEXT NOT NULL DEFAULT ''`,
				`ALTER TABLE `+table+` ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0`,
				`CREATE INDEX `+table+`_claimed ON `+table+`(claimed_by) WHERE claimed_until <> 0`)
		}
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE site_waits") }) {
		undo = append(undo, `DROP TABLE site_waits`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "sources_ident") }) {
		undo = append(undo, `DROP INDEX sources_ident`, `ALTER TABLE sources DROP COLUMN ident`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN note") }) {
		undo = append(undo, `ALTER TABLE sitemaps DROP COLUMN note`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "sources ADD COLUMN removed") }) {
		undo = append(undo, `ALTER TABLE sources DROP COLUMN removed`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "site_checkouts ADD COLUMN last_end") }) {
		undo = append(undo, `ALTER TABLE site_checkouts DROP COLUMN last_end`, `ALTER TABLE site_checkouts DROP COLUMN next`)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE post_sigs") }) {
		// Undone first: its triggers name the posts table's columns.
		record := []string{`DROP TRIGGER posts_record_new`, `DROP TRIGGER posts_record_changed`, `DROP TRIGGER posts_record_gone`,
			`DROP TABLE post_change_seq`, `DROP INDEX posts_change_seq`, `ALTER TABLE posts DROP COLUMN change_seq`,
			`DELETE FROM store_meta WHERE name = 'db_id'`, `DROP TABLE post_sigs`, `DROP TABLE post_bands`, `DROP INDEX posts_duplicate_of`}
		for _, c := range []string{"author", "language", "description", "site_name", "tags", "license", "image", "duplicate_of", "updated"} {
			record = append(record, `ALTER TABLE posts DROP COLUMN `+c)
		}
		undo = append(record, undo...)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "ADD COLUMN markdown") }) {
		undo = append([]string{`ALTER TABLE posts DROP COLUMN markdown`}, undo...)
	}
	if slices.ContainsFunc(store.Migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE site_links") }) {
		undo = append([]string{`DROP TRIGGER links_counted`, `DROP TRIGGER links_uncounted`, `DROP TRIGGER links_recounted`, `DROP TABLE site_links`,
			`CREATE INDEX links_from ON links(from_site, to_site)`, `CREATE INDEX links_to ON links(to_site, from_site)`}, undo...)
	}
	for _, q := range append(undo, []string{`DROP INDEX posts_state_dated`, `CREATE INDEX posts_state_published ON posts(state, published)`, `ALTER TABLE posts DROP COLUMN first_seen`,
		`CREATE INDEX posts_source ON posts(source_id)`, `CREATE INDEX feeds_source ON feeds(source_id)`, `CREATE INDEX requests_start ON requests(start)`,
		fmt.Sprintf(`UPDATE schema_version SET version = %d`, firstSeen)}...) {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	raw.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := db.Post(ctx, "https://a.example/1")
	p2, _ := db.Post(ctx, "https://a.example/2")
	if !p1.FirstSeen.Equal(fetched) || !p2.FirstSeen.IsZero() {
		t.Errorf("after the migration: fetched post first seen %v (want %v), unfetched %v (want zero)", p1.FirstSeen, fetched, p2.FirstSeen)
	}
	db.Close()
}
