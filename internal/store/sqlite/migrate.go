package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"corpus.blog/corpusbot/internal/store"
)

// migrations are applied in order, each once, each in its own transaction;
// the schema's version is how many have run. Append, never edit.
var migrations = store.ResolveMigrations(append([]string{
	`CREATE TABLE sources (
		id INTEGER PRIMARY KEY,
		url TEXT NOT NULL UNIQUE,
		added INTEGER NOT NULL,
		discovered INTEGER NOT NULL DEFAULT 0,
		sitemaps_checked INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX sources_discover ON sources(discovered, id);
	CREATE TABLE origins (
		origin TEXT PRIMARY KEY,
		status INTEGER NOT NULL,
		state TEXT NOT NULL,
		checked INTEGER NOT NULL
	);
	CREATE TABLE feeds (
		id INTEGER PRIMARY KEY,
		source_id INTEGER NOT NULL REFERENCES sources(id),
		url TEXT NOT NULL UNIQUE,
		state TEXT NOT NULL,
		etag TEXT NOT NULL DEFAULT '',
		last_modified TEXT NOT NULL DEFAULT '',
		last_read INTEGER NOT NULL DEFAULT 0,
		checked INTEGER NOT NULL DEFAULT 0,
		error TEXT NOT NULL DEFAULT '',
		catalogue TEXT NOT NULL,
		next_page TEXT NOT NULL DEFAULT '',
		pages INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX feeds_source ON feeds(source_id);
	CREATE INDEX feeds_due ON feeds(state, last_read);
	CREATE INDEX feeds_catalogue ON feeds(catalogue, id);
	CREATE TABLE sitemaps (
		id INTEGER PRIMARY KEY,
		source_id INTEGER NOT NULL REFERENCES sources(id),
		url TEXT NOT NULL,
		via TEXT NOT NULL,
		parent_id INTEGER NOT NULL DEFAULT 0,
		state TEXT NOT NULL,
		etag TEXT NOT NULL DEFAULT '',
		last_modified TEXT NOT NULL DEFAULT '',
		last_read INTEGER NOT NULL DEFAULT 0,
		lastmod INTEGER NOT NULL DEFAULT 0,
		read_lastmod INTEGER NOT NULL DEFAULT 0,
		error TEXT NOT NULL DEFAULT '',
		UNIQUE(source_id, url)
	);
	CREATE INDEX sitemaps_due ON sitemaps(parent_id, last_read);
	CREATE INDEX sitemaps_parent ON sitemaps(parent_id, id);
	CREATE TABLE posts (
		id INTEGER PRIMARY KEY,
		url TEXT NOT NULL UNIQUE,
		source_id INTEGER NOT NULL REFERENCES sources(id),
		title TEXT NOT NULL DEFAULT '',
		published INTEGER NOT NULL DEFAULT 0,
		lastmod INTEGER NOT NULL DEFAULT 0,
		state TEXT NOT NULL,
		prev_state TEXT NOT NULL DEFAULT '',
		text_from TEXT NOT NULL DEFAULT '',
		text TEXT NOT NULL DEFAULT '',
		etag TEXT NOT NULL DEFAULT '',
		last_modified TEXT NOT NULL DEFAULT '',
		citations TEXT NOT NULL DEFAULT '[]',
		due INTEGER NOT NULL DEFAULT 0,
		fetched INTEGER NOT NULL DEFAULT 0,
		in_feed INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX posts_due ON posts(source_id, id) WHERE due = 1;
	CREATE INDEX posts_due_all ON posts(id) WHERE due = 1;
	CREATE INDEX posts_source ON posts(source_id);
	CREATE TABLE sitemap_urls (
		sitemap_id INTEGER NOT NULL REFERENCES sitemaps(id),
		post_id INTEGER NOT NULL REFERENCES posts(id),
		lastmod INTEGER NOT NULL DEFAULT 0,
		seen INTEGER NOT NULL,
		PRIMARY KEY (sitemap_id, post_id)
	);
	CREATE INDEX sitemap_urls_post ON sitemap_urls(post_id);
	CREATE TABLE refusals (
		site TEXT PRIMARY KEY,
		consecutive403 INTEGER NOT NULL,
		served INTEGER NOT NULL,
		refused INTEGER NOT NULL,
		last_asked INTEGER NOT NULL
	);
	CREATE TABLE requests (
		id INTEGER PRIMARY KEY,
		site TEXT NOT NULL,
		url TEXT NOT NULL,
		purpose TEXT NOT NULL,
		status INTEGER NOT NULL,
		bytes INTEGER NOT NULL,
		start INTEGER NOT NULL,
		duration INTEGER NOT NULL,
		conditional INTEGER NOT NULL,
		outcome TEXT NOT NULL,
		error TEXT NOT NULL
	);`,
	// 2: the fetcher's robots.txt cache survives restarts.
	`CREATE TABLE robots_cache (
		origin TEXT PRIMARY KEY,
		state TEXT NOT NULL,
		ttl INTEGER NOT NULL,
		file TEXT,
		checked INTEGER NOT NULL,
		expires INTEGER NOT NULL,
		last_file TEXT,
		last_fetched INTEGER NOT NULL,
		unreachable_since INTEGER NOT NULL,
		etag TEXT NOT NULL,
		last_modified TEXT NOT NULL
	);`,
	// 3: discovery after a failure is retried later, not judged at once.
	`ALTER TABLE sources ADD COLUMN discover_after INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sources ADD COLUMN sitemaps_after INTEGER NOT NULL DEFAULT 0;`,
	// 4: work checkouts (store checkouts.go), as on PostgreSQL: the
	// queries are shared, and two processes on one file stay out of each
	// other's way.
	`ALTER TABLE posts ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE feeds ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sources ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE sources ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE sitemaps ADD COLUMN claimed_until INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX posts_claimed ON posts(claimed_by) WHERE claimed_until <> 0;
	CREATE INDEX feeds_claimed ON feeds(claimed_by) WHERE claimed_until <> 0;
	CREATE INDEX sources_claimed ON sources(claimed_by) WHERE claimed_until <> 0;
	CREATE INDEX sitemaps_claimed ON sitemaps(claimed_by) WHERE claimed_until <> 0;`,
}, store.Migrations...), dialectDDL)

