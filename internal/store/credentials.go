package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// Credentials in stored URLs. Before sources add refused user information
// ("user:password@"), a source could be stored with it, and every URL
// resolved against its homepage (its feeds, its sitemaps) carried it too:
// the fetcher sent it as Basic auth, and the public site, the API, the
// exports and the request log published it. ScrubCredentials takes it out
// of everything stored, once, when a database is opened (Backfill).

// CredentialFix is one source whose stored URLs carried user information
// and no longer do.
type CredentialFix struct {
	SourceID int64
	// URL is the source's URL now, without user information.
	URL string
	// MergedInto is the source this one was folded into, because that one
	// already had the URL without user information; 0 when the source kept
	// its own record.
	MergedInto int64
	// Source says whether the source's own URL carried user information
	// (else only URLs derived from it did).
	Source bool
	// What else was scrubbed of the source: its feeds, its sitemaps, its
	// posts (URL or error) and the request log rows of its site.
	Feeds, Sitemaps, Posts, Requests int
}

// userinfo matches the user information of an http(s) URL inside any text
// (a URL column, or an error message that quotes a URL): the scheme, then
// everything up to the authority's last "@". The authority ends at "/",
// "?", "#", whitespace, a double quote or an angle bracket (none of which
// user information may hold), so an "@" later in the text (a path, an
// address in a message) is not taken for it.
var userinfo = regexp.MustCompile(`(?i)\b(https?://)[^/?#\s"<>]*@`)

// scrub is s with the user information of every http(s) URL in it
// removed.
func scrub(s string) string {
	if !userinfo.MatchString(s) {
		return s
	}
	return userinfo.ReplaceAllString(s, "$1")
}

// ScrubCredentials removes user information from every source URL and from
// the URLs and messages stored of those sources: feeds (and their next
// catalogue page), sitemaps, posts, WebSub subscriptions, the request log
// of their sites and the URL aliases. A source whose URL without user
// information is another source's is folded into that one: the source
// already stored under the bare URL keeps its record (of sources that all
// carried user information, the one with the lowest ID, which is scrubbed
// first); the other's posts, feeds, sitemaps and subscriptions move to it,
// a feed or sitemap it already holds takes the other's in, and a pause
// carries over. It reports what it
// changed, in source ID order; Backfill runs it once per database and logs
// it.
func (d *DB) ScrubCredentials(ctx context.Context) ([]CredentialFix, error) {
	var fixes []CredentialFix
	err := d.tx(ctx, func(tx conn) error {
		var err error
		fixes, err = d.scrubCredentials(ctx, tx)
		return err
	})
	return fixes, err
}

