package robots

import (
	"fmt"
	"slices"
	"testing"
)

// Tests ported from google/robotstxt's robots_test.cc. The matcher rows are
// in google_cases_test.go; the rest of the C++ file is ported here.

// googleCaseCounts is how many IsUserAgentAllowed assertions each TEST of
// robots_test.cc has, so that a row lost from googleCases is noticed.
var googleCaseCounts = map[string]int{
	"GoogleOnly_SystemTest":                    4,
	"ID_LineSyntax_Line":                       3,
	"ID_LineSyntax_Groups":                     10,
	"ID_REPLineNamesCaseInsensitive":           6,
	"ID_UserAgentValueCaseInsensitive":         12,
	"GoogleOnly_AcceptUserAgentUpToFirstSpace": 2,
	"ID_GlobalGroups_Secondary":                4,
	"ID_AllowDisallow_Value_CaseSensitive":     2,
	"ID_LongestMatch":                          14,
	"ID_Encoding":                              7,
	"ID_SpecialCharacters":                     10,
	"GoogleOnly_IndexHTMLisDirectory":          4,
	"GoogleOnly_LineTooLong":                   5,
	"GoogleOnly_DocumentationChecks":           58,
}

func TestGoogleSuiteIsComplete(t *testing.T) {
	got := map[string]int{}
	for _, c := range googleCases {
		got[c.test]++
	}
	total := 0
	for name, want := range googleCaseCounts {
		total += want
		if got[name] != want {
			t.Errorf("%s: %d rows, robots_test.cc has %d assertions", name, got[name], want)
		}
	}
	for name := range got {
		if _, ok := googleCaseCounts[name]; !ok {
			t.Errorf("row names unknown TEST %q", name)
		}
	}
	if len(googleCases) != total {
		t.Errorf("googleCases has %d rows, want %d", len(googleCases), total)
	}
}

func TestGoogleSuite(t *testing.T) {
	for i, c := range googleCases {
		t.Run(fmt.Sprintf("%s_%03d", c.test, i), func(t *testing.T) {
			d := Parse([]byte(c.robotstxt)).For(c.agent).Decide(c.url)
			if d.Allowed != c.want {
				t.Errorf("robots.txt:\n%s\nagent %q, url %q: Allowed = %v, want %v (decided by %q, line %d)",
					googleShort(c.robotstxt), c.agent, googleShort(c.url), d.Allowed, c.want, googleShort(d.Rule()), d.Line)
			}
			if c.divergence != "" {
				t.Logf("deliberate divergence from Google: %s", c.divergence)
			}
		})
	}
}

// googleShort keeps failure messages readable for the over-long lines of
// GoogleOnly_LineTooLong.
func googleShort(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s…[%d bytes]…%s", s[:80], len(s)-160, s[len(s)-80:])
}

// ID_VerifyValidUserAgentsToObey, and the IsValidUserAgentToObey assertion
// of GoogleOnly_AcceptUserAgentUpToFirstSpace.
func TestGoogleValidUserAgentsToObey(t *testing.T) {
	for _, c := range []struct {
		test  string
		agent string
		want  bool
	}{
		{"ID_VerifyValidUserAgentsToObey", "Foobot", true},
		{"ID_VerifyValidUserAgentsToObey", "Foobot-Bar", true},
		{"ID_VerifyValidUserAgentsToObey", "Foo_Bar", true},
		{"ID_VerifyValidUserAgentsToObey", "", false}, // absl::string_view()
		{"ID_VerifyValidUserAgentsToObey", "", false},
		{"ID_VerifyValidUserAgentsToObey", "ツ", false},
		{"ID_VerifyValidUserAgentsToObey", "Foobot*", false},
		{"ID_VerifyValidUserAgentsToObey", " Foobot ", false},
		{"ID_VerifyValidUserAgentsToObey", "Foobot/2.1", false},
		{"ID_VerifyValidUserAgentsToObey", "Foobot Bar", false},
		{"GoogleOnly_AcceptUserAgentUpToFirstSpace", "Foobot Bar", false},
	} {
		if got := IsValidToken(c.agent); got != c.want {
			t.Errorf("%s: IsValidToken(%q) = %v, want %v", c.test, c.agent, got, c.want)
		}
	}
}

// googleStats is RobotsStatsReporter ported onto Scan: every directive with
// a known key counts as valid, the others as unknown, and the last line seen
// is the line of the last directive.
type googleStats struct {
	lastLineSeen      int
	validDirectives   int
	unknownDirectives int
	sitemap           string
}

func googleReport(t *testing.T, body string) googleStats {
	t.Helper()
	var s googleStats
	Scan([]byte(body), func(d Directive) {
		if d.Kind == KindUnknown {
			s.lastLineSeen = d.Line
			s.unknownDirectives++
			return
		}
		if d.Line < s.lastLineSeen { // ASSERT_GE(line_num, last_line_seen_)
			t.Errorf("directive %+v reported after line %d", d, s.lastLineSeen)
		}
		s.lastLineSeen = d.Line
		s.validDirectives++
		if d.Kind == KindSitemap {
			s.sitemap += d.Value
		}
	})
	return s
}

