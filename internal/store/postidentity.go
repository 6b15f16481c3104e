package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"corpus.blog/corpusbot/internal/urlkey"
)

// One post, one record. A post is stored under its URL's key (package
// urlkey: scheme and host case, default port, dot segments,
// percent-encoding, fragment and tracking parameters normalised), spelled
// as its host is known to spell its URLs (host_spellings: the scheme,
// "www." and trailing slash the site itself has shown, by a permanent
// redirect or a page's canonical link), and resolved through url_aliases
// (the other URLs a redirect or a canonical link showed to be the same
// record). Every path by which a URL becomes a post (a feed, a sitemap,
// IndexNow) and every lookup by URL goes through postKey, so that all of
// them name one record. Feeds and sitemaps that moved for good keep their
// old URL as an alias too.

// Alias kinds in url_aliases.
const (
	aliasPost    = "post"
	aliasFeed    = "feed"
	aliasSitemap = "sitemap"
)

// spelling is what a host has shown of how it spells its URLs; the zero
// value knows nothing.
type spelling struct {
	scheme string // "http" or "https"; "" unknown
	www    int    // 1: with "www.", 0: without, -1 unknown
	slash  int    // 1: file-less paths end with "/", 0: they do not, -1 unknown
}

var unknownSpelling = spelling{www: -1, slash: -1}

// spellingHost is the host a key's spelling is kept under: its host and
// port, without "www." (urlkey.VariantClass's host).
func spellingHost(key string) string {
	class := urlkey.VariantClass(key)
	if i := strings.IndexAny(class, "/?"); i >= 0 {
		return class[:i]
	}
	return class
}

// apply spells key as sp says.
func (sp spelling) apply(key string) string {
	var v urlkey.Variation
	scheme, www, slash := "http", "", "x"
	if sp.scheme != "" {
		v |= urlkey.Scheme
		scheme = sp.scheme
	}
	if sp.www >= 0 {
		v |= urlkey.WWW
		if sp.www == 1 {
			www = "www."
		}
	}
	if sp.slash >= 0 {
		v |= urlkey.TrailingSlash
		if sp.slash == 1 {
			slash = "x/"
		}
	}
	if v == 0 {
		return key
	}
	return urlkey.Respell(key, v, scheme+"://"+www+spellingHost(key)+"/"+slash)
}

// spellings caches, for one transaction, what postKey asks of the
// database once per host rather than once per URL: the host's spelling
// and, where a range of text finds a prefix through the index
// (Dialect.BytewiseText), whether any post alias starts with a spelled
// key's origin ("https://host/"). Most hosts have no alias, and a feed or
// sitemap names tens of posts of one host: one query instead of one per
// URL. A transaction that adds an alias does not look keys up after it
// with the same cache.
type spellings struct {
	hosts   map[string]spelling
	aliased map[string]bool // by origin prefix
}

func newSpellings() spellings {
	return spellings{hosts: map[string]spelling{}, aliased: map[string]bool{}}
}

func (c spellings) of(ctx context.Context, tx conn, host string) (spelling, error) {
	if sp, ok := c.hosts[host]; ok {
		return sp, nil
	}
	sp := unknownSpelling
	err := tx.QueryRowContext(ctx, `SELECT scheme, www, slash FROM host_spellings WHERE host = $1`, host).Scan(&sp.scheme, &sp.www, &sp.slash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return sp, err
	}
	c.hosts[host] = sp
	return sp, nil
}