// scrubCredentialsOnce runs ScrubCredentials the first time a database is
// opened by a binary that has it, and logs each source changed (by its
// URL without the password).
func (d *DB) scrubCredentialsOnce(ctx context.Context) error {
	var fixes []CredentialFix
	err := d.tx(ctx, func(tx conn) error {
		fixes = nil
		// Whoever inserts the marker does the scrub, in the same
		// transaction: workers opening together do it once.
		res, err := tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('source_credentials', 'scrubbed') ON CONFLICT(name) DO NOTHING`)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		fixes, err = d.scrubCredentials(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("scrub credentials from stored URLs: %w", err)
	}
	for _, f := range fixes {
		what := "URLs derived from a source carried a user name or password: removed"
		if f.Source {
			what = "source URL carried a user name or password: removed (the crawler sends no credentials)"
		}
		args := []any{"source_id", f.SourceID, "source", f.URL, "feeds", f.Feeds, "sitemaps", f.Sitemaps, "posts", f.Posts, "requests", f.Requests}
		if f.MergedInto != 0 {
			what = "source URL carried a user name or password: removed, and the source merged into the one that has its URL"
			args = append(args, "merged_into", f.MergedInto)
		}
		d.logger().Warn(what, args...)
	}
	return nil
}

// scrubCredentials is ScrubCredentials inside tx. Every query's rows are
// read whole before the next statement: PostgreSQL runs one statement at a
// time on a transaction's connection.
func (d *DB) scrubCredentials(ctx context.Context, tx conn) ([]CredentialFix, error) {
	// The sources to see to: those whose URL has an "@" (user
	// information, or an "@" in the path that scrub leaves alone), and
	// those with a feed or sitemap that has one.
	var ids []int64
	for _, q := range []string{
		`SELECT id FROM sources WHERE url LIKE '%@%' OR error LIKE '%@%'`,
		`SELECT DISTINCT source_id FROM feeds WHERE url LIKE '%@%' OR next_page LIKE '%@%' OR error LIKE '%@%'`,
		`SELECT DISTINCT source_id FROM sitemaps WHERE url LIKE '%@%' OR error LIKE '%@%'`,
	} {
		err := d.each(ctx, tx, q, nil, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	var fixes []CredentialFix
	for _, id := range ids {
		f, changed, err := d.scrubSource(ctx, tx, id)
		if err != nil {
			return nil, err
		}
		if changed {
			fixes = append(fixes, f)
		}
	}
	if err := scrubAliases(ctx, d, tx); err != nil {
		return nil, err
	}
	return fixes, nil
}

// scrubSource scrubs source id and what is stored of it; changed is false
// when there was nothing to scrub (an "@" in a path).
func (d *DB) scrubSource(ctx context.Context, tx conn, id int64) (f CredentialFix, changed bool, err error) {
	var url, site, srcErr string
	if err := tx.QueryRowContext(ctx, `SELECT url, site, error FROM sources WHERE id = $1`, id).
		Scan(&url, &site, &srcErr); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return f, false, nil // merged away already
		}
		return f, false, fmt.Errorf("scrub source %d: %w", id, err)
	}
	clean := scrub(url)
	f = CredentialFix{SourceID: id, URL: clean, Source: clean != url}
	target := id
	if f.Source {
		err := tx.QueryRowContext(ctx, `SELECT id FROM sources WHERE url = $1`, clean).Scan(&target)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			target = id
		case err != nil:
			return f, false, fmt.Errorf("scrub source %d: %w", id, err)
		default:
			f.MergedInto = target
		}
	}
	if f.Feeds, err = scrubFeeds(ctx, d, tx, id, target); err != nil {
		return f, false, err
	}
	if f.Sitemaps, err = scrubSitemaps(ctx, d, tx, id, target); err != nil {
		return f, false, err
	}
	if f.Posts, err = scrubPosts(ctx, d, tx, id, target); err != nil {
		return f, false, err
	}
	if err := scrubSubscriptions(ctx, d, tx, id, target); err != nil {
		return f, false, err
	}
	if f.Requests, err = scrubRequests(ctx, d, tx, site); err != nil {
		return f, false, err
	}
	switch {
	case f.MergedInto != 0:
		if err := mergeSourceRecord(ctx, tx, id, target); err != nil {
			return f, false, err
		}
	case f.Source || scrub(srcErr) != srcErr:
		if _, err := tx.ExecContext(ctx, `UPDATE sources SET url = $1, error = $2 WHERE id = $3`, clean, scrub(srcErr), id); err != nil {
			return f, false, fmt.Errorf("scrub source %d: %w", id, err)
		}
	}
	changed = f.Source || f.Feeds+f.Sitemaps+f.Posts+f.Requests > 0 || scrub(srcErr) != srcErr
	return f, changed, nil
}

// scrubFeeds scrubs the feeds of source id and moves them to source target
// (the same, unless the source is being merged into it). A feed whose URL
// without user information is another feed's is merged into that one: its
// subscription goes (the other feed has or will have its own) and its
// aliases point to the other. It returns how many feeds were scrubbed.
func scrubFeeds(ctx context.Context, d *DB, tx conn, id, target int64) (int, error) {
	type feed struct {
		id                   int64
		url, nextPage, error string
	}
	var feeds []feed
	err := d.each(ctx, tx, `SELECT id, url, next_page, error FROM feeds WHERE source_id = $1 ORDER BY id`, []any{id}, func(rows *sql.Rows) error {
		var f feed
		err := rows.Scan(&f.id, &f.url, &f.nextPage, &f.error)
		feeds = append(feeds, f)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("scrub feeds of source %d: %w", id, err)
	}
	n := 0
	for _, f := range feeds {
		url, nextPage, msg := scrub(f.url), scrub(f.nextPage), scrub(f.error)
		dirty := url != f.url || nextPage != f.nextPage || msg != f.error
		if dirty {
			n++
		}
		if url != f.url {
			var other int64
			err := tx.QueryRowContext(ctx, `SELECT id FROM feeds WHERE url = $1`, url).Scan(&other)
			switch {
			case err == nil:
				steps := []struct {
					q    string
					args []any
				}{
					{`DELETE FROM subscriptions WHERE feed_id = $1`, []any{f.id}},
					{`UPDATE url_aliases SET target = $2 WHERE kind = 'feed' AND target = $1`, []any{f.id, other}},
					{`DELETE FROM feeds WHERE id = $1`, []any{f.id}},
				}
				for _, st := range steps {
					if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
						return 0, fmt.Errorf("merge feed %d into %d: %w", f.id, other, err)
					}
				}
				continue
			case !errors.Is(err, sql.ErrNoRows):
				return 0, err
			}
		}
		if !dirty && target == id {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE feeds SET url = $1, next_page = $2, error = $3, source_id = $4 WHERE id = $5`,
			url, nextPage, msg, target, f.id); err != nil {
			return 0, fmt.Errorf("scrub feed %d: %w", f.id, err)
		}
	}
	return n, nil
}

