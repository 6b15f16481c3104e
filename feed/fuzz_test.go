package feed_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"corpus.blog/corpusbot/feed"
)

func addSeeds(f *testing.F, pattern string) {
	names, _ := filepath.Glob(pattern)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "https://blog.example/feed/")
	}
}

// FuzzParse holds, over arbitrary bytes: no panic; a failure is always a
// *NotFeedError; what comes back is bounded by the input and the limits; and
// only the first MaxBytes of a document are ever read.
func FuzzParse(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "*.xml"))
	addSeeds(f, filepath.Join("testdata", "*.json"))
	f.Add([]byte(`<rss><channel xml:base="a/"><item xml:base="../b/"><link>c</link></item></channel></rss>`), "")
	f.Add([]byte("\xfe\xff\x00<\x00r\x00s\x00s\x00>"), "http://x/")
	f.Add([]byte("\x00\x00\x00<\x00\x00\x00r\x00\x00\x00s\x00\x00\x00s\x00\x00\x00>"), "http://x/")
	f.Add([]byte("\xff\xfe\x00\x00<\x00\x00\x00r\x00\x00\x00s\x00\x00\x00s\x00\x00\x00>\x00\x00\x00"), "http://x/")
	f.Fuzz(func(t *testing.T, body []byte, feedURL string) {
		const maxEntries = 64
		opts := feed.Options{MaxEntries: maxEntries}
		got, err := opts.Parse(body, feedURL)
		if err != nil {
			var nf *feed.NotFeedError
			if !errors.As(err, &nf) || got != nil {
				t.Fatalf("error %v (%T) with feed %v", err, err, got)
			}
			return
		}
		switch got.Format {
		case "rss", "atom", "json":
		default:
			t.Fatalf("format %q", got.Format)
		}
		if len(got.Entries) > maxEntries {
			t.Fatalf("%d entries, limit %d", len(got.Entries), maxEntries)
		}
		// Text can grow by transcoding (a windows-1252 byte becomes up to
		// three) and escaping (a CDATA "<" becomes "&lt;"), and each link
		// may carry a whole base; nothing else may add to the size.
		budget := 16*len(body) + 16*len(feedURL) + (len(got.Entries)+1)*6*feed.MaxURLLength + 1024
		size := len(got.Title) + len(got.Link) + len(got.Self) + len(got.Next) + len(got.Hub)
		for _, u := range []string{got.Link, got.Self, got.Next, got.Hub} {
			checkURL(t, u)
		}
		for _, e := range got.Entries {
			checkURL(t, e.Link)
			checkUTC(t, e.Published)
			checkUTC(t, e.Updated)
			if e.FullContent && e.Content == "" {
				t.Fatalf("full content without a body: %+v", e)
			}
			size += len(e.ID) + len(e.Link) + len(e.Title) + len(e.Content)
		}
		if size > budget {
			t.Fatalf("%d bytes out of %d in", size, len(body))
		}

		// The cap: with MaxBytes n, nothing past byte n makes a difference.
		const n = 256
		if len(body) > n {
			capped := feed.Options{MaxBytes: n, MaxEntries: maxEntries}
			a, errA := capped.Parse(body, feedURL)
			b, errB := capped.Parse(body[:n], feedURL)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("cap: %v vs %v", errA, errB)
			}
			if errA == nil {
				b.Truncated = true
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("bytes past MaxBytes changed the result:\n%+v\n%+v", a, b)
				}
			}
		}
	})
}

func checkURL(t *testing.T, u string) {
	t.Helper()
	if len(u) > feed.MaxURLLength {
		t.Fatalf("a URL of %d bytes", len(u))
	}
}

func checkUTC(t *testing.T, tm time.Time) {
	t.Helper()
	if !tm.IsZero() && tm.Location() != time.UTC {
		t.Fatalf("date %v not in UTC", tm)
	}
}

// FuzzDiscover holds: no panic, a bounded list of distinct, bounded URLs
// with no comment feeds, and nothing past MaxDiscoverBytes read.
func FuzzDiscover(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "discover", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "https://blog.example/")
	}
	f.Add([]byte(`<base href="//x/"><link rel="ALTERNATE feed" type="application/json" title="My Feed" href="a">`), "")
	f.Fuzz(func(t *testing.T, page []byte, pageURL string) {
		links := feed.Discover(page, pageURL)
		if len(links) > 64 {
			t.Fatalf("%d links", len(links))
		}
		seen := map[string]bool{}
		for _, l := range links {
			checkURL(t, l.URL)
			if l.URL == "" || seen[l.URL] || feed.IsCommentFeedURL(l.URL) {
				t.Fatalf("link %+v (seen %v)", l, seen[l.URL])
			}
			seen[l.URL] = true
		}
		if len(page) > feed.MaxDiscoverBytes {
			if again := feed.Discover(page[:feed.MaxDiscoverBytes], pageURL); !reflect.DeepEqual(links, again) {
				t.Fatalf("bytes past MaxDiscoverBytes changed the result")
			}
		}
	})
}
