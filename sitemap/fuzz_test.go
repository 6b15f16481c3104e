package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// addSeeds adds every fixture, and a few documents that poke at the limits.
func addSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*")
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		if body, err := os.ReadFile(p); err == nil {
			f.Add(body)
		}
	}
	for _, s := range []string{
		`<urlset><url><loc>https://a.example/</loc></url><url><loc>https://b.example/</loc></url><url><loc>https://c.example/</loc></url></urlset>`,
		`<urlset><url><loc>https://a.example/&#x10FFFF;&#55296;&amp</loc><lastmod>2026-01-01T00:00:00.5Z</lastmod></url></urlset>`,
		`<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://a.example/s.xml</sm:loc></sm:sitemap></sm:sitemapindex>`,
		"https://a.example/\nhttps://b.example/\n",
		`<rss><channel><item><link>https://a.example/</link><pubDate>Mon, 02 Jan 2006 15:04:05 MST</pubDate></item></channel></rss>`,
		`<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://a.example/x/"><entry><link href="../y"/></entry></feed>`,
	} {
		f.Add([]byte(s))
	}
}

// fuzzOpts are small limits, so that the fuzzer reaches them.
var fuzzOpts = Options{MaxEntries: 2, MaxBytes: 1 << 20, Base: &url.URL{Scheme: "https", Host: "base.example", Path: "/feed"}}

// FuzzRead holds Read's promises over arbitrary bytes: it never panics;
// never gives more entries or reads more bytes than the limits allow; gives
// nothing when it says the document is not a sitemap; gives only absolute
// http(s) URLs that net/url accepts, in valid UTF-8, with UTC dates; counts
// what it gave; reads alike however the bytes arrive (a byte at a time, in
// halves, with EOF alongside the last bytes) and whether or not they are
// gzipped; and allocates in proportion to what it read.
func FuzzRead(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		before := allocated()
		got, sum, err := collect(bytes.NewReader(body), fuzzOpts)
		if used := allocated() - before; used > 8<<20+128*uint64(sum.Bytes+int64(len(body))) {
			t.Fatalf("allocated %d bytes reading %d (%d bytes of document)", used, len(body), sum.Bytes)
		}
		var ns *NotSitemapError
		if errors.As(err, &ns) {
			if len(got) > 0 {
				t.Fatalf("not a sitemap (%v), yet %d entries given", err, len(got))
			}
			if ns.Reason == "" {
				t.Fatal("no reason given")
			}
		} else if err != nil {
			t.Fatalf("an error from a bytes.Reader: %v", err)
		}
		if len(got) > fuzzOpts.MaxEntries || sum.Bytes > fuzzOpts.MaxBytes {
			t.Fatalf("%d entries and %d bytes read past the limits", len(got), sum.Bytes)
		}
		if sum.Entries() != len(got) || (sum.Truncated || sum.Broken) != (sum.Reason != "") {
			t.Fatalf("summary %+v for %d entries", sum, len(got))
		}
		for _, e := range got {
			u, perr := url.Parse(e.Loc)
			if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" ||
				!utf8.ValidString(e.Loc) || strings.ContainsAny(e.Loc, " \t\r\n") {
				t.Fatalf("entry %q is not a fetchable URL (%v)", e.Loc, perr)
			}
			if e.Type != URL && e.Type != Sitemap {
				t.Fatalf("entry type %d", e.Type)
			}
			if !e.Lastmod.IsZero() && e.Lastmod.Location().String() != "UTC" {
				t.Fatalf("lastmod %v not in UTC", e.Lastmod)
			}
		}
		// The same bytes a byte at a time, and gzipped, read the same.
		slow, slowSum, slowErr := collect(iotest.OneByteReader(bytes.NewReader(body)), fuzzOpts)
		same(t, "one byte at a time", got, sum, err, slow, slowSum, slowErr)
		last, lastSum, lastErr := collect(iotest.DataErrReader(iotest.HalfReader(bytes.NewReader(body))), fuzzOpts)
		same(t, "in halves, EOF with the last bytes", got, sum, err, last, lastSum, lastErr)
		if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) || len(body) > 1<<16 {
			return // gzip inside gzip is not undone twice
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(body)
		zw.Close()
		zipped, zipSum, zipErr := collect(&gz, fuzzOpts)
		zipSum.Gzip = false
		if len(body) == 0 {
			return // an empty gzip stream is not an empty body
		}
		same(t, "gzipped", got, sum, err, zipped, zipSum, zipErr)
	})
}

func collect(r interface{ Read([]byte) (int, error) }, opts Options) ([]Entry, Summary, error) {
	var got []Entry
	sum, err := Read(r, opts, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	return got, sum, err
}

func same(t *testing.T, how string, a []Entry, as Summary, aerr error, b []Entry, bs Summary, berr error) {
	t.Helper()
	as.Bytes, bs.Bytes = 0, 0 // it counts read-ahead, which depends on the chunks
	if !sameEntries(a, b) || as != bs || (aerr == nil) != (berr == nil) || aerr != nil && aerr.Error() != berr.Error() {
		t.Fatalf("read %s differs:\n%v %+v %v\n%v %+v %v", how, a, as, aerr, b, bs, berr)
	}
}

// allocated is the bytes this process has allocated so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// FuzzAgainstEncodingXML holds the hand-written decoder to encoding/xml: on
// every document encoding/xml reads whole, Read gives the same entries.
func FuzzAgainstEncodingXML(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) { differ(t, body) })
}

// FuzzQuickLoc holds the fast path of validLoc to url.Parse: what it accepts,
// url.Parse accepts as an absolute http(s) URL with a host.
func FuzzQuickLoc(f *testing.F) {
	for _, s := range []string{"https://a.example/b?c=d#e", "http://x:80", "HTTP://X/%41", "https://a..b/-", "https://a/%zz", "http://a:b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := quickLoc([]byte(s))
		if v == locUnsure {
			return
		}
		u, err := url.Parse(s)
		ok := err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != ""
		if v == locGood && !ok {
			t.Fatalf("quickLoc accepts %q, url.Parse: %v %+v", s, err, u)
		}
		if v == locBad && ok && !strings.ContainsAny(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f \x7f") {
			// Only the scheme may rightly make it refuse what url.Parse takes.
			if _, hasScheme := cutScheme([]byte(s)); hasScheme {
				t.Fatalf("quickLoc refuses %q, which url.Parse reads as %+v", s, u)
			}
		}
	})
}