// scrubSitemaps is scrubFeeds for sitemaps, which are unique by source and
// URL: a sitemap the target source already holds under the scrubbed URL
// takes this one's listings, children and aliases, and this one goes.
func scrubSitemaps(ctx context.Context, d *DB, tx conn, id, target int64) (int, error) {
	type sitemap struct {
		id         int64
		url, error string
	}
	var sitemaps []sitemap
	err := d.each(ctx, tx, `SELECT id, url, error FROM sitemaps WHERE source_id = $1 ORDER BY id`, []any{id}, func(rows *sql.Rows) error {
		var s sitemap
		err := rows.Scan(&s.id, &s.url, &s.error)
		sitemaps = append(sitemaps, s)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("scrub sitemaps of source %d: %w", id, err)
	}
	n := 0
	for _, s := range sitemaps {
		url, msg := scrub(s.url), scrub(s.error)
		dirty := url != s.url || msg != s.error
		if dirty {
			n++
		}
		if url != s.url || target != id {
			var other int64
			err := tx.QueryRowContext(ctx, `SELECT id FROM sitemaps WHERE source_id = $1 AND url = $2 AND id <> $3`, target, url, s.id).Scan(&other)
			switch {
			case err == nil:
				steps := []struct {
					q    string
					args []any
				}{
					{`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) SELECT $2, post_id, lastmod, seen FROM sitemap_urls WHERE sitemap_id = $1
						ON CONFLICT(sitemap_id, post_id) DO NOTHING`, []any{s.id, other}},
					{`DELETE FROM sitemap_urls WHERE sitemap_id = $1`, []any{s.id}},
					{`UPDATE sitemaps SET parent_id = $2 WHERE parent_id = $1`, []any{s.id, other}},
					{`UPDATE url_aliases SET target = $2 WHERE kind = 'sitemap' AND target = $1`, []any{s.id, other}},
					{`DELETE FROM sitemaps WHERE id = $1`, []any{s.id}},
				}
				for _, st := range steps {
					if _, err := tx.ExecContext(ctx, st.q, st.args...); err != nil {
						return 0, fmt.Errorf("merge sitemap %d into %d: %w", s.id, other, err)
					}
				}
				continue
			case !errors.Is(err, sql.ErrNoRows):
				return 0, err
			}
		}
		if !dirty && target == id {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sitemaps SET url = $1, error = $2, source_id = $3 WHERE id = $4`, url, msg, target, s.id); err != nil {
			return 0, fmt.Errorf("scrub sitemap %d: %w", s.id, err)
		}
	}
	return n, nil
}

// scrubPosts scrubs the posts of source id (keyed URLs carry no user
// information, but an error message may quote a URL that did) and moves
// them to target. A post whose scrubbed URL is another's is merged into it.
func scrubPosts(ctx context.Context, d *DB, tx conn, id, target int64) (int, error) {
	type post struct {
		id         int64
		url, error string
	}
	var posts []post
	err := d.each(ctx, tx, `SELECT id, url, error FROM posts WHERE source_id = $1 AND (url LIKE '%@%' OR error LIKE '%@%') ORDER BY id`,
		[]any{id}, func(rows *sql.Rows) error {
			var p post
			err := rows.Scan(&p.id, &p.url, &p.error)
			posts = append(posts, p)
			return err
		})
	if err != nil {
		return 0, fmt.Errorf("scrub posts of source %d: %w", id, err)
	}
	n := 0
	for _, p := range posts {
		url, msg := scrub(p.url), scrub(p.error)
		if url == p.url && msg == p.error {
			continue
		}
		n++
		if url != p.url {
			var other int64
			err := tx.QueryRowContext(ctx, `SELECT id FROM posts WHERE url = $1`, url).Scan(&other)
			switch {
			case err == nil:
				// mergePost makes the old URL an alias; scrubAliases,
				// which runs last, takes the user information out of it.
				if err := mergePost(ctx, tx, p.id, other); err != nil {
					return 0, err
				}
				continue
			case !errors.Is(err, sql.ErrNoRows):
				return 0, err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET url = $1, error = $2 WHERE id = $3`, url, msg, p.id); err != nil {
			return 0, fmt.Errorf("scrub post %d: %w", p.id, err)
		}
	}
	if target != id {
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET source_id = $1 WHERE source_id = $2`, target, id); err != nil {
			return 0, fmt.Errorf("move posts of source %d to %d: %w", id, target, err)
		}
	}
	return n, nil
}

// scrubSubscriptions scrubs the topics and hubs of source id's WebSub
// subscriptions and moves them to target.
func scrubSubscriptions(ctx context.Context, d *DB, tx conn, id, target int64) error {
	type sub struct{ callback, hub, topic string }
	var subs []sub
	err := d.each(ctx, tx, `SELECT callback, hub, topic FROM subscriptions WHERE source_id = $1`, []any{id}, func(rows *sql.Rows) error {
		var s sub
		err := rows.Scan(&s.callback, &s.hub, &s.topic)
		subs = append(subs, s)
		return err
	})
	if err != nil {
		return fmt.Errorf("scrub subscriptions of source %d: %w", id, err)
	}
	for _, s := range subs {
		if scrub(s.hub) == s.hub && scrub(s.topic) == s.topic && target == id {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE subscriptions SET hub = $1, topic = $2, source_id = $3 WHERE callback = $4`,
			scrub(s.hub), scrub(s.topic), target, s.callback); err != nil {
			return fmt.Errorf("scrub subscription %s: %w", s.callback, err)
		}
	}
	return nil
}

