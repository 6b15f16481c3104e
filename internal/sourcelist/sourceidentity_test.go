package sourcelist

import (
	"strings"
	"testing"
)

// TestIdentity: every spelling of one homepage has one Identity, and is
// stored (SourceURL) with its host in lowercase ASCII; different blogs
// keep different identities.
func TestIdentity(t *testing.T) {
	for _, c := range []struct {
		name   string
		raws   []string // all one source
		stored string   // SourceURL of the first
		ident  string
	}{
		{"host case, missing slash", []string{"https://Example.com/", "https://example.com/", "https://EXAMPLE.COM", "HTTPS://example.com"},
			"https://example.com/", "https://example.com/"},
		{"default port", []string{"https://example.com:443/", "https://example.com/", "https://example.com:0443"},
			"https://example.com/", "https://example.com/"},
		{"http default port", []string{"http://example.com:80/blog", "http://example.com/blog"},
			"http://example.com/blog", "http://example.com/blog"},
		{"fragment", []string{"https://example.com/#top", "https://example.com/", "https://example.com#"},
			"https://example.com/", "https://example.com/"},
		{"final dot", []string{"https://example.com./", "https://example.com/"},
			"https://example.com/", "https://example.com/"},
		{"IDN, Unicode first", []string{"https://bücher.example/", "https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/", "https://BÜCHER.example", "https://XN--BCHER-KVA.example:443/#x"},
			"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"},
		{"IDN, punycode first", []string{"https://xn--bcher-kva.example/", "https://bücher.example/"},
			"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"},
		{"trailing slash below the root", []string{"https://example.com/blog/", "https://example.com/blog", "https://Example.com:443/blog/#latest"},
			"https://example.com/blog/", "https://example.com/blog"},
		{"dot segments and escapes", []string{"https://example.com/a/../blog/", "https://example.com/%62log"},
			"https://example.com/blog/", "https://example.com/blog"},
		{"tracking parameters", []string{"https://example.com/?utm_source=x", "https://example.com/"},
			"https://example.com/", "https://example.com/"},
		{"a query is kept", []string{"https://example.com/?blog=2", "https://example.com/?blog=2#c"},
			"https://example.com/?blog=2", "https://example.com/?blog=2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stored, err := SourceURL(c.raws[0])
			if err != nil || stored != c.stored {
				t.Errorf("SourceURL(%q) = %q, %v; want %q", c.raws[0], stored, err, c.stored)
			}
			for _, raw := range c.raws {
				got, err := Identity(raw)
				if err != nil || got != c.ident {
					t.Errorf("Identity(%q) = %q, %v; want %q", raw, got, err, c.ident)
				}
			}
		})
	}

	// Different sources: the scheme, "www.", another path, another port,
	// another subdomain (blogspot's are sites of their own).
	distinct := []string{
		"https://example.com/", "http://example.com/", "https://www.example.com/",
		"https://example.com/alice/", "https://example.com/bob", "https://example.com:8443/",
		"https://a.blogspot.com/", "https://b.blogspot.com/", "https://example.com/?blog=2",
	}
	seen := map[string]string{}
	for _, raw := range distinct {
		id, err := Identity(raw)
		if err != nil {
			t.Fatalf("Identity(%q): %v", raw, err)
		}
		if other, dup := seen[id]; dup {
			t.Errorf("Identity(%q) = Identity(%q) = %q, want them apart", raw, other, id)
		}
		seen[id] = raw
	}

	// Identity refuses what CheckURL refuses, without the password.
	for _, raw := range []string{"http://u:pw@example.com/", "ftp://example.com/", "http://exa mple.com/", "http://exa%mple.com/", "http://x.example:0/"} {
		if id, err := Identity(raw); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("Identity(%q) = %q, %v; want an error without the password", raw, id, err)
		}
	}
}

// TestFeedHome: a feed's channel link names its blog's homepage when it is
// on the feed's site; the homepage is then the source's Identity, as if it
// had been added by it.
func TestFeedHome(t *testing.T) {
	for _, c := range []struct {
		feed, link string
		want       string // "" for none
	}{
		{"https://blog.example/feed/", "https://blog.example/", "https://blog.example/"},
		{"https://blog.example/feed/", "https://Blog.Example", "https://blog.example/"},
		{"https://blog.example/feed/", "/", "https://blog.example/"},
		{"https://blog.example/blog/feed.xml", "./", "https://blog.example/blog/"},
		{"https://www.blog.example/feed", "https://blog.example/", "https://blog.example/"}, // one site
		{"https://xn--bcher-kva.example/feed", "https://bücher.example/", "https://xn--bcher-kva.example/"},
		{"https://alice.blogspot.com/feeds/posts/default", "https://alice.blogspot.com/", "https://alice.blogspot.com/"},
		{"https://alice.blogspot.com/feeds/posts/default", "https://bob.blogspot.com/", ""}, // another site
		{"https://feeds.feedservice.example/blog", "https://blog.example/", ""},
		{"https://blog.example/feed/", "", ""},
		{"https://blog.example/feed/", "mailto:me@blog.example", ""},
		{"https://blog.example/feed/", "https://u:pw@blog.example/", ""},
	} {
		got, ok := FeedHome(c.feed, c.link)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("FeedHome(%q, %q) = %q, %v; want %q", c.feed, c.link, got, ok, c.want)
		}
	}
	// The feed URL and the homepage it names, each added, are one source
	// once the homepage is known.
	home, _ := FeedHome("https://blog.example/feed/", "https://blog.example")
	a, _ := Identity(home)
	b, _ := Identity("https://BLOG.example:443/#about")
	if a != b {
		t.Errorf("feed's home %q and homepage %q: identities %q and %q", home, "https://BLOG.example:443/#about", a, b)
	}
}

// Dedup keys entries by Identity: the spellings of one homepage in one
// file are one source.
func TestDedupByIdentity(t *testing.T) {
	in := strings.Join([]string{
		"https://bücher.example/",
		"https://xn--bcher-kva.example",
		"https://Example.com/",
		"https://example.com:443/#x",
		"https://example.com/blog/",
		"https://example.com/blog",
		"http://example.com/",
	}, "\n")
	entries, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	unique, repeats := Dedup(entries)
	if len(unique) != 4 || len(repeats) != 3 {
		t.Fatalf("unique %d, repeats %d; want 4 and 3: %+v", len(unique), len(repeats), repeats)
	}
	for i, first := range []int{1, 3, 5} {
		if repeats[i].FirstLine != first {
			t.Errorf("repeat %d (line %d) first on line %d, want %d", i, repeats[i].Line, repeats[i].FirstLine, first)
		}
	}
}
