package sqlstore

// Migrations are the schema changes both backends share, written in the
// SQL both accept (one column per ALTER TABLE, BIGINT for times). Each
// backend appends them to its own list, after the DDL that differs; like
// every migration, they are appended to and never edited.
var Migrations = []string{
	// The public site and the schedule: a source's site (its registrable
	// domain, as fetch.Site has it) and its pause; site-wide opt-outs;
	// ownership claims; citations as rows, by site, for "cited by"; feed
	// titles; each feed's publishing history and next due time.
	`ALTER TABLE sources ADD COLUMN site TEXT NOT NULL DEFAULT '';
	ALTER TABLE sources ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sources ADD COLUMN paused_by TEXT NOT NULL DEFAULT '';
	ALTER TABLE sources ADD COLUMN paused_at BIGINT NOT NULL DEFAULT 0;
	CREATE INDEX sources_site ON sources(site, url);
	CREATE INDEX sources_paused ON sources(id) WHERE paused <> 0;
	CREATE TABLE opted_out (
		site TEXT PRIMARY KEY,
		opted_by TEXT NOT NULL,
		opted_at BIGINT NOT NULL
	);
	CREATE TABLE site_claims (
		id TEXT PRIMARY KEY,
		site TEXT NOT NULL,
		token TEXT NOT NULL,
		created BIGINT NOT NULL,
		expires BIGINT NOT NULL,
		verified BIGINT NOT NULL DEFAULT 0,
		method TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX site_claims_site ON site_claims(site);
	CREATE TABLE links (
		post_id BIGINT NOT NULL REFERENCES posts(id),
		from_site TEXT NOT NULL,
		to_site TEXT NOT NULL,
		url TEXT NOT NULL
	);
	CREATE INDEX links_post ON links(post_id);
	CREATE INDEX links_from ON links(from_site, to_site);
	CREATE INDEX links_to ON links(to_site, from_site);
	ALTER TABLE feeds ADD COLUMN title TEXT NOT NULL DEFAULT '';
	ALTER TABLE feeds ADD COLUMN history TEXT NOT NULL DEFAULT '';
	ALTER TABLE feeds ADD COLUMN next_due BIGINT NOT NULL DEFAULT 0;
	CREATE INDEX feeds_next_due ON feeds(state, next_due);
	CREATE INDEX requests_site ON requests(site, start);
	CREATE INDEX requests_start ON requests(start);
	CREATE TABLE store_meta (
		name TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);`,
}
