package sitemapclass_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/sitemapclass"
	"corpus.blog/corpusbot/sitemap"
)

// classifyFixtures are sitemaps shaped like each generator's output, under
// testdata/classify/. url is where the file is served from: its name is what
// OfSitemap reads. want holds one kind per entry, in order: for an
// index the kind of each child sitemap; for a urlset the kind of each entry,
// with a "+" when WantsPage owes it a page fetch inside this sitemap.
var classifyFixtures = []struct {
	file, url string
	want      string
}{
	{"wordpress-core/wp-sitemap.xml", "https://wp.example/wp-sitemap.xml",
		"posts posts pages other unknown taxonomies taxonomies taxonomies authors"},
	{"wordpress-core/plain-permalinks.xml", "https://wp.example/?sitemap=index",
		"posts pages taxonomies authors"},
	{"wordpress-core/wp-sitemap-posts-post-1.xml", "https://wp.example/wp-sitemap-posts-post-1.xml",
		"posts+ posts+ posts+"},
	{"wordpress-core/wp-sitemap-taxonomies-category-1.xml", "https://wp.example/wp-sitemap-taxonomies-category-1.xml",
		"taxonomies taxonomies taxonomies"},
	{"wordpress-core/wp-sitemap-users-1.xml", "https://wp.example/wp-sitemap-users-1.xml",
		"authors authors"},

	{"yoast/sitemap_index.xml", "https://yoast.example/sitemap_index.xml",
		"posts posts pages taxonomies taxonomies authors other taxonomies unknown"},
	{"yoast/post-sitemap.xml", "https://yoast.example/post-sitemap.xml",
		"other posts+ posts+ posts+"},
	{"yoast/post_tag-sitemap.xml", "https://yoast.example/post_tag-sitemap.xml",
		"taxonomies taxonomies"},

	{"rankmath/sitemap_index.xml", "https://rankmath.example/sitemap_index.xml",
		"posts posts pages taxonomies taxonomies authors posts other other other"},

	{"aioseo/sitemap.xml", "https://aioseo.example/sitemap.xml",
		"posts posts pages taxonomies taxonomies authors unknown"},

	{"blogger/blogspot-sitemap.xml", "https://example.blogspot.com/sitemap.xml",
		"posts posts posts"},
	{"blogger/custom-domain-sitemap.xml", "https://www.blogger-custom.example/sitemap.xml",
		"unknown unknown"},
	{"blogger/sitemap-page-1.xml", "https://example.blogspot.com/sitemap.xml?page=1",
		"posts+ posts+"},
	{"blogger/sitemap-page-1.xml", "https://www.blogger-custom.example/sitemap.xml?page=1",
		"posts+ posts+"},
	{"blogger/sitemap-pages.xml", "https://example.blogspot.com/sitemap-pages.xml",
		"pages pages"},

	{"ghost/sitemap.xml", "https://ghost.example/sitemap.xml",
		"pages posts posts authors taxonomies"},
	{"ghost/sitemap-pages.xml", "https://ghost.example/sitemap-pages.xml",
		"other unknown unknown"},
	{"ghost/sitemap-tags.xml", "https://ghost.example/sitemap-tags.xml",
		"taxonomies taxonomies"},
	{"ghost/sitemap-authors.xml", "https://ghost.example/sitemap-authors.xml",
		"authors authors"},

	{"hugo/sitemap.xml", "https://hugo.example/sitemap.xml",
		"unknown unknown"},
	{"hugo/en-sitemap.xml", "https://hugo.example/en/sitemap.xml",
		"unknown+ other posts+ other taxonomies taxonomies taxonomies taxonomies unknown+ unknown+"},

	{"jekyll/sitemap.xml", "https://jekyll.example/sitemap.xml",
		"other posts+ posts+ unknown+ taxonomies other"},

	{"squarespace/sitemap.xml", "https://www.squarespace.example/sitemap.xml",
		"other other posts+ posts+ taxonomies taxonomies taxonomies unknown+"},

	{"wix/sitemap.xml", "https://www.wix.example/sitemap.xml",
		"pages posts taxonomies taxonomies other other other unknown"},
	{"wix/blog-posts-sitemap.xml", "https://www.wix.example/blog-posts-sitemap.xml",
		"posts+ posts+"},
	{"wix/blog-categories-sitemap.xml", "https://www.wix.example/blog-categories-sitemap.xml",
		"other taxonomies taxonomies"},

	{"nextjs/sitemap.xml", "https://next.example/sitemap.xml",
		"unknown unknown"},
	{"nextjs/sitemap-0.xml", "https://next.example/sitemap-0.xml",
		"other other posts+ taxonomies unknown+"},

	{"shopify/sitemap.xml", "https://shop.example/sitemap.xml",
		"other pages taxonomies posts unknown"},
	// In a posts sitemap only the not-a-post shapes are skipped: a tag
	// shape there is trusted to be the generator's post.
	{"shopify/sitemap_blogs_1.xml", "https://shop.example/sitemap_blogs_1.xml",
		"other posts+ taxonomies+"},

	{"google-xml-sitemaps/sitemap.xml", "https://gxs.example/sitemap.xml",
		"other posts posts pages taxonomies taxonomies other authors unknown"},

	{"xml-sitemap-google-news/sitemap.xml", "https://xsgn.example/sitemap.xml",
		"other posts posts pages taxonomies authors posts unknown"},

	{"jetpack/sitemap.xml", "https://jetpack.example/sitemap.xml",
		"unknown other other posts"},

	{"tumblr/sitemap.xml", "https://example.tumblr.com/sitemap.xml",
		"unknown unknown pages"},
	{"tumblr/sitemap1.xml", "https://example.tumblr.com/sitemap1.xml",
		"posts+ posts+ taxonomies"},

	{"substack/sitemap.xml", "https://example.substack.com/sitemap.xml",
		"unknown unknown"},
	{"substack/sitemap-2024.xml", "https://example.substack.com/sitemap/2024",
		"posts+ posts+ other unknown+"},
}

