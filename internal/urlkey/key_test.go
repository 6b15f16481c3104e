package urlkey_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/urlkey"
	"corpus.blog/corpusbot/robots"
)

// keyCases are input URLs and the key each must get; want "" means Key must
// fail. Grouped by what they exercise.
var keyCases = []struct {
	in, want string
}{
	// Scheme and host case; http and https stay apart.
	{"HTTP://Example.COM/Post", "http://example.com/Post"},
	{"HtTpS://EXAMPLE.com/a", "https://example.com/a"},
	{"http://example.com/a", "http://example.com/a"},
	{"https://example.com/a", "https://example.com/a"},

	// www. and bare hosts stay apart.
	{"https://www.example.com/a", "https://www.example.com/a"},
	{"https://WWW.Example.com/a", "https://www.example.com/a"},

	// Trailing slashes stay apart; an empty path is "/".
	{"https://example.com/a/", "https://example.com/a/"},
	{"https://example.com", "https://example.com/"},
	{"https://example.com?p=1", "https://example.com/?p=1"},
	{"https://example.com#top", "https://example.com/"},

	// Case in paths and queries is kept.
	{"https://example.com/Blog/My-Post", "https://example.com/Blog/My-Post"},
	{"https://example.com/a?Q=Value", "https://example.com/a?Q=Value"},

	// Default ports dropped, others kept, leading zeros dropped.
	{"http://example.com:80/a", "http://example.com/a"},
	{"https://example.com:443/a", "https://example.com/a"},
	{"http://example.com:443/a", "http://example.com:443/a"},
	{"https://example.com:80/a", "https://example.com:80/a"},
	{"http://example.com:8080/a", "http://example.com:8080/a"},
	{"http://example.com:0080/a", "http://example.com/a"},
	{"http://example.com:/a", "http://example.com/a"},
	{"http://example.com:65536/a", ""},

	// Fragments dropped, whatever they hold.
	{"https://example.com/a#comments", "https://example.com/a"},
	{"https://example.com/a?x=1#frag?y=2", "https://example.com/a?x=1"},
	{"https://example.com/a#!/hashbang", "https://example.com/a"},
	{"https://example.com/a#", "https://example.com/a"},

	// Tracking parameters dropped, the others kept in their order.
	{"https://example.com/a?utm_source=rss&utm_medium=rss&utm_campaign=a", "https://example.com/a"},
	{"https://example.com/a?id=3&utm_source=x&lang=fr", "https://example.com/a?id=3&lang=fr"},
	{"https://example.com/a?utm_whatever=1&utm_id=2", "https://example.com/a"},
	{"https://example.com/a?UTM_Source=x", "https://example.com/a"},
	{"https://example.com/a?fbclid=IwAR0abc", "https://example.com/a"},
	{"https://example.com/a?gclid=x&dclid=y&msclkid=z&gbraid=1&wbraid=2", "https://example.com/a"},
	{"https://example.com/a?mc_cid=1&mc_eid=2", "https://example.com/a"},
	{"https://example.com/a?_ga=2.1&_gl=1*abc", "https://example.com/a"},
	{"https://example.com/a?igshid=MzRl&yclid=5", "https://example.com/a"},
	{"https://example.com/a?ref=producthunt", "https://example.com/a"},
	{"https://example.com/a?ref_src=twsrc%5Etfw", "https://example.com/a"},
	{"https://example.com/a?ref", "https://example.com/a"},
	{"https://example.com/a?mtm_campaign=x&pk_campaign=y", "https://example.com/a"},
	{"https://example.com/a?_hsenc=p2&_hsmi=1&mkt_tok=x", "https://example.com/a"},
	{"https://example.com/a?utm_source=rss&amp;utm_medium=rss", "https://example.com/a"},
	{"https://example.com/a?utm%5Fsource=x", "https://example.com/a"},
	{"https://example.com/a?utm_=1", "https://example.com/a?utm_=1"},
	{"https://example.com/a?referrer=x&reference=y", "https://example.com/a?referrer=x&reference=y"},
	{"https://example.com/a?source=rss&p=12&s=q", "https://example.com/a?source=rss&p=12&s=q"},
	{"https://example.com/a?amp", "https://example.com/a?amp"},
	{"https://example.com/a?x=1&fbclid=1#f", "https://example.com/a?x=1"},

	// Query order, repeats, empty parameters and empty queries.
	{"https://example.com/a?b=2&a=1", "https://example.com/a?b=2&a=1"},
	{"https://example.com/a?tag=x&tag=y&tag=x", "https://example.com/a?tag=x&tag=y&tag=x"},
	{"https://example.com/a?", "https://example.com/a"},
	{"https://example.com/a?&&", "https://example.com/a"},
	{"https://example.com/a?&x=1&&y=2&", "https://example.com/a?x=1&y=2"},
	{"https://example.com/a?x=", "https://example.com/a?x="},
	{"https://example.com/a?=1", "https://example.com/a?=1"},

	// Encoded query characters: reserved escapes stay, "+" and "%20" stay
	// as written.
	{"https://example.com/s?q=a+b", "https://example.com/s?q=a+b"},
	{"https://example.com/s?q=a%20b", "https://example.com/s?q=a%20b"},
	{"https://example.com/s?q=a%2bb", "https://example.com/s?q=a%2Bb"},
	{"https://example.com/s?q=a%26b%3Dc", "https://example.com/s?q=a%26b%3Dc"},
	{"https://example.com/s?q=%41%62%2D", "https://example.com/s?q=Ab-"},
	{"https://example.com/s?q=caf%c3%a9", "https://example.com/s?q=caf%C3%A9"},
	{"https://example.com/s?q=café", "https://example.com/s?q=caf%C3%A9"},
	{"https://example.com/s?q=a b", "https://example.com/s?q=a%20b"},
	{"https://example.com/s?q=100%", "https://example.com/s?q=100%25"},
	{"https://example.com/s?q=a/b?c", "https://example.com/s?q=a/b?c"},

	// Percent-encoding in paths, as robots.txt matching normalises it.
	{"https://example.com/%7euser/", "https://example.com/~user/"},
	{"https://example.com/%7Euser/", "https://example.com/~user/"},
	{"https://example.com/a%2fb", "https://example.com/a%2Fb"},
	{"https://example.com/a%2Fb", "https://example.com/a%2Fb"},
	{"https://example.com/a/b", "https://example.com/a/b"},
	{"https://example.com/caf%c3%a9", "https://example.com/caf%C3%A9"},
	{"https://example.com/café", "https://example.com/caf%C3%A9"},
	{"https://example.com/a b", "https://example.com/a%20b"},
	{"https://example.com/%41%42c", "https://example.com/ABc"},
	{"https://example.com/a*b$", "https://example.com/a*b$"},
	{"https://example.com/a%2Ab", "https://example.com/a%2Ab"},
	{"https://example.com/a:b@c;d=e,f!g'h(i)", "https://example.com/a:b@c;d=e,f!g'h(i)"},
	{"https://example.com/a{b}|c", "https://example.com/a%7Bb%7D%7Cc"},
	{"https://example.com/%zz", ""},

	// Dot segments.
	{"https://example.com/a/./b", "https://example.com/a/b"},
	{"https://example.com/a/b/../c", "https://example.com/a/c"},
	{"https://example.com/a/b/..", "https://example.com/a/"},
	{"https://example.com/a/.", "https://example.com/a/"},
	{"https://example.com/../../a", "https://example.com/a"},
	{"https://example.com/a/%2e%2E/b", "https://example.com/b"},
	{"https://example.com/a/.../b", "https://example.com/a/.../b"},
	{"https://example.com/a/.b/c..", "https://example.com/a/.b/c.."},
	{"https://example.com/a//b/../c", "https://example.com/a//c"},
	{"https://example.com/a/..?x=1", "https://example.com/?x=1"},

	// Internationalised hosts, to their ASCII form.
	{"https://Bücher.example/", "https://xn--bcher-kva.example/"},
	{"https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"},
	{"https://XN--BCHER-KVA.example/", "https://xn--bcher-kva.example/"},
	{"https://b%C3%BCcher.example/", "https://xn--bcher-kva.example/"},
	{"https://例え.テスト/記事", "https://xn--r8jz45g.xn--zckzah/%E8%A8%98%E4%BA%8B"},
	{"https://example.com./a", "https://example.com/a"},
	{"https://example.com../a", ""},
	{"https://a..example.com/a", ""},
	{"https://.example.com/a", ""},
	{"http://../", ""},
	{"https://my_blog.example.com/", "https://my_blog.example.com/"},

	// IP literals.
	{"http://127.0.0.1:8080/a", "http://127.0.0.1:8080/a"},
	{"http://[::1]/a", "http://[::1]/a"},
	{"http://[2001:DB8::1]:80/a", "http://[2001:db8::1]/a"},
	{"http://[2001:db8:0:0:0:0:0:1]/a", "http://[2001:db8:0:0:0:0:0:1]/a"},
	{"http://[::ffff:192.0.2.1]:8443/", "http://[::ffff:192.0.2.1]:8443/"},
	{"http://[fe80::1%25en0]/", ""},
	{"http://[1.2.3.4]/", ""},

	// User information dropped.
	{"https://user:secret@example.com/a", "https://example.com/a"},
	{"https://user@example.com/a", "https://example.com/a"},
	{"https://@example.com/a", "https://example.com/a"},

	// Spaces around the URL are trimmed.
	{"  https://example.com/a \n", "https://example.com/a"},

	// Not absolute http(s) with a host.
	{"", ""},
	{"/a/b", ""},
	{"example.com/a", ""},
	{"//example.com/a", ""},
	{"ftp://example.com/a", ""},
	{"mailto:me@example.com", ""},
	{"javascript:alert(1)", ""},
	{"http:example.com/a", ""},
	{"http:///a", ""},
	{"https://", ""},
	{"http://exa mple.com/", ""},
	{"http://a%25b.example/", ""},
	{"http://example.com/a\nb", ""},
}

