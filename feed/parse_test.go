package feed_test

import (
	"errors"
	"strings"
	"testing"

	"corpus.blog/corpusbot/feed"
)

func TestIsCommentFeedURL(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://wp.example/comments/feed/", true},
		{"https://wp.example/comments/feed", true},
		{"https://wp.example/blog/comments/feed/atom/", true},
		{"https://wp.example/?feed=comments-rss2", true},
		{"https://wp.example/?feed=comments-atom", true},
		{"https://wp.example/index.php?p=1&feed=COMMENTS-RSS2", true},
		{"https://example.blogspot.com/feeds/comments/default", true},
		{"https://example.blogspot.com/feeds/comments/default?alt=rss", true},
		{"https://example.blogspot.com/feeds/123456789/comments/default", true},
		{"https://WP.example/Comments/Feed/", true},
		{"https://wp.example/feed/", false},
		{"https://wp.example/?feed=rss2", false},
		{"https://example.blogspot.com/feeds/posts/default", false},
		{"https://wp.example/2026/01/post-about-comments/feed/", false},
		{"https://wp.example/category/comments/", false},
		{"https://wp.example/feeds/", false},
		{"https://wp.example/comments/feedback/", false},
		{"", false},
		{"http://[::1", false},
	}
	for _, tt := range tests {
		if got := feed.IsCommentFeedURL(tt.url); got != tt.want {
			t.Errorf("IsCommentFeedURL(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestNotFeedError(t *testing.T) {
	_, err := feed.Parse([]byte("<html></html>"), "")
	var nf *feed.NotFeedError
	if !errors.As(err, &nf) || nf.Reason != "an HTML page" || !errors.Is(err, feed.ErrNotFeed) {
		t.Fatalf("got %v", err)
	}
	if err.Error() != "not a feed: an HTML page" {
		t.Errorf("message %q", err.Error())
	}
}

func rssWithItems(n int) string {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>t</title>`)
	for i := range n {
		b.WriteString("<item><title>i</title><link>https://x.example/" + itoa(i) + "</link></item>")
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

func TestMaxEntries(t *testing.T) {
	body := []byte(rssWithItems(5))
	for _, tt := range []struct {
		max, want int
		truncated bool
	}{{2, 2, true}, {5, 5, false}, {6, 5, false}, {0, 5, false}} {
		f, err := feed.Options{MaxEntries: tt.max}.Parse(body, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) != tt.want || f.Truncated != tt.truncated {
			t.Errorf("MaxEntries %d: %d entries, truncated %v; want %d, %v", tt.max, len(f.Entries), f.Truncated, tt.want, tt.truncated)
		}
	}
	jsonBody := []byte(`{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1"},{"id":"2"},{"id":"3"}]}`)
	f, err := feed.Options{MaxEntries: 2}.Parse(jsonBody, "")
	if err != nil || len(f.Entries) != 2 || !f.Truncated {
		t.Errorf("JSON MaxEntries 2: %+v, %v", f, err)
	}
}

func TestMaxBytes(t *testing.T) {
	body := []byte(rssWithItems(100))
	f, err := feed.Options{MaxBytes: len(body) / 2}.Parse(body, "")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Truncated || len(f.Entries) == 0 || len(f.Entries) >= 100 {
		t.Errorf("half the bytes: %d entries, truncated %v", len(f.Entries), f.Truncated)
	}
	if _, err := (feed.Options{MaxBytes: 10}).Parse(body, ""); !errors.Is(err, feed.ErrNotFeed) {
		t.Errorf("10 bytes: %v, want not a feed (no root element read whole)", err)
	}
}

// One long xml:base must not be copied into every link.
func TestLongBaseIsNotMultiplied(t *testing.T) {
	long := "https://x.example/" + strings.Repeat("a", 2*feed.MaxURLLength) + "/"
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel xml:base="` + long + `"><title>t</title><link>home</link>`)
	for range 100 {
		b.WriteString("<item><link>p</link></item>")
	}
	b.WriteString("</channel></rss>")
	f, err := feed.Parse([]byte(b.String()), "https://feed.example/rss")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entries {
		if len(e.Link) > feed.MaxURLLength {
			t.Fatalf("link of %d bytes", len(e.Link))
		}
	}
	if f.Entries[0].Link != "https://feed.example/p" {
		t.Errorf("an over-long xml:base should be ignored, got %q", f.Entries[0].Link)
	}
}

func TestXHTMLContent(t *testing.T) {
	body := `<feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml">
	<div xmlns="http://www.w3.org/1999/xhtml"><p class="a">One &amp; <b>two</b><br/>three</p><img src="x.png"/></div>
	</content></entry></feed>`
	f, err := feed.Parse([]byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	want := `<p class="a">One &amp; <b>two</b><br>three</p><img src="x.png">`
	if got := f.Entries[0].Content; got != want {
		t.Errorf("content\n%s\nwant\n%s", got, want)
	}
}

func TestTextContentIsEscaped(t *testing.T) {
	body := `{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","content_text":"a < b & c"}]}`
	f, err := feed.Parse([]byte(body), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Entries[0].Content; got != "a &lt; b &amp; c" {
		t.Errorf("content %q", got)
	}
}

// The threshold is exact: 499 characters are an excerpt, 500 the post.
func TestFullContentThreshold(t *testing.T) {
	for _, tt := range []struct {
		body string
		want bool
	}{
		{"<p>" + strings.Repeat("x", 499) + "</p>", false},
		{"<p>" + strings.Repeat("x", 500) + "</p>", true},
		{"<p>" + strings.Repeat("é", 499) + "</p>", false},                                           // characters, not bytes
		{strings.Repeat("ab ", 166) + "ab", true},                                                    // 166*3+2 = 500
		{strings.Repeat("&#8212;", 500), true},                                                       // an entity is one character
		{"   " + strings.Repeat("x", 498) + "   ", false},                                            // leading and trailing space is not text
		{"<p>" + strings.Repeat("x", 250) + "</p>\n\n<p>" + strings.Repeat("y", 249) + "</p>", true}, // 250 + 1 + 249
	} {
		doc := `{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","content_html":` + jsonString(tt.body) + `}]}`
		f, err := feed.Parse([]byte(doc), "")
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Entries[0].FullContent; got != tt.want {
			t.Errorf("%.40q…: full %v, want %v", tt.body, got, tt.want)
		}
	}
}