func TestClassifyFixtures(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range classifyFixtures {
		seen[c.file] = true
		t.Run(c.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "classify", c.file))
			if err != nil {
				t.Fatal(err)
			}
			own := sitemapclass.OfSitemap(c.url)
			var got []string
			sum, err := sitemap.Read(strings.NewReader(string(body)), sitemap.Options{}, func(e sitemap.Entry) error {
				if e.Type == sitemap.Sitemap {
					got = append(got, sitemapclass.OfSitemap(e.Loc).Kind.String())
					return nil
				}
				class := sitemapclass.OfEntry(e.Loc)
				word := class.Kind.String()
				if sitemapclass.WantsPage(own.Kind, class) {
					word += "+"
				}
				got = append(got, word)
				return nil
			})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !sum.Whole() || sum.Skipped != 0 || sum.Entries() == 0 {
				t.Fatalf("fixture not read whole: %+v", sum)
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("%s (the sitemap is %v: %s)\ngot:  %s\nwant: %s", c.file, own.Kind, own.Reason, g, c.want)
			}
		})
	}
	// Every fixture is in the table.
	err := filepath.WalkDir(filepath.Join("testdata", "classify"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join("testdata", "classify"), path)
		if !seen[filepath.ToSlash(rel)] {
			t.Errorf("fixture %s is not in classifyFixtures", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOfSitemap covers names the fixtures do not, and the reasons.
func TestOfSitemap(t *testing.T) {
	cases := []struct {
		loc  string
		want sitemapclass.Kind
	}{
		{"https://a.example/wp-sitemap-posts-post-1.xml.gz", sitemapclass.KindPosts},
		{"https://a.example/WP-Sitemap-Posts-Post-12.xml", sitemapclass.KindPosts},
		{"https://a.example/wp-sitemap-posts-my-type-1.xml", sitemapclass.KindUnknown},
		{"https://a.example/wp-sitemap-taxonomies-genre-3.xml", sitemapclass.KindTaxonomies},
		{"https://a.example/wp-sitemap-custom-1.xml", sitemapclass.KindUnknown},
		{"https://a.example/index.php?sitemap=posts&sitemap-subtype=post&paged=2", sitemapclass.KindPosts},
		{"https://a.example/?sitemap=taxonomies&sitemap-subtype=post_tag", sitemapclass.KindTaxonomies},
		{"https://a.example/post-sitemap10.xml", sitemapclass.KindPosts},
		{"https://a.example/sub/dir/post-sitemap.xml", sitemapclass.KindPosts},
		{"https://a.example/portfolio_category-sitemap.xml", sitemapclass.KindTaxonomies},
		{"https://a.example/attachment-sitemap.xml", sitemapclass.KindOther},
		{"https://a.example/podcast-sitemap.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap-posts-3.xml", sitemapclass.KindPosts},
		{"https://a.example/sitemap-post.xml", sitemapclass.KindPosts},
		{"https://a.example/sitemap-category.xml", sitemapclass.KindTaxonomies},
		{"https://a.example/sitemap-index.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap_index.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap.xml.gz", sitemapclass.KindUnknown},
		{"https://a.example/sitemaps.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap.txt", sitemapclass.KindUnknown},
		{"https://a.example/feed/", sitemapclass.KindUnknown},
		{"https://a.example/sitemap-pt-post-p1-2024-05.xml", sitemapclass.KindPosts},
		{"https://a.example/sitemap_products_2.xml?from=10&to=20", sitemapclass.KindOther},
		{"https://a.example/sitemap_blogs_1.xml", sitemapclass.KindPosts},
		{"https://a.example/SITEMAP-TAGS.XML", sitemapclass.KindTaxonomies},
		{"https://a.example/news-sitemap.xml", sitemapclass.KindPosts},
		{"https://a.example/sitemap-news.xml", sitemapclass.KindPosts},
		{"https://a.example/blog-tags-sitemap.xml", sitemapclass.KindTaxonomies},
		{"https://a.example/dynamic-blog-sitemap.xml", sitemapclass.KindUnknown},
		{"https://a.example/sitemap.xml?page=2", sitemapclass.KindUnknown},
		{"https://blogspot.com/sitemap.xml?page=2", sitemapclass.KindPosts},
		{"%zz", sitemapclass.KindUnknown},
	}
	for _, c := range cases {
		got := sitemapclass.OfSitemap(c.loc)
		if got.Kind != c.want {
			t.Errorf("OfSitemap(%q) = %v (%s), want %v", c.loc, got.Kind, got.Reason, c.want)
		}
		if got.Reason == "" {
			t.Errorf("OfSitemap(%q) gives no reason", c.loc)
		}
	}
}

// TestOfEntry is the table of entry shapes.
func TestOfEntry(t *testing.T) {
	cases := []struct {
		loc  string
		want sitemapclass.Kind
	}{
		// Term archives.
		{"https://a.example/tag/go/", sitemapclass.KindTaxonomies},
		{"https://a.example/tag/go/page/2/", sitemapclass.KindTaxonomies},
		{"https://a.example/category/news/", sitemapclass.KindTaxonomies},
		{"https://a.example/category/travel/asia/europe/", sitemapclass.KindTaxonomies},
		{"https://a.example/Category/News", sitemapclass.KindTaxonomies},
		{"https://a.example/tags/", sitemapclass.KindTaxonomies},
		{"https://a.example/fr/categories/voyage/", sitemapclass.KindTaxonomies},
		{"https://a.example/blog/tag/travel", sitemapclass.KindTaxonomies},
		{"https://a.example/blog/hashtags/summer", sitemapclass.KindTaxonomies},
		{"https://a.example/blogs/news/tagged/spring", sitemapclass.KindTaxonomies},
		{"https://a.example/tagged/photos", sitemapclass.KindTaxonomies},
		{"https://a.example/search/label/Recipes", sitemapclass.KindTaxonomies},
		{"https://a.example/blog?tag=travel", sitemapclass.KindTaxonomies},
		{"https://a.example/blog?category=food", sitemapclass.KindTaxonomies},
		{"https://a.example/?cat=3", sitemapclass.KindTaxonomies},
		{"https://a.example/?tag=go", sitemapclass.KindTaxonomies},

		// Authors.
		{"https://a.example/author/jane/", sitemapclass.KindAuthors},
		{"https://a.example/authors/jane-doe/", sitemapclass.KindAuthors},
		{"https://a.example/?author=2", sitemapclass.KindAuthors},
		{"https://a.example/blog?author=5f3a", sitemapclass.KindAuthors},
		{"https://medium.example/@jane", sitemapclass.KindAuthors},
		{"https://a.example/profile/jane/profile", sitemapclass.KindAuthors},

		// Not posts: the home page, listings, searches, feeds, archives.
		{"https://a.example/", sitemapclass.KindOther},
		{"https://a.example", sitemapclass.KindOther},
		{"https://a.example/?lang=fr", sitemapclass.KindOther},
		{"https://a.example/page/2/", sitemapclass.KindOther},
		{"https://a.example/blog/page/3", sitemapclass.KindOther},
		{"https://a.example/search", sitemapclass.KindOther},
		{"https://a.example/search?updated-max=2024-05-01T00:00:00Z", sitemapclass.KindOther},
		{"https://a.example/search/crawler/", sitemapclass.KindOther},
		{"https://a.example/?s=crawler", sitemapclass.KindOther},
		{"https://a.example/feed/", sitemapclass.KindOther},
		{"https://a.example/comments/feed/", sitemapclass.KindOther},
		{"https://a.example/index.xml", sitemapclass.KindOther},
		{"https://a.example/2024/", sitemapclass.KindOther},
		{"https://a.example/2024/05/", sitemapclass.KindOther},
		{"https://a.example/2024/05/03/", sitemapclass.KindOther},
		{"https://a.example/blog/2024/05/", sitemapclass.KindOther},
		{"https://a.example/?m=202405", sitemapclass.KindOther},
		{"https://a.example/?attachment_id=12", sitemapclass.KindOther},
		{"https://a.example/blog/", sitemapclass.KindOther},
		{"https://a.example/en/posts/", sitemapclass.KindOther},
		{"https://a.example/archive", sitemapclass.KindOther},
		{"https://a.example/blogs/news", sitemapclass.KindOther},

		// Pages.
		{"https://a.example/p/about.html", sitemapclass.KindPages},
		{"https://a.example/?page_id=7", sitemapclass.KindPages},

		// Posts.
		{"https://a.example/2024/05/03/hello-world/", sitemapclass.KindPosts},
		{"https://a.example/2024/05/hello.html", sitemapclass.KindPosts},
		{"https://a.example/2024/hello", sitemapclass.KindPosts},
		{"https://a.example/blog/2024/5/3/my-trip", sitemapclass.KindPosts},
		{"https://a.example/en/2024/05/03/hello/", sitemapclass.KindPosts},
		{"https://a.example/my-first-post/", sitemapclass.KindPosts},
		{"https://a.example/posts/my_first_post.html", sitemapclass.KindPosts},
		{"https://a.example/?p=42", sitemapclass.KindPosts},
		{"https://a.example/p/why-i-write", sitemapclass.KindPosts},
		{"https://a.example/post/my-first-post", sitemapclass.KindPosts},
		{"https://a.example/post/712345678901234567", sitemapclass.KindPosts},
		{"https://a.example/blogs/news/spring-notes", sitemapclass.KindPosts},
		{"https://a.example/café-au-lait/", sitemapclass.KindPosts},

		// A word of an archive inside a post's path or slug does not make
		// an archive.
		{"https://a.example/how-to-tag-photos/", sitemapclass.KindPosts},
		{"https://a.example/2024/05/03/tags-considered-harmful/", sitemapclass.KindPosts},
		{"https://a.example/notes/on/writing/category/theory/essay", sitemapclass.KindUnknown},
		{"https://a.example/docs/guides/howto/author/writing-well", sitemapclass.KindPosts},
		{"https://a.example/tag/a/b/c/d/e", sitemapclass.KindUnknown},
		{"https://a.example/author-interview-with-jane/", sitemapclass.KindPosts},
		{"https://a.example/medium/@jane/my-story-1a2b3c", sitemapclass.KindPosts},
		{"https://a.example/page/about-us", sitemapclass.KindPosts},

		// Nothing telling.
		{"https://a.example/about/", sitemapclass.KindUnknown},
		{"https://a.example/en/", sitemapclass.KindUnknown},
		{"https://a.example/12345", sitemapclass.KindUnknown},
		{"%zz", sitemapclass.KindUnknown},
	}
	for _, c := range cases {
		got := sitemapclass.OfEntry(c.loc)
		if got.Kind != c.want {
			t.Errorf("OfEntry(%q) = %v (%s), want %v", c.loc, got.Kind, got.Reason, c.want)
		}
		if got.Reason == "" {
			t.Errorf("OfEntry(%q) gives no reason", c.loc)
		}
	}
}

func TestWantsPage(t *testing.T) {
	kinds := []sitemapclass.Kind{sitemapclass.KindUnknown, sitemapclass.KindPosts, sitemapclass.KindPages,
		sitemapclass.KindTaxonomies, sitemapclass.KindAuthors, sitemapclass.KindOther}
	want := map[sitemapclass.Kind]string{ // for entries of each kind, in the order of kinds
		sitemapclass.KindUnknown:    "yes yes no no no no",
		sitemapclass.KindPosts:      "yes yes yes yes yes no",
		sitemapclass.KindPages:      "no no no no no no",
		sitemapclass.KindTaxonomies: "no no no no no no",
		sitemapclass.KindAuthors:    "no no no no no no",
		sitemapclass.KindOther:      "no no no no no no",
	}
	for _, s := range kinds {
		var got []string
		for _, e := range kinds {
			if sitemapclass.WantsPage(s, sitemapclass.Class{Kind: e, Reason: "test"}) {
				got = append(got, "yes")
			} else {
				got = append(got, "no")
			}
		}
		if g := strings.Join(got, " "); g != want[s] {
			t.Errorf("WantsPage(%v, ·) = %s, want %s", s, g, want[s])
		}
	}
	for k, name := range map[sitemapclass.Kind]string{sitemapclass.KindUnknown: "unknown", sitemapclass.KindPosts: "posts",
		sitemapclass.KindPages: "pages", sitemapclass.KindTaxonomies: "taxonomies", sitemapclass.KindAuthors: "authors",
		sitemapclass.KindOther: "other", sitemapclass.Kind(99): "unknown"} {
		if k.String() != name {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), name)
		}
	}
}

// FuzzClassify checks that classifying any URL neither panics nor gives a
// class without a reason or of no known kind.
func FuzzClassify(f *testing.F) {
	for _, c := range classifyFixtures {
		f.Add(c.url)
	}
	f.Add("https://a.example/tag/go/page/2/?utm_source=x#y")
	f.Add("https://a.example/?sitemap=posts&sitemap-subtype=post&paged=1")
	f.Fuzz(func(t *testing.T, loc string) {
		for _, c := range []sitemapclass.Class{sitemapclass.OfSitemap(loc), sitemapclass.OfEntry(loc)} {
			if c.Reason == "" || c.Kind > sitemapclass.KindOther {
				t.Fatalf("%q: %+v", loc, c)
			}
		}
	})
}
