package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// Site implements web.DirectoryData: a dozen queries, each over one site's range
// of an index (sources_site, site_links, requests_site …).
func (s *SiteData) Site(ctx context.Context, site string, now time.Time) (model.SiteDetail, error) {
	d := model.SiteDetail{Site: site, Sources: []model.SourceDetail{}, Posts: []model.StateCount{}, Recent: []model.PostMeta{}, Robots: []model.Origin{}}
	var err error
	if d.OptedOut, err = s.db.OptedOut(ctx, site); err != nil {
		return model.SiteDetail{}, fmt.Errorf("site %s: %w", site, err)
	}
	err = s.db.r.QueryRowContext(ctx, `SELECT refused FROM refusals WHERE site = $1`, site).Scan(&d.Refused)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return model.SiteDetail{}, fmt.Errorf("site %s: refusal: %w", site, err)
	}
	steps := []func(context.Context, string, *model.SiteDetail) error{s.siteSources, s.sitePosts, s.siteRecent, s.siteCitations, s.siteRobots}
	for _, step := range steps {
		if err := step(ctx, site, &d); err != nil {
			return model.SiteDetail{}, fmt.Errorf("site %s: %w", site, err)
		}
	}
	if d.Requests, err = s.requests(ctx, site, now); err != nil {
		return model.SiteDetail{}, fmt.Errorf("site %s: %w", site, err)
	}
	if len(d.Sources) == 0 && d.Requests.Total == 0 && d.Requests.Withheld == 0 && !d.OptedOut {
		return model.SiteDetail{}, fmt.Errorf("site %s: %w", site, model.ErrNotFound)
	}
	return d, nil
}