// scrubRequests scrubs the request log of site: the URLs asked and the
// errors that quote them.
func scrubRequests(ctx context.Context, d *DB, tx conn, site string) (int, error) {
	type request struct {
		id         int64
		url, error string
	}
	var reqs []request
	err := d.each(ctx, tx, `SELECT id, url, error FROM requests WHERE site = $1 AND (url LIKE '%@%' OR error LIKE '%@%')`, []any{site}, func(rows *sql.Rows) error {
		var r request
		err := rows.Scan(&r.id, &r.url, &r.error)
		reqs = append(reqs, r)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("scrub request log of %s: %w", site, err)
	}
	n := 0
	for _, r := range reqs {
		url, msg := scrub(r.url), scrub(r.error)
		if url == r.url && msg == r.error {
			continue
		}
		n++
		if _, err := tx.ExecContext(ctx, `UPDATE requests SET url = $1, error = $2 WHERE id = $3`, url, msg, r.id); err != nil {
			return 0, fmt.Errorf("scrub request %d: %w", r.id, err)
		}
	}
	return n, nil
}

// scrubAliases takes user information out of the URL aliases: an alias
// whose scrubbed URL is already an alias of its kind goes, the others are
// renamed.
func scrubAliases(ctx context.Context, d *DB, tx conn) error {
	type alias struct{ kind, url string }
	var aliases []alias
	err := d.each(ctx, tx, `SELECT kind, url FROM url_aliases WHERE url LIKE '%@%' ORDER BY kind, url`, nil, func(rows *sql.Rows) error {
		var a alias
		err := rows.Scan(&a.kind, &a.url)
		aliases = append(aliases, a)
		return err
	})
	if err != nil {
		return fmt.Errorf("scrub URL aliases: %w", err)
	}
	for _, a := range aliases {
		url := scrub(a.url)
		if url == a.url {
			continue
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM url_aliases WHERE kind = $1 AND url = $2`, a.kind, url).Scan(&one)
		q := `UPDATE url_aliases SET url = $3 WHERE kind = $1 AND url = $2`
		args := []any{a.kind, a.url, url}
		switch {
		case err == nil:
			q, args = `DELETE FROM url_aliases WHERE kind = $1 AND url = $2`, args[:2]
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("scrub URL alias: %w", err)
		}
	}
	return nil
}
