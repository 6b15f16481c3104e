package feed

import (
	"net/url"
	"strings"
)

// IsCommentFeedURL reports whether a URL is, by its path or query, a feed of
// comments rather than posts, so the crawler can refuse it before fetching:
// WordPress's /comments/feed/ and ?feed=comments-rss2 (or comments-atom),
// and Blogger's /feeds/comments/… and /feeds/POST_ID/comments/….
// The test is on the URL alone: WordPress's per-post comment feeds
// (/2024/01/slug/feed/) look like any other feed and are known only by their
// titles (see Discover and Feed.IsComments).
func IsCommentFeedURL(u string) bool {
	if u == "" {
		return false
	}
	parsed, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return false
	}
	path := strings.ToLower(parsed.Path)
	if strings.Contains(path+"/", "/comments/feed/") || strings.HasSuffix(path, "/comments/rss") || strings.HasSuffix(path, "/comments/atom") {
		return true
	}
	if i := strings.Index(path, "/feeds/"); i >= 0 {
		rest := strings.Split(strings.Trim(path[i+len("/feeds/"):], "/"), "/")
		// /feeds/comments/default, or /feeds/123456/comments/default
		if rest[0] == "comments" || (len(rest) > 1 && rest[1] == "comments") {
			return true
		}
	}
	for _, v := range parsed.Query()["feed"] {
		if strings.HasPrefix(strings.ToLower(v), "comments-") {
			return true
		}
	}
	return false
}

// isCommentTitle reports whether a feed's title (or the title of a link to
// it) names a comment feed: WordPress's "Comments on: Post" and
// "Comments for Site", and the "Site » Comments Feed" and "Site » Post
// Comments Feed" titles of its <link> tags, in English and the most common
// translations WordPress ships.
func isCommentTitle(title string) bool {
	t := strings.ToLower(strings.TrimSpace(title))
	if t == "" {
		return false
	}
	for _, p := range []string{"comments on:", "comments for "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	for _, s := range []string{
		"comments feed",           // en
		"kommentar-feed",          // de
		"flux des commentaires",   // fr
		"feed de los comentarios", // es
		"feed dei commenti",       // it
		"feed de comentários",     // pt
		"reacties feed",           // nl
		"reactiesfeed",            // nl
	} {
		if strings.HasSuffix(t, s) {
			return true
		}
	}
	return false
}