// dialectDDL is this backend's DDL for store.Migrations' DialectMigration
// entries.
var dialectDDL = map[string]string{
	// The change stamps of export --since: a sequence bumped in the
	// transaction of every write that changes a post's record (or inserts
	// one), which triggers catch whatever statement did it. SQLite has one
	// writer, so the stamps commit in the order they are given: a cursor
	// (the sequence as a read sees it) has every change stamped at or
	// below it committed, and every later one above it. updated is the
	// wall clock of the change, in ms. A deleted post takes its
	// fingerprint with it, and the posts it was the original of are no
	// longer duplicates. The database's random ID names its cursors.
	"post changes": `ALTER TABLE posts ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
	UPDATE posts SET updated = MAX(fetched, first_seen);
	CREATE TABLE post_change_seq (n BIGINT NOT NULL);
	INSERT INTO post_change_seq VALUES (0);
	CREATE INDEX posts_change_seq ON posts(change_seq);
	CREATE TRIGGER posts_record_new AFTER INSERT ON posts BEGIN
		UPDATE post_change_seq SET n = n + 1;
		UPDATE posts SET change_seq = (SELECT n FROM post_change_seq),
			updated = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) * 1000000 WHERE id = NEW.id;
	END;
	CREATE TRIGGER posts_record_changed AFTER UPDATE ON posts WHEN
		OLD.url IS NOT NEW.url OR OLD.source_id IS NOT NEW.source_id OR OLD.title IS NOT NEW.title OR
		OLD.published IS NOT NEW.published OR OLD.lastmod IS NOT NEW.lastmod OR
		OLD.state IS NOT NEW.state OR OLD.text_from IS NOT NEW.text_from OR
		OLD.text IS NOT NEW.text OR OLD.citations IS NOT NEW.citations OR
		OLD.author IS NOT NEW.author OR OLD.language IS NOT NEW.language OR
		OLD.description IS NOT NEW.description OR OLD.site_name IS NOT NEW.site_name OR
		OLD.tags IS NOT NEW.tags OR OLD.license IS NOT NEW.license OR OLD.image IS NOT NEW.image OR
		OLD.duplicate_of IS NOT NEW.duplicate_of
	BEGIN
		UPDATE post_change_seq SET n = n + 1;
		UPDATE posts SET change_seq = (SELECT n FROM post_change_seq),
			updated = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) * 1000000 WHERE id = NEW.id;
	END;
	CREATE TRIGGER posts_record_gone AFTER DELETE ON posts BEGIN
		DELETE FROM post_sigs WHERE post_id = OLD.id;
		DELETE FROM post_bands WHERE post_id = OLD.id;
		UPDATE posts SET duplicate_of = 0 WHERE duplicate_of = OLD.id;
	END;
	INSERT INTO store_meta(name, value) VALUES ('db_id', lower(hex(randomblob(16))));`,
	// site_links follows links: every row inserted counts once for its
	// pair of sites, every row deleted or moved to another pair once less.
	"site link counts": `CREATE TRIGGER links_counted AFTER INSERT ON links BEGIN
		INSERT INTO site_links(from_site, to_site, links) VALUES (NEW.from_site, NEW.to_site, 1)
			ON CONFLICT (from_site, to_site) DO UPDATE SET links = links + 1;
	END;
	CREATE TRIGGER links_uncounted AFTER DELETE ON links BEGIN
		UPDATE site_links SET links = links - 1 WHERE from_site = OLD.from_site AND to_site = OLD.to_site;
	END;
	CREATE TRIGGER links_recounted AFTER UPDATE OF from_site, to_site ON links BEGIN
		UPDATE site_links SET links = links - 1 WHERE from_site = OLD.from_site AND to_site = OLD.to_site;
		INSERT INTO site_links(from_site, to_site, links) VALUES (NEW.from_site, NEW.to_site, 1)
			ON CONFLICT (from_site, to_site) DO UPDATE SET links = links + 1;
	END;`,
}

func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var v int
	err := db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if err == sql.ErrNoRows {
		if _, err := db.ExecContext(ctx, `INSERT INTO schema_version VALUES (0)`); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this binary (%d)", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, i+1); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
