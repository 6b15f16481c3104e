package sitemapclass

import (
	"net/url"
	"strings"
)

// Kind says what the pages a sitemap lists, or the page an entry names, are,
// as far as the name the generator gave the sitemap or the shape of the
// entry's URL tells.
type Kind uint8

const (
	KindUnknown    Kind = iota // nothing telling: may be posts
	KindPosts                  // blog posts
	KindPages                  // static pages ("About", "Contact")
	KindTaxonomies             // category, tag and other term archives
	KindAuthors                // author archives
	KindOther                  // not posts: products, media, the home page, listings, feeds
)

func (k Kind) String() string {
	switch k {
	case KindPosts:
		return "posts"
	case KindPages:
		return "pages"
	case KindTaxonomies:
		return "taxonomies"
	case KindAuthors:
		return "authors"
	case KindOther:
		return "other"
	}
	return "unknown"
}

// Class is a Kind and the rule that gave it, for logs and exports.
type Class struct {
	Kind   Kind
	Reason string
}

// WantsPage is the rule for which entries are owed a page fetch, by the
// Kind of the sitemap that lists them (OfSitemap; a top-level sitemap
// named by robots.txt or found at /sitemap.xml is classified the same way)
// and the Class of the entry (OfEntry):
//   - a posts sitemap: every entry, except one whose shape says it is the
//     home page, a listing, a search, a feed or a date archive (Yoast and
//     Rank Math put the home page or the posts page first in
//     post-sitemap.xml; no post has such a URL);
//   - an unknown sitemap (most single-file sitemaps: Hugo, Jekyll,
//     Squarespace, Next.js, and indexes of numbered files): the entries
//     whose shape says post or says nothing; those that say taxonomy,
//     author, page or other are skipped;
//   - pages, taxonomies, authors and other sitemaps: none; their entries are
//     counted, not fetched.
//
// The rules lean one way on purpose: a post sitemap taken for something else
// loses posts, so only names the generators document are read as not-posts,
// and an entry shape is read as not-a-post only when no post has it.
func WantsPage(sitemap Kind, entry Class) bool {
	switch sitemap {
	case KindPosts:
		return entry.Kind != KindOther
	case KindUnknown:
		return entry.Kind == KindPosts || entry.Kind == KindUnknown
	}
	return false
}

