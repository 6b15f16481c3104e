package store

import "strings"

// Migrations are the schema changes both backends share, written in the
// SQL both accept (one column per ALTER TABLE, BIGINT for times). Each
// backend appends them to its own list, after the DDL that differs; like
// every migration, they are appended to and never edited.
var Migrations = []string{
	// The public site and the schedule: a source's site (its registrable
	// domain, as model.Site has it) and its pause; site-wide opt-outs;
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
	// WebSub: one subscription per feed whose feed declares a hub (store
	// push.go, package push).
	`CREATE TABLE subscriptions (
		callback TEXT PRIMARY KEY,
		feed_id BIGINT NOT NULL UNIQUE REFERENCES feeds(id),
		source_id BIGINT NOT NULL REFERENCES sources(id),
		hub TEXT NOT NULL,
		topic TEXT NOT NULL,
		secret TEXT NOT NULL,
		state TEXT NOT NULL,
		lease BIGINT NOT NULL DEFAULT 0,
		requested BIGINT NOT NULL DEFAULT 0,
		verified BIGINT NOT NULL DEFAULT 0,
		expires BIGINT NOT NULL DEFAULT 0,
		next_action BIGINT NOT NULL DEFAULT 0,
		attempts INTEGER NOT NULL DEFAULT 0,
		error TEXT NOT NULL DEFAULT '',
		deliveries BIGINT NOT NULL DEFAULT 0,
		delivered BIGINT NOT NULL DEFAULT 0,
		claimed_until BIGINT NOT NULL DEFAULT 0
	);
	CREATE INDEX subscriptions_next ON subscriptions(next_action);
	CREATE INDEX subscriptions_source ON subscriptions(source_id, state);`,
	// The public site's aggregates (store sitedata*.go): posts by state
	// and month and per source by state, feeds and sitemaps per source by
	// state (the source-state CASE), the rows of a sitemap's latest read,
	// the conditional records (never-304), the log by day and origins by
	// state, each read from an index instead of the tables' rows.
	`CREATE INDEX posts_state_published ON posts(state, published);
	CREATE INDEX posts_source_state ON posts(source_id, state);
	CREATE INDEX feeds_source_state ON feeds(source_id, state);
	CREATE INDEX sitemaps_source_state ON sitemaps(source_id, state);
	CREATE INDEX sitemap_urls_seen ON sitemap_urls(sitemap_id, seen);
	CREATE INDEX requests_conditional ON requests(site, status, outcome) WHERE conditional;
	CREATE INDEX requests_day ON requests(start, outcome, status, conditional, bytes);
	CREATE INDEX origins_state ON origins(state);`,
	// The frontier (package crawl): a site's checkout by one worker (renewed
	// and released as a worker's checkouts are) and the round that last finished
	// it, so that a round never takes a finished site up again; sources by
	// site for the site's work.
	`CREATE TABLE site_checkouts (
		site TEXT PRIMARY KEY,
		claimed_by TEXT NOT NULL DEFAULT '',
		claimed_until BIGINT NOT NULL DEFAULT 0,
		round TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX site_checkouts_claimed ON site_checkouts(claimed_by) WHERE claimed_until <> 0;
	CREATE INDEX sources_site_id ON sources(site, id);`,
	// Retries: an item whose last try failed with a fault that
	// says "try later" stays owed, counts its failed tries and is not asked
	// again before retry_at; error keeps the last reason.
	`ALTER TABLE posts ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE posts ADD COLUMN retry_at BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE posts ADD COLUMN error TEXT NOT NULL DEFAULT '';
	ALTER TABLE feeds ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE feeds ADD COLUMN retry_at BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN retry_at BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE sources ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sources ADD COLUMN error TEXT NOT NULL DEFAULT '';`,
	// One post, one record (postidentity.go): the URLs a redirect or a
	// canonical link showed to name a post, feed or sitemap stored under
	// another; how each host spells its URLs, as it has shown; a page's
	// canonical link to another site, recorded, not followed. The posts
	// stored before keys are keyed, and duplicates merged, by Backfill.
	`CREATE TABLE url_aliases (
		kind TEXT NOT NULL,
		url TEXT NOT NULL,
		target BIGINT NOT NULL,
		PRIMARY KEY (kind, url)
	);
	CREATE INDEX url_aliases_target ON url_aliases(kind, target);
	CREATE TABLE host_spellings (
		host TEXT PRIMARY KEY,
		scheme TEXT NOT NULL DEFAULT '',
		www INTEGER NOT NULL DEFAULT -1,
		slash INTEGER NOT NULL DEFAULT -1
	);
	ALTER TABLE posts ADD COLUMN canonical TEXT NOT NULL DEFAULT '';`,
	// Sitemap classification: what a sitemap's name says it
	// lists (kind; '' until the crawl first meets it), and the entries its
	// last read did not queue, by the kind their shape says. One column a
	// kind rather than one text field: the kinds are a closed list (a new
	// one is a schema change anyway), and the counts are summed per source
	// in SQL without parsing.
	`ALTER TABLE sitemaps ADD COLUMN kind TEXT NOT NULL DEFAULT '';
	ALTER TABLE sitemaps ADD COLUMN skipped_pages INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN skipped_taxonomies INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN skipped_authors INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE sitemaps ADD COLUMN skipped_other INTEGER NOT NULL DEFAULT 0;`,
	// Source state "blocked": the robots.txt an origin serves
	// disallows our product token "/". Set by the crawler, which matches
	// the file (the store parses no robots rules); the few blocked origins
	// are listed through their partial index, as the unreachable ones are
	// through origins_state.
	`ALTER TABLE origins ADD COLUMN blocked INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX origins_blocked ON origins(origin) WHERE blocked <> 0;`,
	// Errors by reason on the coverage page: the posts that
	// carry a failure, few among many, read without their table's rows.
	`CREATE INDEX posts_failed ON posts(error, state, attempts) WHERE error <> '';`,
	// First-seen dates: when the crawl first met each post
	// (the clock of the read that inserted its row), so that a post with
	// no published date of its own still has a month on the coverage
	// page. The posts held before take the time of their page fetch, when
	// there was one, else 0 (unknown). The month chart reads published
	// and first_seen together, so its index covers both; it replaces
	// posts_state_published, of which it is an extension.
	`ALTER TABLE posts ADD COLUMN first_seen BIGINT NOT NULL DEFAULT 0;
	UPDATE posts SET first_seen = fetched WHERE fetched <> 0;
	CREATE INDEX posts_state_dated ON posts(state, published, first_seen);
	DROP INDEX posts_state_published;`,
	// Indexes a longer one already serves: posts_source and
	// feeds_source are the first column of posts_source_state and
	// feeds_source_state, requests_start of requests_day. Every post,
	// feed and request written paid a B-tree page for each of them.
	`DROP INDEX posts_source;
	DROP INDEX feeds_source;
	DROP INDEX requests_start;`,
	// Waits that survive the process: the back-off and
	// Retry-After of the sites in trouble (fetch.Waits), one row a site,
	// deleted when the site is back to normal. The frontier leaves out a
	// site whose next permitted request is beyond its horizon.
	`CREATE TABLE site_waits (
		site TEXT PRIMARY KEY,
		gap BIGINT NOT NULL DEFAULT 0,
		gap_end BIGINT NOT NULL DEFAULT 0,
		retry_until BIGINT NOT NULL DEFAULT 0,
		next BIGINT NOT NULL DEFAULT 0
	);`,
	// Source identity: the homepage as sourcelist.Identity
	// writes it, one source per identity, so that every spelling of one
	// homepage (host case, IDN, default port, fragment, final slash) is
	// one source. Rows stored before have '' until Backfill
	// (identifySources) gives them theirs, merging the duplicates.
	`ALTER TABLE sources ADD COLUMN ident TEXT NOT NULL DEFAULT '';
	CREATE UNIQUE INDEX sources_ident ON sources(ident) WHERE ident <> '';`,
	// A sitemap's note: what its last read says of it though it
	// is active, such as a cut at the protocol's limit (50,000 entries, 50
	// MB), shown where its state is (export --sources, the public site).
	`ALTER TABLE sitemaps ADD COLUMN note TEXT NOT NULL DEFAULT '';`,
	// One engine: every command works through the frontier,
	// which checks out sites, and every item belongs to one source of one
	// site, so the item checkouts that kept the batch commands and the
	// frontier apart go. What remains is said in the words of the code: a
	// site checkout is held by a worker until it expires; a subscription
	// handed to a worker is held until held_until.
	`DROP INDEX posts_claimed;
	DROP INDEX feeds_claimed;
	DROP INDEX sources_claimed;
	DROP INDEX sitemaps_claimed;
	ALTER TABLE posts DROP COLUMN claimed_by;
	ALTER TABLE posts DROP COLUMN claimed_until;
	ALTER TABLE feeds DROP COLUMN claimed_by;
	ALTER TABLE feeds DROP COLUMN claimed_until;
	ALTER TABLE sources DROP COLUMN claimed_by;
	ALTER TABLE sources DROP COLUMN claimed_until;
	ALTER TABLE sitemaps DROP COLUMN claimed_by;
	ALTER TABLE sitemaps DROP COLUMN claimed_until;
	DROP INDEX site_checkouts_claimed;
	ALTER TABLE site_checkouts RENAME COLUMN claimed_by TO worker;
	ALTER TABLE site_checkouts RENAME COLUMN claimed_until TO expires;
	CREATE INDEX site_checkouts_worker ON site_checkouts(worker) WHERE expires <> 0;
	ALTER TABLE subscriptions RENAME COLUMN claimed_until TO held_until;`,
	// The frontier's due sites as ranges: one index per kind of
	// due work, in source order, holding only the items of that kind that
	// can be due, so that a sweep of a million sources reads the due ones
	// (store duesites.go's dueRanges) rather than every source, feed and
	// sitemap. Discovery and owed pages have theirs already
	// (sources_discover, posts_due).
	`CREATE INDEX sources_sitemaps_due ON sources(id) WHERE sitemaps_checked = 0;
	CREATE INDEX feeds_to_read ON feeds(source_id) WHERE state = 'active' AND (checked = 0 OR attempts > 0);
	CREATE INDEX feeds_catalogue_due ON feeds(source_id) WHERE state = 'active' AND catalogue IN ('none', 'pending', 'interrupted') AND last_read <> 0;
	CREATE INDEX sitemaps_reread ON sitemaps(source_id, last_read) WHERE parent_id = 0 AND state <> 'skipped';
	CREATE INDEX sitemaps_retry ON sitemaps(source_id) WHERE attempts > 0 AND state <> 'skipped';`,
	// Owed pages are asked for by source (a site's work, its soonest
	// retry, the frontier's range): posts_due serves them all. The
	// index of every owed page in ID order led PostgreSQL astray: its
	// statistics, taken when few pages were owed, made it look empty,
	// and the planner walked all of it, fetching each row to test its
	// source, for one source's pages (3.9 ms a call at a million sites,
	// BenchmarkPostgresScale).
	`DROP INDEX posts_due_all;`,
	// A site's politeness timing handed from worker to worker (and from a
	// process to the next on one SQLite file): the end of its last request
	// and its next permitted request, stored as its checkout is given back
	// and read as it is taken, so that no gap is shortened by a second
	// process or a restart.
	`ALTER TABLE site_checkouts ADD COLUMN last_end BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE site_checkouts ADD COLUMN next BIGINT NOT NULL DEFAULT 0;`,
	// Sources removed by the operator (sources remove): when,
	// 0 for a source in the crawl. A removed source is also paused, so
	// that every due question, which already leaves paused sources out,
	// leaves it out; the row stays because its posts, kept, refer to it.
	`ALTER TABLE sources ADD COLUMN removed BIGINT NOT NULL DEFAULT 0;`,
	// The post record and its duplicates: what the page or the feed
	// says of the post (tags a JSON list); the earlier post holding the same or
	// nearly the same text (duplicate_of, a post ID, 0 for none); when the
	// record last changed (updated, Unix ns). A post's text fingerprint is one
	// row of post_sigs (the exact hash, and the MinHash in hex, '' for a text
	// too short for one) and its MinHash bands one row each of post_bands, so
	// that the earlier holders of a text are found through two indexes, never
	// a scan. The change stamps that make `export --since` exact are the
	// dialects' (see DialectMigration "post changes").
	`ALTER TABLE posts ADD COLUMN author TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN language TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN description TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN site_name TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
	ALTER TABLE posts ADD COLUMN license TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN image TEXT NOT NULL DEFAULT '';
	ALTER TABLE posts ADD COLUMN duplicate_of BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE posts ADD COLUMN updated BIGINT NOT NULL DEFAULT 0;
	CREATE INDEX posts_duplicate_of ON posts(duplicate_of) WHERE duplicate_of <> 0;
	CREATE TABLE post_sigs (
		post_id BIGINT PRIMARY KEY,
		hash TEXT NOT NULL,
		minhash TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX post_sigs_hash ON post_sigs(hash, post_id);
	CREATE TABLE post_bands (
		band BIGINT NOT NULL,
		post_id BIGINT NOT NULL,
		PRIMARY KEY (band, post_id)
	);
	CREATE INDEX post_bands_post ON post_bands(post_id);`,
	DialectMigration("post changes"),
	// The text's Markdown form (headings, lists, quotes and code marked),
	// written by the extractor with the text and stored with it; '' for a
	// post stored before, or whose text came from a feed (export then
	// escapes the plain text). It changes only with the text, so it is no
	// part of the record the change stamps follow.
	`ALTER TABLE posts ADD COLUMN markdown TEXT NOT NULL DEFAULT '';`,
	// "Cited by" from counts per pair of sites (site_links: how many
	// links of from_site's posts point into to_site, 0 once they are all
	// gone), kept by triggers on links (DialectMigration "site link
	// counts"), instead of two indexes of links by site. A link by its
	// target site was an insert at a random place of an index as large as
	// all links: a page of the file dirtied, written to the WAL and again
	// at the checkpoint, for each citation of each page saved, 42% of a
	// page save's CPU at 250,000 posts. A page's links all share its site,
	// so its counts sit together under from_site, and the index by
	// to_site changes only when a pair of sites is new: blogs cite the
	// same few sites again and again.
	`CREATE TABLE site_links (
		from_site TEXT NOT NULL,
		to_site TEXT NOT NULL,
		links BIGINT NOT NULL,
		PRIMARY KEY (from_site, to_site)
	);
	CREATE INDEX site_links_to ON site_links(to_site, from_site);
	INSERT INTO site_links(from_site, to_site, links)
		SELECT from_site, to_site, count(*) FROM links GROUP BY from_site, to_site;
	DROP INDEX links_from;
	DROP INDEX links_to;`,
	DialectMigration("site link counts"),
}

// dialectMarker begins a migration entry that each backend fills with its
// own DDL (DialectMigration).
const dialectMarker = "-- dialect migration: "

// DialectMigration is a shared migration entry whose DDL differs per
// backend (triggers, types such as PostgreSQL's xid8): it holds its place
// in the numbering, and each backend gives its DDL under name in
// ResolveMigrations.
func DialectMigration(name string) string { return dialectMarker + name }

// ResolveMigrations replaces each DialectMigration entry of ms with the
// backend's DDL of that name; one the backend does not give is a
// programming error, found as the package starts.
func ResolveMigrations(ms []string, ddl map[string]string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		name, ok := strings.CutPrefix(m, dialectMarker)
		if !ok {
			out[i] = m
			continue
		}
		d, ok := ddl[name]
		if !ok {
			panic("store: no DDL for the dialect migration " + name)
		}
		out[i] = d
	}
	return out
}
