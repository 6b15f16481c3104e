package sitemap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corpus.blog/corpusbot/sitemap"
)

// classifyFixtures are sitemaps shaped like each generator's output, under
// testdata/classify/. url is where the file is served from: its name is what
// ClassifySitemap reads. want holds one kind per entry, in order: for an
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
			own := sitemap.ClassifySitemap(c.url)
			var got []string
			sum, err := sitemap.Read(strings.NewReader(string(body)), sitemap.Options{}, func(e sitemap.Entry) error {
				if e.Type == sitemap.Sitemap {
					got = append(got, sitemap.ClassifySitemap(e.Loc).Kind.String())
					return nil
				}
				class := sitemap.ClassifyEntry(e.Loc)
				word := class.Kind.String()
				if sitemap.WantsPage(own.Kind, class) {
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

// TestClassifySitemap covers names the fixtures do not, and the reasons.
func TestClassifySitemap(t *testing.T) {
	cases := []struct {
		loc  string
		want sitemap.Kind
	}{
		{"https://a.example/wp-sitemap-posts-post-1.xml.gz", sitemap.KindPosts},
		{"https://a.example/WP-Sitemap-Posts-Post-12.xml", sitemap.KindPosts},
		{"https://a.example/wp-sitemap-posts-my-type-1.xml", sitemap.KindUnknown},
		{"https://a.example/wp-sitemap-taxonomies-genre-3.xml", sitemap.KindTaxonomies},
		{"https://a.example/wp-sitemap-custom-1.xml", sitemap.KindUnknown},
		{"https://a.example/index.php?sitemap=posts&sitemap-subtype=post&paged=2", sitemap.KindPosts},
		{"https://a.example/?sitemap=taxonomies&sitemap-subtype=post_tag", sitemap.KindTaxonomies},
		{"https://a.example/post-sitemap10.xml", sitemap.KindPosts},
		{"https://a.example/sub/dir/post-sitemap.xml", sitemap.KindPosts},
		{"https://a.example/portfolio_category-sitemap.xml", sitemap.KindTaxonomies},
		{"https://a.example/attachment-sitemap.xml", sitemap.KindOther},
		{"https://a.example/podcast-sitemap.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap-posts-3.xml", sitemap.KindPosts},
		{"https://a.example/sitemap-post.xml", sitemap.KindPosts},
		{"https://a.example/sitemap-category.xml", sitemap.KindTaxonomies},
		{"https://a.example/sitemap-index.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap_index.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap.xml.gz", sitemap.KindUnknown},
		{"https://a.example/sitemaps.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap.txt", sitemap.KindUnknown},
		{"https://a.example/feed/", sitemap.KindUnknown},
		{"https://a.example/sitemap-pt-post-p1-2024-05.xml", sitemap.KindPosts},
		{"https://a.example/sitemap_products_2.xml?from=10&to=20", sitemap.KindOther},
		{"https://a.example/sitemap_blogs_1.xml", sitemap.KindPosts},
		{"https://a.example/SITEMAP-TAGS.XML", sitemap.KindTaxonomies},
		{"https://a.example/news-sitemap.xml", sitemap.KindPosts},
		{"https://a.example/sitemap-news.xml", sitemap.KindPosts},
		{"https://a.example/blog-tags-sitemap.xml", sitemap.KindTaxonomies},
		{"https://a.example/dynamic-blog-sitemap.xml", sitemap.KindUnknown},
		{"https://a.example/sitemap.xml?page=2", sitemap.KindUnknown},
		{"https://blogspot.com/sitemap.xml?page=2", sitemap.KindPosts},
		{"%zz", sitemap.KindUnknown},
	}
	for _, c := range cases {
		got := sitemap.ClassifySitemap(c.loc)
		if got.Kind != c.want {
			t.Errorf("ClassifySitemap(%q) = %v (%s), want %v", c.loc, got.Kind, got.Reason, c.want)
		}
		if got.Reason == "" {
			t.Errorf("ClassifySitemap(%q) gives no reason", c.loc)
		}
	}
}

// TestClassifyEntry is the table of entry shapes.
func TestClassifyEntry(t *testing.T) {
	cases := []struct {
		loc  string
		want sitemap.Kind
	}{
		// Term archives.
		{"https://a.example/tag/go/", sitemap.KindTaxonomies},
		{"https://a.example/tag/go/page/2/", sitemap.KindTaxonomies},
		{"https://a.example/category/news/", sitemap.KindTaxonomies},
		{"https://a.example/category/travel/asia/europe/", sitemap.KindTaxonomies},
		{"https://a.example/Category/News", sitemap.KindTaxonomies},
		{"https://a.example/tags/", sitemap.KindTaxonomies},
		{"https://a.example/fr/categories/voyage/", sitemap.KindTaxonomies},
		{"https://a.example/blog/tag/travel", sitemap.KindTaxonomies},
		{"https://a.example/blog/hashtags/summer", sitemap.KindTaxonomies},
		{"https://a.example/blogs/news/tagged/spring", sitemap.KindTaxonomies},
		{"https://a.example/tagged/photos", sitemap.KindTaxonomies},
		{"https://a.example/search/label/Recipes", sitemap.KindTaxonomies},
		{"https://a.example/blog?tag=travel", sitemap.KindTaxonomies},
		{"https://a.example/blog?category=food", sitemap.KindTaxonomies},
		{"https://a.example/?cat=3", sitemap.KindTaxonomies},
		{"https://a.example/?tag=go", sitemap.KindTaxonomies},

		// Authors.
		{"https://a.example/author/jane/", sitemap.KindAuthors},
		{"https://a.example/authors/jane-doe/", sitemap.KindAuthors},
		{"https://a.example/?author=2", sitemap.KindAuthors},
		{"https://a.example/blog?author=5f3a", sitemap.KindAuthors},
		{"https://medium.example/@jane", sitemap.KindAuthors},
		{"https://a.example/profile/jane/profile", sitemap.KindAuthors},

		// Not posts: the home page, listings, searches, feeds, archives.
		{"https://a.example/", sitemap.KindOther},
		{"https://a.example", sitemap.KindOther},
		{"https://a.example/?lang=fr", sitemap.KindOther},
		{"https://a.example/page/2/", sitemap.KindOther},
		{"https://a.example/blog/page/3", sitemap.KindOther},
		{"https://a.example/search", sitemap.KindOther},
		{"https://a.example/search?updated-max=2024-05-01T00:00:00Z", sitemap.KindOther},
		{"https://a.example/search/crawler/", sitemap.KindOther},
		{"https://a.example/?s=crawler", sitemap.KindOther},
		{"https://a.example/feed/", sitemap.KindOther},
		{"https://a.example/comments/feed/", sitemap.KindOther},
		{"https://a.example/index.xml", sitemap.KindOther},
		{"https://a.example/2024/", sitemap.KindOther},
		{"https://a.example/2024/05/", sitemap.KindOther},
		{"https://a.example/2024/05/03/", sitemap.KindOther},
		{"https://a.example/blog/2024/05/", sitemap.KindOther},
		{"https://a.example/?m=202405", sitemap.KindOther},
		{"https://a.example/?attachment_id=12", sitemap.KindOther},
		{"https://a.example/blog/", sitemap.KindOther},
		{"https://a.example/en/posts/", sitemap.KindOther},
		{"https://a.example/archive", sitemap.KindOther},
		{"https://a.example/blogs/news", sitemap.KindOther},

		// Pages.
		{"https://a.example/p/about.html", sitemap.KindPages},
		{"https://a.example/?page_id=7", sitemap.KindPages},

		// Posts.
		{"https://a.example/2024/05/03/hello-world/", sitemap.KindPosts},
		{"https://a.example/2024/05/hello.html", sitemap.KindPosts},
		{"https://a.example/2024/hello", sitemap.KindPosts},
		{"https://a.example/blog/2024/5/3/my-trip", sitemap.KindPosts},
		{"https://a.example/en/2024/05/03/hello/", sitemap.KindPosts},
		{"https://a.example/my-first-post/", sitemap.KindPosts},
		{"https://a.example/posts/my_first_post.html", sitemap.KindPosts},
		{"https://a.example/?p=42", sitemap.KindPosts},
		{"https://a.example/p/why-i-write", sitemap.KindPosts},
		{"https://a.example/post/my-first-post", sitemap.KindPosts},
		{"https://a.example/post/712345678901234567", sitemap.KindPosts},
		{"https://a.example/blogs/news/spring-notes", sitemap.KindPosts},
		{"https://a.example/café-au-lait/", sitemap.KindPosts},

		// A word of an archive inside a post's path or slug does not make
		// an archive.
		{"https://a.example/how-to-tag-photos/", sitemap.KindPosts},
		{"https://a.example/2024/05/03/tags-considered-harmful/", sitemap.KindPosts},
		{"https://a.example/notes/on/writing/category/theory/essay", sitemap.KindUnknown},
		{"https://a.example/docs/guides/howto/author/writing-well", sitemap.KindPosts},
		{"https://a.example/tag/a/b/c/d/e", sitemap.KindUnknown},
		{"https://a.example/author-interview-with-jane/", sitemap.KindPosts},
		{"https://a.example/medium/@jane/my-story-1a2b3c", sitemap.KindPosts},
		{"https://a.example/page/about-us", sitemap.KindPosts},

		// Nothing telling.
		{"https://a.example/about/", sitemap.KindUnknown},
		{"https://a.example/en/", sitemap.KindUnknown},
		{"https://a.example/12345", sitemap.KindUnknown},
		{"%zz", sitemap.KindUnknown},
	}
	for _, c := range cases {
		got := sitemap.ClassifyEntry(c.loc)
		if got.Kind != c.want {
			t.Errorf("ClassifyEntry(%q) = %v (%s), want %v", c.loc, got.Kind, got.Reason, c.want)
		}
		if got.Reason == "" {
			t.Errorf("ClassifyEntry(%q) gives no reason", c.loc)
		}
	}
}

func TestWantsPage(t *testing.T) {
	kinds := []sitemap.Kind{sitemap.KindUnknown, sitemap.KindPosts, sitemap.KindPages,
		sitemap.KindTaxonomies, sitemap.KindAuthors, sitemap.KindOther}
	want := map[sitemap.Kind]string{ // for entries of each kind, in the order of kinds
		sitemap.KindUnknown:    "yes yes no no no no",
		sitemap.KindPosts:      "yes yes yes yes yes no",
		sitemap.KindPages:      "no no no no no no",
		sitemap.KindTaxonomies: "no no no no no no",
		sitemap.KindAuthors:    "no no no no no no",
		sitemap.KindOther:      "no no no no no no",
	}
	for _, s := range kinds {
		var got []string
		for _, e := range kinds {
			if sitemap.WantsPage(s, sitemap.Class{Kind: e, Reason: "test"}) {
				got = append(got, "yes")
			} else {
				got = append(got, "no")
			}
		}
		if g := strings.Join(got, " "); g != want[s] {
			t.Errorf("WantsPage(%v, ·) = %s, want %s", s, g, want[s])
		}
	}
	for k, name := range map[sitemap.Kind]string{sitemap.KindUnknown: "unknown", sitemap.KindPosts: "posts",
		sitemap.KindPages: "pages", sitemap.KindTaxonomies: "taxonomies", sitemap.KindAuthors: "authors",
		sitemap.KindOther: "other", sitemap.Kind(99): "unknown"} {
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
		for _, c := range []sitemap.Class{sitemap.ClassifySitemap(loc), sitemap.ClassifyEntry(loc)} {
			if c.Reason == "" || c.Kind > sitemap.KindOther {
				t.Fatalf("%q: %+v", loc, c)
			}
		}
	})
}
