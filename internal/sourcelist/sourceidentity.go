package sourcelist

import (
	"fmt"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/urlkey"
)

// Source identity: the one rule that says whether two URLs name one
// source, for every way a source is added (the command line, a list read
// by Parse and compared by Dedup, the store's AddSource, which keys its
// table by it, and the migration that merged the duplicates stored before
// it).
//
// A source is a blog, named by its homepage. "One source per site whatever
// the spelling" means one source per homepage, however the homepage is
// spelt: two URLs are one source when their Identity is equal. Identity is
// the URL key (package urlkey: scheme and host lowercased, an
// internationalised host in its ASCII (punycode) form, no final "." on the
// host, the default port and the fragment dropped, percent-encoding and dot
// segments normalised, an empty path written "/") with, for a homepage
// below the root, its final "/" dropped: "https://a.example/blog" and
// "https://a.example/blog/" are one blog. The scheme is kept (http and
// https may be two sites, and only the site can say they are not), and so
// is "www.".
//
// A site (model.Site, the registrable domain) may host several blogs, at
// several paths (example.com/alice/, example.com/bob/) or on several hosts
// (the subdomains of a blog host the public suffix list does not name):
// each is its own source, and the site's politeness (one request at a time,
// one robots.txt per origin) binds them together all the same.
//
// A blog added by its feed's URL is one source with the blog added by its
// homepage: the feed's channel link names the homepage (FeedHome), and the
// crawl records the source under it, or merges it into the source that
// already has it.

// SourceURL is raw as a source is stored, or CheckURL's reason why it
// cannot be one: its URL key (urlkey.Key), so that the host is stored in
// lowercase ASCII whatever its spelling, and the URL the crawl fetches is
// the one that Identity was computed from. The trailing "/" of the path is
// kept as written: it is what the site is asked for.
func SourceURL(raw string) (string, error) {
	if err := CheckURL(raw); err != nil {
		return "", err
	}
	key, err := urlkey.Key(raw)
	if err != nil {
		return "", fmt.Errorf("invalid URL: %w", err) // CheckURL keyed it
	}
	return key, nil
}

// Identity is what every URL of one source has in common, as the rule
// above says: SourceURL without the final "/" of a path other than "/". It
// fails where CheckURL does.
func Identity(raw string) (string, error) {
	key, err := SourceURL(raw)
	if err != nil {
		return "", err
	}
	return identityOfKey(key), nil
}

// identityOfKey is Identity for a URL key.
func identityOfKey(key string) string {
	_, rest, _ := strings.Cut(key, "://")
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return key
	}
	path, query, hasQuery := strings.Cut(rest[slash:], "?")
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	out := key[:len(key)-len(rest)+slash] + path
	if hasQuery {
		out += "?" + query
	}
	return out
}

// FeedHome is the homepage of the blog whose feed is at feedURL, as the
// feed's channel link (RSS <link>, Atom <link rel="alternate">, JSON Feed
// home_page_url) names it, resolved against feedURL, in the form a source
// is stored (SourceURL). ok is false when the link names no homepage a
// source may have, or one on another site than the feed's (a feed hosted
// by a feed service, which names the blog elsewhere: the crawl keeps such a
// source under its feed's URL rather than take a stranger's word for
// another site's blog).
func FeedHome(feedURL, link string) (home string, ok bool) {
	link = strings.TrimSpace(link)
	if link == "" {
		return "", false
	}
	base, err := url.Parse(feedURL)
	if err != nil {
		return "", false
	}
	ref, err := url.Parse(link)
	if err != nil {
		return "", false
	}
	abs := base.ResolveReference(ref).String()
	home, err = SourceURL(abs)
	if err != nil || model.SiteOfURL(home) != model.SiteOfURL(feedURL) {
		return "", false
	}
	return home, true
}
