package store

import (
	"context"
	"fmt"
	"net/url"

	"corpus.blog/corpusbot/internal/model"
)

// SiteRetryCleared is what RetrySite cleared of a site: its sources, how
// many stored robots.txt entries of its origins were dropped, whether it
// had a refusal-list record, and how many of its items had a back-off
// (retry_at or failed tries) taken off.
type SiteRetryCleared struct {
	Sources     int
	Robots      int
	Refusal     bool
	Wait        bool // its stored wait (site_waits: back-off, Retry-After)
	Feeds       int
	Sitemaps    int
	Posts       int
	Discoveries int // sources whose discovery or sitemap discovery was postponed
}

// RetrySite clears, by hand, what the crawl holds back for site (a
// registrable domain, as model.Site gives it) on guesses and back-off: the
// stored robots.txt entries of its origins (so robots.txt is asked again
// at once), its refusal-list record, its stored wait (the back-off and
// Retry-After the next process would honour), and the retry times and failed tries
// of its sources' feeds, sitemaps, posts and discoveries. States and last
// errors stay; the next run asks again. It is one transaction. A site with
// no source is model.ErrNotFound, and nothing is changed. A crawler
// running meanwhile keeps what it holds in memory until its own copy
// expires: the clearing is for the next run.
func (d *DB) RetrySite(ctx context.Context, site string) (SiteRetryCleared, error) {
	var c SiteRetryCleared
	err := d.tx(ctx, func(tx conn) error {
		c = SiteRetryCleared{}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sources WHERE site = $1`, site).Scan(&c.Sources); err != nil {
			return err
		}
		if c.Sources == 0 {
			return model.ErrNotFound
		}
		origins, err := siteOrigins(ctx, tx, site)
		if err != nil {
			return err
		}
		for _, o := range origins {
			if _, err := tx.ExecContext(ctx, `DELETE FROM robots_cache WHERE origin = $1`, o); err != nil {
				return err
			}
		}
		c.Robots = len(origins)
		n, err := affected(tx.ExecContext(ctx, `DELETE FROM refusals WHERE site = $1`, site))
		if err != nil {
			return err
		}
		c.Refusal = n > 0
		if n, err = affected(tx.ExecContext(ctx, `DELETE FROM site_waits WHERE site = $1`, site)); err != nil {
			return err
		}
		c.Wait = n > 0
		const ofSite = `source_id IN (SELECT id FROM sources WHERE site = $1) AND (retry_at <> 0 OR attempts <> 0)`
		for _, t := range []struct {
			table string
			n     *int
		}{{"feeds", &c.Feeds}, {"sitemaps", &c.Sitemaps}, {"posts", &c.Posts}} {
			if *t.n, err = affected(tx.ExecContext(ctx, `UPDATE `+t.table+` SET retry_at = 0, attempts = 0 WHERE `+ofSite, site)); err != nil {
				return err
			}
		}
		c.Discoveries, err = affected(tx.ExecContext(ctx, `UPDATE sources SET discover_after = 0, sitemaps_after = 0, attempts = 0
			WHERE site = $1 AND (discover_after <> 0 OR sitemaps_after <> 0 OR attempts <> 0)`, site))
		return err
	})
	if err != nil {
		return SiteRetryCleared{}, fmt.Errorf("retry site %s: %w", site, err)
	}
	return c, nil
}

// siteOrigins lists the origins of site that have a stored robots.txt
// entry: those whose host is site or under it (the LIKE narrows the
// search, model.Site decides), as model.OriginOf spells them.
func siteOrigins(ctx context.Context, tx conn, site string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT origin FROM robots_cache WHERE origin LIKE $1 OR origin LIKE $2 OR origin LIKE $3`,
		"%://"+site+":%", "%."+site+":%", "%://["+site+"]:%")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, err
		}
		if u, err := url.Parse(o); err == nil && model.Site(u.Host) == site {
			out = append(out, o)
		}
	}
	return out, rows.Err()
}

// affected is the rows a statement changed.
func affected(r interface{ RowsAffected() (int64, error) }, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := r.RowsAffected()
	return int(n), err
}