// mayHaveAlias reports whether a post alias may be key: false only when
// none starts with key's origin.
func (c spellings) mayHaveAlias(ctx context.Context, tx conn, key string) (bool, error) {
	if !tx.db.dialect.BytewiseText {
		return true, nil
	}
	_, rest, ok := strings.Cut(key, "://")
	slash := strings.IndexByte(rest, '/')
	if !ok || slash < 0 {
		return true, nil
	}
	origin := key[:len(key)-len(rest)+slash+1] // "scheme://host/"
	if has, ok := c.aliased[origin]; ok {
		return has, nil
	}
	// '0' follows '/': every key with the origin sorts between the two.
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM url_aliases WHERE kind = $1 AND url >= $2 AND url < $3 LIMIT 1`,
		aliasPost, origin, origin[:len(origin)-1]+"0").Scan(&one)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return true, err
	}
	c.aliased[origin] = err == nil
	return err == nil, nil
}

// postKey is the URL raw names a post by: its key, spelled as its host
// spells URLs, resolved through the aliases to the record's own URL. ok is
// false when raw is not an absolute http(s) URL (it is then used as it
// is, as before keys: nothing is lost).
func postKey(ctx context.Context, tx conn, sp spellings, raw string) (string, error) {
	key, err := urlkey.Key(raw)
	if err != nil {
		return raw, nil
	}
	s, err := sp.of(ctx, tx, spellingHost(key))
	if err != nil {
		return "", err
	}
	key = s.apply(key)
	if may, err := sp.mayHaveAlias(ctx, tx, key); err != nil || !may {
		return key, err
	}
	return resolveAlias(ctx, tx, aliasPost, key, `SELECT url FROM posts WHERE id = $1`)
}

// resolveAlias is the URL of the record an alias names, or key itself.
func resolveAlias(ctx context.Context, tx conn, kind, key, urlOf string) (string, error) {
	var target int64
	err := tx.QueryRowContext(ctx, `SELECT target FROM url_aliases WHERE kind = $1 AND url = $2`, kind, key).Scan(&target)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return key, nil
	case err != nil:
		return "", err
	}
	var u string
	if err := tx.QueryRowContext(ctx, urlOf, target).Scan(&u); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return key, nil // a dangling alias: the record went
		}
		return "", err
	}
	return u, nil
}

// addAlias records that url names the record target of kind.
func addAlias(ctx context.Context, tx conn, kind, url string, target int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO url_aliases(kind, url, target) VALUES ($1, $2, $3)
		ON CONFLICT(kind, url) DO UPDATE SET target = excluded.target`, kind, url, target)
	return err
}

// LearnSpelling records how a host spells its URLs: like is a key the site
// itself gave (the target of a permanent redirect, a page's canonical
// link), and v the ways in which it shows the spelling of its host
// (urlkey.Variation). The host's spelling is recorded, and the posts of
// the host still owed their first fetch are spelled again: a post whose
// new spelling is another record's URL is merged into it, unfetched. It
// returns how many posts it changed.
func (d *DB) LearnSpelling(ctx context.Context, like string, v urlkey.Variation) (int, error) {
	like, err := urlkey.Key(like)
	if err != nil || v == 0 {
		return 0, nil
	}
	host := spellingHost(like)
	var changed int
	err = d.tx(ctx, func(tx conn) error {
		changed = 0
		sp, err := newSpellings().of(ctx, tx, host)
		if err != nil {
			return err
		}
		learnt := sp
		if v&urlkey.Scheme != 0 {
			learnt.scheme, _, _ = strings.Cut(like, "://")
		}
		if v&urlkey.WWW != 0 {
			learnt.www = b2i(strings.Contains(like, "://www."))
		}
		// Only a file-less path other than "/" says how paths end.
		if path := pathOf(like); v&urlkey.TrailingSlash != 0 && path != "/" && !strings.Contains(path[strings.LastIndexByte(path, '/'):], ".") {
			learnt.slash = b2i(strings.HasSuffix(path, "/"))
		}
		if learnt == sp {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO host_spellings(host, scheme, www, slash) VALUES ($1, $2, $3, $4)
			ON CONFLICT(host) DO UPDATE SET scheme = excluded.scheme, www = excluded.www, slash = excluded.slash`,
			host, learnt.scheme, learnt.www, learnt.slash); err != nil {
			return fmt.Errorf("spelling of %s: %w", host, err)
		}
		changed, err = respellPending(ctx, tx, host, learnt)
		return err
	})
	return changed, err
}

// pathOf is a key's path.
func pathOf(key string) string {
	_, rest, _ := strings.Cut(key, "://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[i:]
	} else {
		return "/"
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// respellPending spells again the posts of host never fetched, merging
// each whose new spelling is another record's URL into that record.
func respellPending(ctx context.Context, tx conn, host string, sp spelling) (int, error) {
	type post struct {
		id  int64
		url string
	}
	var todo []post
	for _, prefix := range []string{"http://" + host + "/", "https://" + host + "/", "http://www." + host + "/", "https://www." + host + "/"} {
		// A range on the URL index: every key of the prefix sorts between
		// it and the same prefix with its last byte ("/") raised by one.
		rows, err := tx.QueryContext(ctx, `SELECT id, url FROM posts WHERE url >= $1 AND url < $2 AND fetched = 0`,
			prefix, prefix[:len(prefix)-1]+"0")
		if err != nil {
			return 0, err
		}
		for rows.Next() {
			var p post
			if err := rows.Scan(&p.id, &p.url); err != nil {
				rows.Close()
				return 0, err
			}
			todo = append(todo, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	changed := 0
	for _, p := range todo {
		to := sp.apply(p.url)
		if to == p.url {
			continue
		}
		if err := movePost(ctx, tx, p.id, p.url, to); err != nil {
			return changed, err
		}
		changed++
	}
	return changed, nil
}

// movePost records post id (now at url) under to: renamed when no record
// has that URL, else merged into the one that has.
func movePost(ctx context.Context, tx conn, id int64, url, to string) error {
	to, err := resolveAlias(ctx, tx, aliasPost, to, `SELECT url FROM posts WHERE id = $1`)
	if err != nil {
		return err
	}
	if to == url {
		return nil
	}
	var into int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM posts WHERE url = $1`, to).Scan(&into)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `UPDATE posts SET url = $1 WHERE id = $2`, to, id); err != nil {
			return fmt.Errorf("rename post %s: %w", url, err)
		}
		return addAlias(ctx, tx, aliasPost, url, id)
	case err != nil:
		return err
	}
	return mergePost(ctx, tx, id, into)
}

