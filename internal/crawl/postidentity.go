package crawl

import (
	"context"
	"net/url"

	"corpus.blog/corpusbot/internal/extract"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/sitemapclass"
	"corpus.blog/corpusbot/internal/urlkey"
)

// URL identity (store: one post, one record). What a site shows of where
// its pages live is taken as it shows it, never guessed: a page's
// rel="canonical" (or Link header) naming another URL of the same site
// records the post under that URL; a redirect that went for good, or one
// between spellings of one URL (http and https, "www." or not, a trailing
// slash), does the same; and the spelling a canonical link or a redirect
// shows (scheme, "www.", trailing slash) is learnt for its host, so that
// the other URLs its feed and sitemap give are spelled the same way before
// they are fetched. A canonical URL on another site is recorded, not
// followed.

// home is where a fetched page says its post lives.
type home struct {
	canonical string // a URL of the post's site to record it under; "" to keep its own
	elsewhere string // a canonical URL on another site: recorded only
	fromLink  bool   // canonical (or the post's own URL, when self) came from a canonical link, not a redirect
	self      bool   // the canonical link names the post's own URL
}

// pageHome is where a fetched page says the post at postURL lives.
func pageHome(postURL string, res fetch.Result, page extract.Page) home {
	link := page.Canonical
	if link == "" {
		if base, err := url.Parse(res.FinalURL); err == nil {
			link = extract.LinkCanonical(res.Header.Values("Link"), base)
		}
	}
	if link != "" {
		if model.SiteOfURL(link) != res.Site {
			return home{elsewhere: link}
		}
		// A link to the home page, a listing or an archive is a template's
		// mistake, not the post's address: every post would fold into it.
		switch sitemapclass.OfEntry(link).Kind {
		case sitemapclass.KindOther, sitemapclass.KindTaxonomies, sitemapclass.KindAuthors:
		default:
			if same(link, postURL) {
				return home{fromLink: true, self: true}
			}
			return home{canonical: link, fromLink: true}
		}
	}
	if len(res.Redirects) > 0 && res.FinalSite == res.Site {
		from, err1 := urlkey.Key(postURL)
		to, err2 := urlkey.Key(res.FinalURL)
		if _, variant := urlkey.Variants(from, to); err1 == nil && err2 == nil && from != to && (res.Moved || variant) {
			return home{canonical: res.FinalURL}
		}
	}
	return home{}
}

// same reports whether two URLs have one key.
func same(a, b string) bool {
	ka, err1 := urlkey.Key(a)
	kb, err2 := urlkey.Key(b)
	return err1 == nil && err2 == nil && ka == kb
}

// learnSpelling records, for like's host, the spelling that a URL the
// site itself gave shows: everything, when like is a canonical link
// (self: the site says how it spells its URLs); only how it differs from
// from, when like is where from was redirected.
func (c *Crawler) learnSpelling(ctx context.Context, from, like string, canonical bool) {
	a, err1 := urlkey.Key(from)
	b, err2 := urlkey.Key(like)
	if err1 != nil || err2 != nil {
		return
	}
	v, variant := urlkey.Variants(a, b)
	if !variant {
		return // another path: says nothing of how this host spells
	}
	if canonical {
		v = urlkey.Scheme | urlkey.WWW | urlkey.TrailingSlash
	}
	if v == 0 {
		return
	}
	n, err := c.Store.LearnSpelling(ctx, b, v)
	if err != nil {
		c.Log.Warn("spelling not recorded", "url", like, "err", err)
		c.progress.Load().failure(reasonNotRecorded, 1)
		return
	}
	if n > 0 {
		c.Log.Info("spelling learnt", "like", b, "shows", v.String(), "posts_respelled", n)
	}
}