// OfSitemap classifies a sitemap by its URL: a child of a sitemap
// index, or a top-level sitemap. Only the file name (and, for generators
// that use them, the query parameters) is read. Names no generator below
// uses, and generic ones (sitemap.xml, sitemap-1.xml, sitemap_index.xml),
// are KindUnknown.
func OfSitemap(loc string) Class {
	u, err := url.Parse(loc)
	if err != nil {
		return Class{KindUnknown, "unparsable URL"}
	}
	base := u.Path[strings.LastIndexByte(u.Path, '/')+1:]
	name := strings.ToLower(base)
	name = strings.TrimSuffix(name, ".gz")
	name = strings.TrimSuffix(name, ".xml")
	// RavanH's XML Sitemap & Google News splits by date after a dot:
	// sitemap-posttype-post.202405.xml.
	name, _, _ = strings.Cut(name, ".")
	q := u.Query()

	// WordPress core (5.5+), wp-includes/sitemaps: /wp-sitemap-{provider}-
	// {subtype}-{page}.xml with providers posts, taxonomies and users (no
	// subtype), or ?sitemap={provider}&sitemap-subtype={subtype}&paged={n}
	// without pretty permalinks.
	if provider := q.Get("sitemap"); provider != "" && (base == "" || strings.EqualFold(base, "index.php")) {
		return wordpressCore(strings.ToLower(provider), strings.ToLower(q.Get("sitemap-subtype")), "?sitemap="+provider)
	}
	if rest, ok := strings.CutPrefix(name, "wp-sitemap-"); ok {
		rest = trimPageNumber(rest, "-")
		provider, subtype, _ := strings.Cut(rest, "-")
		return wordpressCore(provider, subtype, base)
	}
	if name == "wp-sitemap" {
		return Class{KindUnknown, "WordPress core sitemap index"}
	}

	// Blogger: /sitemap.xml lists /sitemap.xml?page=N, the posts, 150 to a
	// page, and /sitemap-pages.xml the static pages. Drupal's simple_sitemap
	// pages its mixed sitemap with the same ?page=N, so the name says posts
	// only on Blogger's own domain; custom domains stay unknown, which still
	// feeds their posts.
	if name == "sitemap" && q.Get("page") != "" {
		host := strings.ToLower(u.Hostname())
		if host == "blogspot.com" || strings.HasSuffix(host, ".blogspot.com") {
			return Class{KindPosts, "Blogger posts sitemap (sitemap.xml?page=N)"}
		}
		return Class{KindUnknown, "sitemap.xml?page=N: Blogger posts or Drupal chunks"}
	}

	// Google XML Sitemaps (Arne Brachhold's sitemap-builder):
	// sitemap-pt-{post type}-{yyyy-mm}.xml, sitemap-tax-{taxonomy}.xml,
	// sitemap-misc.xml (home page), sitemap-archives.xml, sitemap-authors.xml,
	// sitemap-externals.xml.
	if rest, ok := strings.CutPrefix(name, "sitemap-pt-"); ok {
		postType, _, _ := strings.Cut(rest, "-")
		return postTypeClass(postType, "Google XML Sitemaps "+base)
	}
	if _, ok := strings.CutPrefix(name, "sitemap-tax-"); ok {
		return Class{KindTaxonomies, "Google XML Sitemaps taxonomy sitemap " + base}
	}
	// RavanH's XML Sitemap & Google News: sitemap-posttype-{type}[.date].xml,
	// sitemap-taxonomy-{taxonomy}.xml, sitemap-root.xml (home page),
	// sitemap-author.xml, sitemap-news.xml, sitemap-custom.xml.
	if rest, ok := strings.CutPrefix(name, "sitemap-posttype-"); ok {
		return postTypeClass(trimPageNumber(rest, "-"), "XML Sitemap & Google News "+base)
	}
	if _, ok := strings.CutPrefix(name, "sitemap-taxonomy-"); ok {
		return Class{KindTaxonomies, "XML Sitemap & Google News taxonomy sitemap " + base}
	}

	// Shopify: sitemap_{products,pages,collections,blogs}_{n}.xml (products
	// carry ?from=&to=), sitemap_metaobject_pages_{n}.xml and
	// sitemap_agentic_discovery.xml.
	if rest, ok := strings.CutPrefix(name, "sitemap_"); ok {
		if c, ok := shopifyClass(trimPageNumber(rest, "_"), base); ok {
			return c
		}
	}

	// Yoast SEO, Rank Math, All in One SEO, SEOPress and Wix name a child
	// {type}-sitemap{n}.xml: Yoast post-sitemap.xml, post-sitemap2.xml,
	// page-, category-, post_tag-, author-sitemap.xml and one per custom
	// post type or taxonomy (wordpress-seo, WPSEO_Post_Type_Sitemap_Provider
	// and WPSEO_Taxonomy_Sitemap_Provider); Rank Math the same with
	// post-sitemap1.xml when paged, plus news-, video- and local-sitemap.xml;
	// AIOSEO the same plus addl-sitemap.xml (pages added by hand); Wix
	// pages-, blog-posts-, blog-categories-, blog-tags-, store-products-,
	// booking-services-, event-pages- and dynamic-{collection}-sitemap.xml
	// (support.wix.com, "Understanding Your Site's Sitemap File"); Jetpack
	// image-sitemap-1.xml and video-sitemap-1.xml beside its sitemap-1.xml.
	if i := strings.LastIndex(name, "-sitemap"); i > 0 && isPageNumber(strings.TrimPrefix(name[i+len("-sitemap"):], "-")) {
		return typeNameClass(name[:i], base)
	}

	// Ghost (ghost/core/core/frontend/services/sitemap): /sitemap.xml lists
	// sitemap-{pages,posts,authors,tags}.xml, then -2, -3... past 50,000
	// entries; Blogger and Tumblr name their static pages sitemap-pages.xml;
	// many small plugins use sitemap-{type}.xml.
	if rest, ok := strings.CutPrefix(name, "sitemap-"); ok {
		rest = trimPageNumber(rest, "-")
		switch rest {
		case "":
			return Class{KindUnknown, "numbered sitemap " + base}
		case "index":
			return Class{KindUnknown, "sitemap index " + base}
		case "misc", "root":
			// Google XML Sitemaps' and XML Sitemap & Google News' home page.
			return Class{KindOther, "home page sitemap " + base}
		case "archives":
			return Class{KindOther, "date archives sitemap " + base}
		}
		return typeNameClass(rest, base)
	}

	return Class{KindUnknown, "no generator's name: " + base}
}