func TestKey(t *testing.T) {
	if len(keyCases) < 60 {
		t.Fatalf("only %d cases", len(keyCases))
	}
	for _, c := range keyCases {
		got, err := urlkey.Key(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("Key(%q) = %q, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Key(%q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if again, err := urlkey.Key(got); err != nil || again != got {
			t.Errorf("Key(Key(%q)) = %q, %v; want %q", c.in, again, err, got)
		}
	}
}

// TestKeyFoldsTheIssueVariants checks the whole promise of the issue on one
// post: every spelling the issue names that Key must fold gives one key, and
// every one it must not fold gives another.
func TestKeyFoldsTheIssueVariants(t *testing.T) {
	same := []string{
		"https://blog.example/2024/05/post",
		"HTTPS://Blog.Example/2024/05/post",
		"https://blog.example:443/2024/05/post",
		"https://blog.example/2024/05/post#comments",
		"https://blog.example/2024/05/post?utm_source=rss&utm_medium=rss",
		"https://blog.example/2024/05/post?fbclid=IwAR1",
		"https://blog.example/2024/05/post?ref=news.example",
		"https://blog.example/2024/%30%35/post",
		"https://blog.example/2024/05/./drafts/../post",
		"https://reader@blog.example/2024/05/post",
	}
	apart := []string{
		"http://blog.example/2024/05/post",
		"https://www.blog.example/2024/05/post",
		"https://blog.example/2024/05/post/",
		"https://blog.example/2024/05/Post",
		"https://blog.example/2024/05/post?p=2",
		"https://blog.example/2024%2F05/post",
	}
	want, err := urlkey.Key(same[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range same {
		if got, err := urlkey.Key(u); err != nil || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", u, got, err, want)
		}
	}
	for _, u := range apart {
		if got, err := urlkey.Key(u); err != nil || got == want {
			t.Errorf("Key(%q) = %q, %v; want a key other than %q", u, got, err, want)
		}
	}
}

// TestKeyKeepsRobotsDecisions checks that normalising percent-encoding
// changes no robots.txt decision, on rules that tell escapes, wildcards and
// anchors apart.
func TestKeyKeepsRobotsDecisions(t *testing.T) {
	rules := robots.Parse([]byte("User-agent: *\n" +
		"Disallow: /private/\n" +
		"Disallow: /a%2Fb\n" +
		"Disallow: /*.pdf$\n" +
		"Disallow: /caf%C3%A9/secret\n" +
		"Disallow: /star*\n" +
		"Allow: /private/ok$\n"))
	policy := rules.For("corpusbot")
	for _, u := range []string{
		"https://example.com/private/x", "https://example.com/%70rivate/x",
		"https://example.com/a%2fb", "https://example.com/a/b",
		"https://example.com/doc.pdf", "https://example.com/doc.pdf?x=1",
		"https://example.com/café/secret", "https://example.com/star%2A",
		"https://example.com/private/ok", "https://example.com/private/ok#x",
		"https://example.com/a*b$", "https://example.com/star", "https://example.com/a%2Ab",
		"HTTPS://user@Example.com:443/%7Eprivate/", "https://example.com/~private/",
	} {
		k, err := urlkey.Key(u)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := policy.Decide(u).Allowed, policy.Decide(k).Allowed; a != b {
			t.Errorf("robots.txt allows %q: %v, its key %q: %v", u, a, k, b)
		}
	}
}

func TestKeyErrors(t *testing.T) {
	_, err := urlkey.Key("ftp://example.com/")
	if !errors.Is(err, urlkey.ErrNotHTTP) {
		t.Errorf("ftp: %v, want ErrNotHTTP", err)
	}
	_, err = urlkey.Key("http:///a")
	if !errors.Is(err, urlkey.ErrNotHTTP) {
		t.Errorf("hostless: %v, want ErrNotHTTP", err)
	}
	_, err = urlkey.Key("http://example.com:99999/")
	if err == nil || !strings.Contains(err.Error(), "port") {
		t.Errorf("port: %v", err)
	}
}

func TestIsTrackingParameter(t *testing.T) {
	for _, name := range []string{"utm_source", "UTM_MEDIUM", "utm_anything", "fbclid", "gclid", "dclid",
		"msclkid", "mc_cid", "mc_eid", "_ga", "_gl", "igshid", "yclid", "ref", "ref_src", "amp;utm_medium",
		"hsCtaTracking", "ck_subscriber_id", "srsltid"} {
		if !urlkey.IsTrackingParameter(name) {
			t.Errorf("%q is not tracking", name)
		}
	}
	for _, name := range []string{"", "utm", "utm_", "source", "id", "p", "page", "s", "q", "lang", "amp",
		"amp;", "amp;id", "reference", "referrer", "refs", "tag", "category", "replytocom", "v", "fbclid2",
		"_gax", strings.Repeat("u", 100)} {
		if urlkey.IsTrackingParameter(name) {
			t.Errorf("%q is tracking", name)
		}
	}
}

func TestCanonical(t *testing.T) {
	const page = "https://www.example.com/blog/2024/post/?utm_source=x#c"
	cases := []struct{ base, href, want string }{
		{page, "https://example.com/blog/2024/post", "https://example.com/blog/2024/post"},
		{page, "  https://www.example.com/blog/2024/post/\n", "https://www.example.com/blog/2024/post/"},
		{page, "https://www.exa\nmple.com/blog/\t2024/post/", "https://www.example.com/blog/2024/post/"},
		{page, "//example.com/p", "https://example.com/p"},
		{page, "/p?id=1&utm_campaign=x", "https://www.example.com/p?id=1"},
		{page, "other", "https://www.example.com/blog/2024/post/other"},
		{page, "../other/", "https://www.example.com/blog/2024/other/"},
		{page, "./", "https://www.example.com/blog/2024/post/"},
		{page, "../../../../../../x", "https://www.example.com/x"},
		{page, "?p=5", "https://www.example.com/blog/2024/post/?p=5"},
		{page, "#top", "https://www.example.com/blog/2024/post/"},
		{page, "HTTP://WWW.EXAMPLE.COM:80/blog/2024/post", "http://www.example.com/blog/2024/post"},
		{page, "a%2Fb", "https://www.example.com/blog/2024/post/a%2Fb"},
		{page, "caf%c3%a9", "https://www.example.com/blog/2024/post/caf%C3%A9"},
		{"https://example.com/a/b", "c", "https://example.com/a/c"},
		{"https://example.com", "c", "https://example.com/c"},
		{"https://example.com/a?x=1", "?y=2", "https://example.com/a?y=2"},
		{"https://other.example/a", "https://example.org/cross-site", "https://example.org/cross-site"},
		{page, "", ""},
		{page, "   ", ""},
		{page, "mailto:a@example.com", ""},
		{page, "ftp://example.com/", ""},
		{page, "javascript:void(0)", ""},
		{page, "http://", ""},
		{"/relative/base", "https://example.com/", ""},
		{"ftp://example.com/", "/a", ""},
	}
	for _, c := range cases {
		got, err := urlkey.Canonical(c.base, c.href)
		if c.want == "" {
			if err == nil {
				t.Errorf("Canonical(%q, %q) = %q, want an error", c.base, c.href, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Canonical(%q, %q) = %q, %v; want %q", c.base, c.href, got, err, c.want)
		}
	}
}

func TestVariants(t *testing.T) {
	cases := []struct {
		a, b string
		want urlkey.Variation
		ok   bool
	}{
		{"https://example.com/a", "https://example.com/a", 0, true},
		{"http://example.com/a", "https://example.com/a", urlkey.Scheme, true},
		{"https://example.com/a", "https://www.example.com/a", urlkey.WWW, true},
		{"https://example.com/a", "https://example.com/a/", urlkey.TrailingSlash, true},
		{"http://example.com/a", "https://www.example.com/a/", urlkey.Scheme | urlkey.WWW | urlkey.TrailingSlash, true},
		{"https://example.com/a/?x=1", "https://example.com/a?x=1", urlkey.TrailingSlash, true},
		{"https://example.com/", "https://www.example.com/", urlkey.WWW, true},
		{"http://example.com:8080/a", "https://example.com:8080/a", urlkey.Scheme, true},
		{"https://www.example.com:8080/a", "https://example.com:8080/a", urlkey.WWW, true},
		{"https://example.com/a", "https://example.com/b", 0, false},
		{"https://example.com/a", "https://blog.example.com/a", 0, false},
		{"https://example.com/a", "https://example.com/a?x=1", 0, false},
		{"https://example.com/a", "https://example.com/a//", 0, false},
		{"https://example.com/a", "https://example.com:8080/a", 0, false},
		{"https://www.com/a", "https://com/a", 0, false},
		{"https://example.com/A", "https://example.com/a", 0, false},
		{"not a key", "not a key", 0, true},
		{"not a key", "https://example.com/", 0, false},
	}
	for _, c := range cases {
		got, ok := urlkey.Variants(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("Variants(%q, %q) = %v, %v; want %v, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
		if back, okBack := urlkey.Variants(c.b, c.a); back != got || okBack != ok {
			t.Errorf("Variants is not symmetric on %q, %q", c.a, c.b)
		}
		if sameClass := urlkey.VariantClass(c.a) == urlkey.VariantClass(c.b); sameClass != c.ok {
			t.Errorf("VariantClass(%q) = %q, VariantClass(%q) = %q; same class %v, want %v",
				c.a, urlkey.VariantClass(c.a), c.b, urlkey.VariantClass(c.b), sameClass, c.ok)
		}
	}
	if got := (urlkey.Scheme | urlkey.TrailingSlash).String(); got != "scheme+trailing-slash" {
		t.Errorf("String() = %q", got)
	}
}

func TestRespell(t *testing.T) {
	const like = "https://www.example.com/feed/"
	all := urlkey.Scheme | urlkey.WWW | urlkey.TrailingSlash
	cases := []struct {
		key  string
		v    urlkey.Variation
		like string
		want string
	}{
		{"http://example.com/p1", urlkey.Scheme | urlkey.WWW, like, "https://www.example.com/p1"},
		{"http://example.com/p1", all, like, "https://www.example.com/p1/"},
		{"http://example.com/p1?x=1", all, like, "https://www.example.com/p1/?x=1"},
		{"http://example.com/file.html", all, like, "https://www.example.com/file.html"},
		{"http://example.com/", all, like, "https://www.example.com/"},
		{"http://example.com/p1", urlkey.Scheme, like, "https://example.com/p1"},
		{"https://www.example.com/p1/", all, "http://example.com/feed", "http://example.com/p1"},
		{"https://www.example.com/p1/", urlkey.TrailingSlash, "https://www.example.com/", "https://www.example.com/p1/"},
		{"http://example.com:8080/p1", urlkey.Scheme | urlkey.WWW, like, "http://example.com:8080/p1"},
		{"http://example.com:8080/p1", urlkey.Scheme, "https://example.com:8080/", "https://example.com:8080/p1"},
		{"http://blog.example.com/p1", all, like, "http://blog.example.com/p1/"},
		{"http://example.org/p1", urlkey.Scheme | urlkey.WWW, like, "http://example.org/p1"},
		{"not a key", all, like, "not a key"},
	}
	for _, c := range cases {
		if got := urlkey.Respell(c.key, c.v, c.like); got != c.want {
			t.Errorf("Respell(%q, %v, %q) = %q, want %q", c.key, c.v, c.like, got, c.want)
		}
	}
}

func Example() {
	for _, u := range []string{
		"HTTPS://WWW.Example.com:443/2024/05/a-post/?utm_source=rss&utm_medium=rss#comments",
		"https://www.example.com/2024/05/./a-post/?fbclid=IwAR0",
		"https://www.example.com/2024/05/a-post/?replytocom=12&ref=newsletter",
		"https://bücher.example/caf%c3%a9/%7Euser?q=a+b&q=c%2fd",
	} {
		key, err := urlkey.Key(u)
		fmt.Println(key, err)
	}
	canonical, _ := urlkey.Canonical("http://example.com/2024/05/a-post", "https://www.example.com/2024/05/a-post/")
	v, ok := urlkey.Variants("http://example.com/2024/05/a-post", canonical)
	fmt.Println(canonical, v, ok)
	// Output:
	// https://www.example.com/2024/05/a-post/ <nil>
	// https://www.example.com/2024/05/a-post/ <nil>
	// https://www.example.com/2024/05/a-post/?replytocom=12 <nil>
	// https://xn--bcher-kva.example/caf%C3%A9/~user?q=a+b&q=c%2Fd <nil>
	// https://www.example.com/2024/05/a-post/ scheme+www+trailing-slash true
}