// ID_LinesNumbersAreCountedCorrectly: different kinds of line endings are
// all supported: %x0D / %x0A / %x0D.0A.
func TestGoogleLinesNumbersAreCountedCorrectly(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"kUnixFile", "User-Agent: foo\n" +
			"Allow: /some/path\n" +
			"User-Agent: bar\n" +
			"\n" +
			"\n" +
			"Disallow: /\n"},
		{"kDosFile", "User-Agent: foo\r\n" +
			"Allow: /some/path\r\n" +
			"User-Agent: bar\r\n" +
			"\r\n" +
			"\r\n" +
			"Disallow: /\r\n"},
		{"kMacFile", "User-Agent: foo\r" +
			"Allow: /some/path\r" +
			"User-Agent: bar\r" +
			"\r" +
			"\r" +
			"Disallow: /\r"},
		{"kNoFinalNewline", "User-Agent: foo\n" +
			"Allow: /some/path\n" +
			"User-Agent: bar\n" +
			"\n" +
			"\n" +
			"Disallow: /"},
		{"kMixedFile", "User-Agent: foo\n" +
			"Allow: /some/path\r\n" +
			"User-Agent: bar\n" +
			"\r\n" +
			"\n" +
			"Disallow: /"},
	} {
		s := googleReport(t, c.body)
		if s.validDirectives != 4 {
			t.Errorf("%s: %d valid directives, want 4", c.name, s.validDirectives)
		}
		if s.lastLineSeen != 6 {
			t.Errorf("%s: last line seen %d, want 6", c.name, s.lastLineSeen)
		}
	}
}

// ID_UTF8ByteOrderMarkIsSkipped: BOM characters are unparseable and thus
// skipped. The rules following the line are used.
func TestGoogleUTF8ByteOrderMarkIsSkipped(t *testing.T) {
	for _, c := range []struct {
		name           string
		body           string
		valid, unknown int
	}{
		{"kUtf8FileFullBOM", "\xEF\xBB\xBF" +
			"User-Agent: foo\n" +
			"Allow: /AnyValue\n", 2, 0},
		// Partial byte order marks are accepted as well.
		{"kUtf8FilePartial2BOM", "\xEF\xBB" +
			"User-Agent: foo\n" +
			"Allow: /AnyValue\n", 2, 0},
		{"kUtf8FilePartial1BOM", "\xEF" +
			"User-Agent: foo\n" +
			"Allow: /AnyValue\n", 2, 0},
		// A wrong BOM sequence makes the first line garbage ("\x11\xBFUser-Agent").
		{"kUtf8FileBrokenBOM", "\xEF\x11\xBF" +
			"User-Agent: foo\n" +
			"Allow: /AnyValue\n", 1, 1},
		// BOMs are only valid at the beginning of the file.
		{"kUtf8BOMSomewhereInMiddleOfFile", "User-Agent: foo\n" +
			"\xEF\xBB\xBF" +
			"Allow: /AnyValue\n", 1, 1},
	} {
		s := googleReport(t, c.body)
		if s.validDirectives != c.valid {
			t.Errorf("%s: %d valid directives, want %d", c.name, s.validDirectives, c.valid)
		}
		if s.unknownDirectives != c.unknown {
			t.Errorf("%s: %d unknown directives, want %d", c.name, s.unknownDirectives, c.unknown)
		}
	}
}

// ID_NonStandardLineExample_Sitemap: a sitemap line may appear anywhere in
// the file.
func TestGoogleNonStandardLineExampleSitemap(t *testing.T) {
	const sitemapLoc = "http://foo.bar/sitemap.xml"
	const rest = "User-Agent: foo\n" +
		"Allow: /some/path\n" +
		"User-Agent: bar\n" +
		"\n" +
		"\n"
	for _, c := range []struct{ name, body string }{
		{"at the end", rest + "Sitemap: " + sitemapLoc + "\n"},
		{"at the start", "Sitemap: " + sitemapLoc + "\n" + rest},
	} {
		if got := googleReport(t, c.body).sitemap; got != sitemapLoc {
			t.Errorf("%s: Scan reports sitemap %q, want %q", c.name, got, sitemapLoc)
		}
		if got := Parse([]byte(c.body)).Sitemaps(); !slices.Equal(got, []string{sitemapLoc}) {
			t.Errorf("%s: Sitemaps() = %q, want [%q]", c.name, got, sitemapLoc)
		}
	}
}

// TestGetPathParamsQuery: GetPathParamsQuery(url) is, here, requestPath with
// a "/" put in front when it asks for one.
func TestGoogleGetPathParamsQuery(t *testing.T) {
	// Only testing URLs that are already correctly escaped here.
	for _, c := range []struct{ url, want string }{
		{"", "/"},
		{"http://www.example.com", "/"},
		{"http://www.example.com/", "/"},
		{"http://www.example.com/a", "/a"},
		{"http://www.example.com/a/", "/a/"},
		{"http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"},
		{"http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
		{"example.com", "/"},
		{"example.com/", "/"},
		{"example.com/a", "/a"},
		{"example.com/a/", "/a/"},
		{"example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"},
		{"a", "/"},
		{"a/", "/"},
		{"/a", "/a"},
		{"a/b", "/b"},
		{"example.com?a", "/?a"},
		{"example.com/a;b#c", "/a;b"},
		{"//a/b/c", "/b/c"},
	} {
		path, addSlash := requestPath(c.url)
		got := path
		if addSlash {
			got = "/" + path
		}
		if got != c.want {
			t.Errorf("requestPath(%q) = (%q, %v), Google's path %q", c.url, path, addSlash, c.want)
		}
	}
}

// TestMaybeEscapePattern: MaybeEscapePattern is, here, appendNormalized of a
// pattern.
func TestGoogleMaybeEscapePattern(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"http://www.example.com", "http://www.example.com"},
		{"/a/b/c", "/a/b/c"},
		{"á", "%C3%A1"},
		// Google upper-cases the hex; 0xAA is not unreserved, so we keep it
		// escaped and agree.
		{"%aa", "%AA"},
	} {
		if got := string(appendNormalized(nil, c.pattern, true)); got != c.want {
			t.Errorf("appendNormalized(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}
