package farm

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var updateServed = flag.Bool("update-served", false, "rewrite testdata/served.sha256 from what the farm serves now")

// servedGolden holds, per configuration, a hash of every document a sample
// of sites serves: what the farm serves is part of every benchmark's
// figures, so making it cheaper to generate must not change a byte of it.
const servedGolden = "testdata/served.sha256"

// TestServedDocumentsUnchanged serves every document of a sample of sites
// (robots.txt, the homepage, every feed page, the sitemaps, every post's
// page), at both sizes, over http and https, on day 1 and day 3, and
// compares a hash of their status, headers and bodies (and those of the
// conditional requests their validators make) with the one
// recorded (go test -run TestServedDocumentsUnchanged -update-served to
// record a deliberate change).
func TestServedDocumentsUnchanged(t *testing.T) {
	want := readServedGolden(t)
	got := map[string]string{}
	var names []string
	for _, sizes := range []Sizes{SizesSmall, SizesReal} {
		for _, https := range []bool{false, true} {
			for _, day := range []int{1, 3} {
				name := fmt.Sprintf("sizes=%d https=%v day=%d", sizes, https, day)
				names = append(names, name)
				got[name] = servedHash(sizes, https, day)
			}
		}
	}
	if *updateServed {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s\t%s\n", n, got[n])
		}
		if err := os.WriteFile(servedGolden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, n := range names {
		if got[n] != want[n] {
			t.Errorf("%s: served documents hash %s, recorded %s", n, got[n], want[n])
		}
	}
}

// servedHash hashes everything 24 sites serve on day under the given sizes
// and scheme.
func servedHash(sizes Sizes, https bool, day int) string {
	f := New(Config{Now: newClock(day1.Add(time.Duration(day-1)*24*time.Hour + time.Hour)).now, Start: day1, Sizes: sizes, HTTPS: https, MinPosts: 3, MaxPosts: 25})
	h := sha256.New()
	for i := range 24 {
		s := f.Site(host(i), day)
		paths := []string{"/robots.txt", "/", "/sitemap.xml", "/sitemap_index.xml", "/no-such-page/"}
		if s.Shape.Feed != FeedNone {
			for n := 1; n <= s.FeedPages(); n++ {
				paths = append(paths, strings.TrimPrefix(s.feedPageURL(n), s.URL("")))
			}
		}
		years, _ := s.years()
		for _, y := range years {
			paths = append(paths, yearPath(y))
		}
		for n := 1; n <= s.Posts; n++ {
			paths = append(paths, s.Post(n).Path)
		}
		for _, p := range paths {
			a := get(f, s.URL(p))
			hashAnswer(h, p, a)
			if etag := a.header.Get("ETag"); etag != "" {
				// The conditional request a second day sends: a 304's
				// headers are served too.
				hashAnswer(h, p+" If-None-Match", get(f, s.URL(p), "If-None-Match", etag))
				hashAnswer(h, p+" If-Modified-Since", get(f, s.URL(p), "If-Modified-Since", a.header.Get("Last-Modified")))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashAnswer writes a's status, every header in name order and its body
// to h.
func hashAnswer(h io.Writer, p string, a answer) {
	fmt.Fprintf(h, "%s %d %d\n", p, a.status, len(a.body))
	for _, k := range slices.Sorted(maps.Keys(a.header)) {
		fmt.Fprintf(h, "%s: %q\n", k, a.header[k])
	}
	h.Write(a.body)
}

func readServedGolden(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(filepath.FromSlash(servedGolden))
	if err != nil {
		if *updateServed {
			return out
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, sum, ok := strings.Cut(sc.Text(), "\t"); ok {
			out[name] = sum
		}
	}
	return out
}
