package urlkey_test

import (
	"net/url"
	"testing"

	"corpus.blog/corpusbot/internal/urlkey"
)

// benchURLs are URLs as feeds and sitemaps give them: most already clean,
// some with tracking parameters, escapes or a fragment.
var benchURLs = []string{
	"https://www.example.com/2024/05/03/a-post-about-crawling/",
	"https://blog.example.org/posts/why-i-write",
	"https://example.net/2023/11/notes.html",
	"https://www.example.com/2024/05/03/a-post-about-crawling/?utm_source=rss&utm_medium=rss&utm_campaign=a-post-about-crawling",
	"https://example.blogspot.com/2024/05/my-first-post.html",
	"https://example.com/caf%c3%a9/%7Euser/?p=12#comments",
	"https://example.substack.com/p/a-year-of-letters?r=abc&utm_campaign=post",
	"http://Example.COM:80/a/./b/../c",
}

var sinkKey string

// BenchmarkKey is the cost of one key, against what a caller would do
// without the package: url.Parse and String, which normalise only the scheme
// and host case and keep everything else.
func BenchmarkKey(b *testing.B) {
	b.Run("impl=urlkey", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			sinkKey, _ = urlkey.Key(benchURLs[i])
			if i++; i == len(benchURLs) {
				i = 0
			}
		}
	})
	b.Run("impl=net-url", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if u, err := url.Parse(benchURLs[i]); err == nil {
				sinkKey = u.String()
			}
			if i++; i == len(benchURLs) {
				i = 0
			}
		}
	})
}