// siteSources fills in the site's sources with their feeds and sitemaps.
func (s *SiteData) siteSources(ctx context.Context, site string, d *model.SiteDetail) error {
	state, err := s.stateExpr(ctx)
	if err != nil {
		return err
	}
	byID := map[int64]*model.SourceDetail{}
	var ids []int64
	err = s.db.each(ctx, s.db.r, `SELECT s.id, s.url, s.added, s.paused, s.paused_by, s.paused_at, s.error, `+state+`
		FROM sources s WHERE s.site = $1`, []any{site}, func(rows *sql.Rows) error {
		var x model.SourceDetail
		var added, pausedAt int64
		var paused int
		var stored string
		if err := rows.Scan(&x.ID, &x.URL, &added, &paused, &x.PausedBy, &pausedAt, &stored, &x.State); err != nil {
			return err
		}
		x.Added, x.Paused, x.PausedAt, x.Error = tm(added), paused != 0, tm(pausedAt), PublicSourceError(stored)
		x.Feeds, x.Sitemaps = []model.FeedDetail{}, []model.SitemapDetail{}
		byID[x.ID] = &x
		ids = append(ids, x.ID)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sources: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	err = s.db.each(ctx, s.db.r, `SELECT f.source_id, f.url, f.title, f.state, f.catalogue, f.pages, f.last_read, f.checked
		FROM feeds f JOIN sources s ON s.id = f.source_id WHERE s.site = $1 ORDER BY f.id`, []any{site}, func(rows *sql.Rows) error {
		var id, read, checked int64
		var f model.FeedDetail
		if err := rows.Scan(&id, &f.URL, &f.Title, &f.State, &f.Catalogue, &f.Pages, &read, &checked); err != nil {
			return err
		}
		f.LastRead, f.Checked = tm(read), tm(checked)
		src := byID[id]
		if src.Title == "" {
			src.Title = f.Title // the earliest feed's that has one (see feedTitles)
		}
		src.Feeds = append(src.Feeds, f)
		return nil
	})
	if err != nil {
		return fmt.Errorf("feeds: %w", err)
	}
	// A sitemap's URLs are the rows of its latest read: IngestSitemap
	// numbers each read in seen (sitemap_urls_seen makes both a seek).
	err = s.db.each(ctx, s.db.r, `SELECT m.source_id, m.url, m.via, m.parent_id, m.state, m.last_read, m.note,
		(SELECT count(*) FROM sitemap_urls u WHERE u.sitemap_id = m.id
			AND u.seen = (SELECT max(v.seen) FROM sitemap_urls v WHERE v.sitemap_id = m.id))
		FROM sitemaps m JOIN sources s ON s.id = m.source_id WHERE s.site = $1`, []any{site}, func(rows *sql.Rows) error {
		var id, parent, read int64
		var m model.SitemapDetail
		if err := rows.Scan(&id, &m.URL, &m.Via, &parent, &m.State, &read, &m.Note, &m.URLs); err != nil {
			return err
		}
		if parent != 0 {
			m.Via = model.ViaIndex
		}
		m.LastRead = tm(read)
		byID[id].Sitemaps = append(byID[id].Sitemaps, m)
		return nil
	})
	if err != nil {
		return fmt.Errorf("sitemaps: %w", err)
	}
	for _, id := range ids {
		src := byID[id]
		slices.SortFunc(src.Feeds, func(a, b model.FeedDetail) int { return cmp.Compare(a.URL, b.URL) })
		slices.SortFunc(src.Sitemaps, func(a, b model.SitemapDetail) int { return cmp.Compare(a.URL, b.URL) })
		d.Sources = append(d.Sources, *src)
	}
	slices.SortFunc(d.Sources, func(a, b model.SourceDetail) int { return cmp.Compare(a.URL, b.URL) })
	return nil
}

// sitePosts counts the site's posts by state (posts_source_state).
func (s *SiteData) sitePosts(ctx context.Context, site string, d *model.SiteDetail) error {
	counts, err := s.countBy(ctx, `SELECT p.state, count(*) FROM posts p JOIN sources s ON s.id = p.source_id
		WHERE s.site = $1 GROUP BY p.state`, site)
	if err != nil {
		return fmt.Errorf("posts: %w", err)
	}
	for _, st := range model.PostStates {
		if n := counts[st]; n > 0 {
			d.Posts = append(d.Posts, model.StateCount{State: st, Count: n})
		}
	}
	return nil
}

// siteRecent lists the newest posts: dated before undated, newest first,
// then by URL (bytewise, as Go orders: hence collate).
func (s *SiteData) siteRecent(ctx context.Context, site string, d *model.SiteDetail) error {
	err := s.db.each(ctx, s.db.r, `SELECT p.url, p.title, p.published, p.lastmod, p.state,
		(SELECT count(*) FROM links l WHERE l.post_id = p.id)
		FROM posts p JOIN sources s ON s.id = p.source_id WHERE s.site = $1 AND p.state <> `+sqlPostRemoved+`
		ORDER BY CASE WHEN p.published = 0 THEN 1 ELSE 0 END, p.published DESC, p.url`+s.collate+` LIMIT $2`,
		[]any{site, model.RecentPosts}, func(rows *sql.Rows) error {
			var p model.PostMeta
			var pub, lm int64
			if err := rows.Scan(&p.URL, &p.Title, &pub, &lm, &p.State, &p.Citations); err != nil {
				return err
			}
			p.Published, p.Lastmod = tm(pub), tm(lm)
			d.Recent = append(d.Recent, p)
			return nil
		})
	if err != nil {
		return fmt.Errorf("recent posts: %w", err)
	}
	return nil
}

// siteCitations counts links out of and into the site by the other site
// (site_links, by its key and by site_links_to); the store keeps no link
// within a site.
func (s *SiteData) siteCitations(ctx context.Context, site string, d *model.SiteDetail) error {
	var err error
	d.Citations.Out, d.Citations.TopOut, err = s.linkCounts(ctx, `SELECT to_site, links FROM site_links WHERE from_site = $1 AND links > 0`, site)
	if err != nil {
		return fmt.Errorf("citations out: %w", err)
	}
	d.Citations.In, d.Citations.TopIn, err = s.linkCounts(ctx, `SELECT from_site, links FROM site_links WHERE to_site = $1 AND links > 0`, site)
	if err != nil {
		return fmt.Errorf("citations in: %w", err)
	}
	return nil
}

// linkCounts runs a (site, count) query and returns the sum and the
// TopCited sites, by count descending then site.
func (s *SiteData) linkCounts(ctx context.Context, q, site string) (int, []model.SiteCount, error) {
	total, out := 0, []model.SiteCount{}
	err := s.db.each(ctx, s.db.r, q, []any{site}, func(rows *sql.Rows) error {
		var c model.SiteCount
		err := rows.Scan(&c.Site, &c.Count)
		total += c.Count
		out = append(out, c)
		return err
	})
	slices.SortFunc(out, func(a, b model.SiteCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Site, b.Site))
	})
	return total, out[:min(len(out), model.TopCited)], err
}

// siteRobots lists the origins of the site's hosts. The origins table has
// no site column (the crawler writes origins by origin), so one LIKE
// narrows to origins whose host ends with the site, and Go keeps those
// whose host's site it is (LIKE's _ and SQLite's case folding only widen
// the match). It scans the origins' key: some 20 ms per 100,000 origins.
func (s *SiteData) siteRobots(ctx context.Context, site string, d *model.SiteDetail) error {
	pattern := "%" + site + ":%"
	if strings.Contains(site, ":") { // an IPv6 literal, bracketed in origins
		pattern = "%[" + site + "]:%"
	}
	err := s.db.each(ctx, s.db.r, `SELECT origin, status, state, checked FROM origins WHERE origin LIKE $1`,
		[]any{pattern}, func(rows *sql.Rows) error {
			var o model.Origin
			var checked int64
			if err := rows.Scan(&o.Origin, &o.Status, &o.State, &checked); err != nil {
				return err
			}
			o.Checked = tm(checked)
			if model.SiteOfURL(o.Origin) == site {
				d.Robots = append(d.Robots, o)
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("robots: %w", err)
	}
	slices.SortFunc(d.Robots, func(a, b model.Origin) int { return cmp.Compare(a.Origin, b.Origin) })
	return nil
}