// mergePost folds post from into post into: one record for one post. into
// keeps its URL, gains from's sitemap listings, aliases and feed presence,
// the later lastmod and the earlier published and first-seen dates (a
// zero date being unknown, not early); when only from was
// fetched (and into was not), from's page — state, text, validators,
// citations — becomes into's. from's URL becomes an alias of into, and
// from is deleted.
func mergePost(ctx context.Context, tx conn, from, into int64) error {
	if from == into {
		return nil
	}
	var fromURL string
	var fromFetched, intoFetched int64
	if err := tx.QueryRowContext(ctx, `SELECT url, fetched FROM posts WHERE id = $1`, from).Scan(&fromURL, &fromFetched); err != nil {
		return fmt.Errorf("merge post %d: %w", from, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT fetched FROM posts WHERE id = $1`, into).Scan(&intoFetched); err != nil {
		return fmt.Errorf("merge into post %d: %w", into, err)
	}
	steps := []struct {
		q    string
		args []any
	}{
		{`UPDATE posts SET in_feed = CASE WHEN in_feed <> 0 OR (SELECT in_feed FROM posts WHERE id = $1) <> 0 THEN 1 ELSE 0 END,
			lastmod = CASE WHEN (SELECT lastmod FROM posts WHERE id = $1) > lastmod THEN (SELECT lastmod FROM posts WHERE id = $1) ELSE lastmod END,
			published = CASE WHEN published = 0 OR ((SELECT published FROM posts WHERE id = $1) <> 0 AND (SELECT published FROM posts WHERE id = $1) < published)
				THEN (SELECT published FROM posts WHERE id = $1) ELSE published END,
			title = CASE WHEN title = '' THEN (SELECT title FROM posts WHERE id = $1) ELSE title END,
			first_seen = CASE WHEN first_seen = 0 OR ((SELECT first_seen FROM posts WHERE id = $1) <> 0 AND (SELECT first_seen FROM posts WHERE id = $1) < first_seen)
				THEN (SELECT first_seen FROM posts WHERE id = $1) ELSE first_seen END
			WHERE id = $2`, []any{from, into}},
		{`INSERT INTO sitemap_urls(sitemap_id, post_id, lastmod, seen) SELECT sitemap_id, $2, lastmod, seen FROM sitemap_urls WHERE post_id = $1
			ON CONFLICT(sitemap_id, post_id) DO NOTHING`, []any{from, into}},
		{`DELETE FROM sitemap_urls WHERE post_id = $1`, []any{from}},
		{`UPDATE url_aliases SET target = $2 WHERE kind = 'post' AND target = $1`, []any{from, into}},
	}
	if fromFetched != 0 && intoFetched == 0 {
		// The page was read under the other URL: it is this record's page.
		steps = append(steps,
			struct {
				q    string
				args []any
			}{`UPDATE posts SET (state, text_from, text, etag, last_modified, citations, due, fetched, attempts, retry_at, error) =
				(SELECT state, text_from, text, etag, last_modified, citations, due, fetched, attempts, retry_at, error FROM posts WHERE id = $1)
				WHERE id = $2`, []any{from, into}},
			struct {
				q    string
				args []any
			}{`UPDATE links SET post_id = $2 WHERE post_id = $1`, []any{from, into}})
	}
	steps = append(steps,
		struct {
			q    string
			args []any
		}{`DELETE FROM links WHERE post_id = $1`, []any{from}},
		struct {
			q    string
			args []any
		}{`DELETE FROM posts WHERE id = $1`, []any{from}})
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("merge post %d into %d: %w", from, into, err)
		}
	}
	return addAlias(ctx, tx, aliasPost, fromURL, into)
}