// wordpressCore classifies WordPress core's sitemaps by provider and subtype.
func wordpressCore(provider, subtype, written string) Class {
	switch provider {
	case "posts":
		return postTypeClass(subtype, "WordPress core "+written)
	case "taxonomies":
		return Class{KindTaxonomies, "WordPress core taxonomy sitemap " + written}
	case "users":
		return Class{KindAuthors, "WordPress core users sitemap " + written}
	}
	return Class{KindUnknown, "WordPress core sitemap of provider " + provider}
}

// postTypeClass classifies a sitemap of one WordPress post type. Only the
// built-in types and WooCommerce's products are known; any other custom post
// type (recipe, podcast, news, story...) may be the blog's posts and stays
// unknown.
func postTypeClass(postType, why string) Class {
	switch postType {
	case "post":
		return Class{KindPosts, why}
	case "page":
		return Class{KindPages, why}
	case "attachment", "product":
		return Class{KindOther, why}
	}
	return Class{KindUnknown, why + ": custom post type"}
}

// typeNames are the type words in {type}-sitemap.xml and sitemap-{type}.xml
// names, from the generators OfSitemap cites.
var typeNames = map[string]Kind{
	"post": KindPosts, "posts": KindPosts, "blog-posts": KindPosts,
	// News sitemaps (Yoast News SEO, Rank Math, Jetpack, XML Sitemap &
	// Google News) list recent articles.
	"news": KindPosts,

	"page": KindPages, "pages": KindPages,

	"category": KindTaxonomies, "categories": KindTaxonomies,
	"tag": KindTaxonomies, "tags": KindTaxonomies, "post_tag": KindTaxonomies,
	"post_format": KindTaxonomies, "product_cat": KindTaxonomies, "product_tag": KindTaxonomies,
	"blog-categories": KindTaxonomies, "blog-tags": KindTaxonomies,

	"author": KindAuthors, "authors": KindAuthors, "users": KindAuthors,

	"product": KindOther, "products": KindOther, "store-products": KindOther,
	"attachment": KindOther, "image": KindOther, "images": KindOther,
	"video": KindOther, "videos": KindOther, "local": KindOther, "web-story": KindOther,
	"booking-services": KindOther, "event-pages": KindOther,
}

// typeNameClass classifies a sitemap by the type word of its name. A
// WordPress taxonomy's name commonly ends in _cat, _tag or _category
// (product_cat, portfolio_category); those are read as taxonomies too.
func typeNameClass(typeName, base string) Class {
	if k, ok := typeNames[typeName]; ok {
		return Class{k, "named " + base}
	}
	for _, suffix := range []string{"_cat", "_tag", "_tags", "_category", "_categories"} {
		if strings.HasSuffix(typeName, suffix) && len(typeName) > len(suffix) {
			return Class{KindTaxonomies, "taxonomy name in " + base}
		}
	}
	return Class{KindUnknown, "type " + typeName + " in " + base}
}

// shopifyClass classifies Shopify's sitemap_{type}_{n}.xml.
func shopifyClass(typeName, base string) (Class, bool) {
	switch typeName {
	case "blogs":
		return Class{KindPosts, "Shopify blog articles " + base}, true
	case "pages":
		return Class{KindPages, "Shopify pages " + base}, true
	case "collections":
		return Class{KindTaxonomies, "Shopify collections " + base}, true
	case "products", "agentic_discovery":
		return Class{KindOther, "Shopify " + base}, true
	}
	return Class{}, false
}

// trimPageNumber drops a final sep+digits ("post-2" → "post"), or the whole
// of an all-digit string.
func trimPageNumber(s, sep string) string {
	if isPageNumber(s) {
		return ""
	}
	if i := strings.LastIndex(s, sep); i >= 0 && isPageNumber(s[i+len(sep):]) && s[i+len(sep):] != "" {
		return s[:i]
	}
	return s
}

// isPageNumber reports whether s is empty or all digits.
func isPageNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
