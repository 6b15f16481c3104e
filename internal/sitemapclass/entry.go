package sitemapclass

import (
	"net/url"
	"strings"
)

// Entry shapes, from the URL schemes of the generators OfSitemap
// cites: WordPress (/category/x/, /tag/x/, /author/x/, /page/2/, /?s=,
// /type/aside/, date archives /2024/ and /2024/05/; without pretty
// permalinks ?p=, ?page_id=, ?cat=, ?tag=, ?author=, ?m=), Ghost (/tag/x/,
// /author/x/, /page/2/), Blogger (/search/label/X, /search?updated-max=,
// static pages /p/x.html, posts /2024/05/x.html), Hugo (/tags/x/,
// /categories/x/, /posts/page/2/, all under /en/ and the like when
// multilingual), Jekyll (/2024/05/03/x.html, jekyll-archives /tag/x/),
// Squarespace (/blog?tag=x, /blog?category=x, /blog/tag/x,
// /blog/category/x, posts /blog/2024/5/3/x), Wix (/post/x,
// /blog/categories/x, /blog/tags/x, /blog/hashtags/x, /blog/page/2,
// /profile/x/profile), Shopify (/blogs/news/x, /blogs/news/tagged/x),
// Tumblr (/post/123/x, /tagged/x), Substack (/p/x, /archive), Medium
// (/@name, /tag/x).

// taxonomyWords are path segments that start a term archive. "label" counts
// only under Blogger's /search.
var taxonomyWords = map[string]bool{
	"tag": true, "tags": true, "category": true, "categories": true,
	"tagged": true, "hashtags": true,
}

var authorWords = map[string]bool{"author": true, "authors": true}

// feedNames are last segments that name a feed.
var feedNames = map[string]bool{
	"feed": true, "rss": true, "atom": true, "rss.xml": true, "atom.xml": true,
	"feed.xml": true, "index.xml": true,
}

// sectionWords are the last segments of short paths that are listings of
// posts.
var sectionWords = map[string]bool{
	"blog": true, "posts": true, "articles": true, "archive": true, "archives": true,
}

// OfEntry classifies the page an entry URL names by its shape alone,
// for the entries of sitemaps whose name says nothing. Term archives
// (/tag/…, /category/…, /tags/…, ?tag=), author archives (/author/…), the
// home page, listings (/page/N, a blog's index, date archives), searches and
// feeds are recognised; a date or a hyphenated slug in the path says post;
// the rest is KindUnknown. A term or author word counts only within the
// first three segments and with at most three after it, so that a post
// whose slug merely holds the word is not taken for an archive.
func OfEntry(loc string) Class {
	u, err := url.Parse(loc)
	if err != nil {
		return Class{KindUnknown, "unparsable URL"}
	}
	var segs []string
	for seg := range strings.SplitSeq(strings.ToLower(u.Path), "/") {
		if seg != "" {
			segs = append(segs, seg)
		}
	}
	q := u.Query()

	// The query forms of WordPress without pretty permalinks.
	if len(segs) == 0 || len(segs) == 1 && segs[0] == "index.php" {
		switch {
		case isDigits(q.Get("p")):
			return Class{KindPosts, "WordPress post ?p=N"}
		case q.Get("page_id") != "":
			return Class{KindPages, "WordPress page ?page_id=N"}
		case q.Get("cat") != "" || q.Get("taxonomy") != "":
			return Class{KindTaxonomies, "WordPress term archive ?cat= or ?taxonomy="}
		case q.Get("s") != "":
			return Class{KindOther, "search ?s="}
		case q.Get("m") != "" || q.Get("paged") != "":
			return Class{KindOther, "WordPress archive ?m= or ?paged="}
		case q.Get("attachment_id") != "":
			return Class{KindOther, "WordPress attachment page"}
		}
	}
	// Term and author filters: WordPress ?tag= and ?author=, Squarespace
	// /blog?tag=, ?category=, ?author=.
	if q.Get("tag") != "" || q.Get("category") != "" {
		return Class{KindTaxonomies, "?tag= or ?category= filter"}
	}
	if q.Get("author") != "" {
		return Class{KindAuthors, "?author= filter"}
	}
	if len(segs) == 0 {
		return Class{KindOther, "the home page"}
	}

	for i := 0; i < len(segs) && i < 3; i++ {
		after := len(segs) - i - 1
		switch {
		case taxonomyWords[segs[i]] && after <= 3:
			return Class{KindTaxonomies, "/" + segs[i] + "/ archive"}
		case segs[i] == "label" && i > 0 && segs[i-1] == "search":
			return Class{KindTaxonomies, "Blogger label /search/label/"}
		case authorWords[segs[i]] && after <= 3:
			return Class{KindAuthors, "/" + segs[i] + "/ archive"}
		}
	}
	last := segs[len(segs)-1]
	switch {
	case len(segs) == 1 && strings.HasPrefix(segs[0], "@"):
		return Class{KindAuthors, "/@name profile"}
	case len(segs) == 3 && segs[0] == "profile" && segs[2] == "profile":
		return Class{KindAuthors, "Wix member profile"}
	case segs[0] == "search":
		return Class{KindOther, "search results"}
	case feedNames[last]:
		return Class{KindOther, "a feed"}
	case len(segs) <= 2 && sectionWords[last]:
		// /blog/, and /en/posts/ on a multilingual site.
		return Class{KindOther, "a section index"}
	}
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == "page" && isDigits(segs[i+1]) {
			return Class{KindOther, "a listing's /page/N"}
		}
	}
	if len(segs) >= 2 {
		switch {
		case segs[0] == "p" && len(segs) == 2 && (strings.HasSuffix(last, ".html") || strings.HasSuffix(last, ".htm")):
			return Class{KindPages, "Blogger static page /p/….html"}
		case segs[0] == "p" && len(segs) == 2:
			return Class{KindPosts, "Substack post /p/…"}
		case segs[0] == "post":
			return Class{KindPosts, "Wix or Tumblr post /post/…"}
		case segs[0] == "blogs" && len(segs) == 3:
			return Class{KindPosts, "Shopify article /blogs/…/…"}
		case segs[0] == "blogs" && len(segs) == 2:
			return Class{KindOther, "Shopify blog index"}
		}
	}
	// A year within the first three segments: a post when a word follows
	// it, a date archive when only numbers do.
	for i := 0; i < len(segs) && i < 3; i++ {
		if !isYear(segs[i]) {
			continue
		}
		for _, s := range segs[i+1:] {
			if !isDigits(s) {
				return Class{KindPosts, "date in path"}
			}
		}
		if len(segs)-i <= 3 {
			return Class{KindOther, "a date archive"}
		}
	}
	if looksLikeSlug(last) {
		return Class{KindPosts, "a slug"}
	}
	return Class{KindUnknown, "no telling shape"}
}

// isYear reports a four-digit year a blog can have been written in.
func isYear(s string) bool {
	return len(s) == 4 && isDigits(s) && s >= "1990" && s <= "2099"
}

func isDigits(s string) bool {
	return s != "" && isPageNumber(s)
}

// looksLikeSlug reports a last segment made of several words joined by
// hyphens or underscores, with or without an extension: my-first-post,
// my_first_post.html.
func looksLikeSlug(s string) bool {
	if i := strings.LastIndexByte(s, '.'); i > 0 {
		s = s[:i]
	}
	letters := false
	words := 1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' || c == '_':
			if i > 0 && i < len(s)-1 {
				words++
			}
		case 'a' <= c && c <= 'z' || c >= 0x80:
			letters = true
		}
	}
	return letters && words >= 2
}
