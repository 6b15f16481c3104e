package robots

import (
	"fmt"
	"testing"
)

// The examples of RFC 9309 itself, section by section. The figures are
// transcribed from the RFC's text (figure numbers as in the RFC); where a
// check goes beyond what a figure literally states, the comment says what the
// prose around it says instead.

type rfcCase struct {
	section    string
	robotstxt  string
	agent      string
	url        string
	want       bool
	divergence string // "" unless this package deliberately reads the RFC otherwise
}

func runRFCCases(t *testing.T, cases []rfcCase) {
	t.Helper()
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s_%02d", c.section, i), func(t *testing.T) {
			d := Parse([]byte(c.robotstxt)).For(c.agent).Decide(c.url)
			if d.Allowed != c.want {
				t.Errorf("robots.txt:\n%s\nagent %q, url %q: Allowed = %v, want %v (decided by %q, line %d)",
					c.robotstxt, c.agent, c.url, d.Allowed, c.want, d.Rule(), d.Line)
			}
			if c.divergence != "" {
				t.Logf("deliberate reading: %s", c.divergence)
			}
		})
	}
}

// Section 2.2.1, Figure 1: the product token is a substring of the
// User-Agent HTTP header, and names the group.
func TestRFCFigure1ProductToken(t *testing.T) {
	const header = "Mozilla/5.0 (compatible; ExampleBot/0.1; https://www.example.com/bot.html)"
	tok := ProductToken(header)
	if tok != "ExampleBot" {
		t.Fatalf("ProductToken(%q) = %q, want ExampleBot", header, tok)
	}
	f := Parse([]byte("user-agent: ExampleBot\ndisallow: /\n"))
	if f.For(tok).Allowed("https://www.example.com/page") {
		t.Errorf("the group of user-agent: ExampleBot does not apply to %q", tok)
	}
	// "Crawlers MUST use case-insensitive matching to find the group".
	if f.For("examplebot").Allowed("https://www.example.com/page") {
		t.Errorf("the group of user-agent: ExampleBot does not apply to examplebot")
	}
}

// Section 2.2.1, Figures 2 and 3: merging the groups of one product token,
// falling back to "*", and no rules at all when neither exists.
func TestRFCFigures2And3Groups(t *testing.T) {
	const figure2 = "user-agent: ExampleBot\n" +
		"disallow: /foo\n" +
		"disallow: /bar\n" +
		"\n" +
		"user-agent: ExampleBot\n" +
		"disallow: /baz\n"
	const figure3 = "user-agent: *\n" +
		"disallow: /foo\n" +
		"disallow: /bar\n" +
		"\n" +
		"user-agent: BazBot\n" +
		"disallow: /baz\n"
	// "If no group matches the product token and there is no group with a
	// user-agent line with the "*" value, or no groups are present at all,
	// no rules apply."
	const noMatch = "user-agent: BazBot\n" +
		"disallow: /\n"
	runRFCCases(t, []rfcCase{
		// Figure 2: the merged group disallows /foo, /bar and /baz.
		{section: "2.2.1_Fig2", robotstxt: figure2, agent: "ExampleBot", url: "https://www.example.com/foo", want: false},
		{section: "2.2.1_Fig2", robotstxt: figure2, agent: "ExampleBot", url: "https://www.example.com/bar", want: false},
		{section: "2.2.1_Fig2", robotstxt: figure2, agent: "ExampleBot", url: "https://www.example.com/baz", want: false},
		{section: "2.2.1_Fig2", robotstxt: figure2, agent: "ExampleBot", url: "https://www.example.com/qux", want: true},
		// Figure 3: ExampleBot obeys the "*" group, not BazBot's.
		{section: "2.2.1_Fig3", robotstxt: figure3, agent: "ExampleBot", url: "https://www.example.com/foo", want: false},
		{section: "2.2.1_Fig3", robotstxt: figure3, agent: "ExampleBot", url: "https://www.example.com/bar", want: false},
		{section: "2.2.1_Fig3", robotstxt: figure3, agent: "ExampleBot", url: "https://www.example.com/baz", want: true},
		{section: "2.2.1_Fig3", robotstxt: figure3, agent: "BazBot", url: "https://www.example.com/baz", want: false},
		{section: "2.2.1_Fig3", robotstxt: figure3, agent: "BazBot", url: "https://www.example.com/foo", want: true},
		{section: "2.2.1_NoGroup", robotstxt: noMatch, agent: "ExampleBot", url: "https://www.example.com/", want: true},
		{section: "2.2.1_NoGroup", robotstxt: "", agent: "ExampleBot", url: "https://www.example.com/", want: true},
	})
}

// Section 2.2.2, the prose: case-sensitive matching from the first octet,
// the most octets win, allow wins a tie, no match allows, /robots.txt is
// implicitly allowed, and rules outside any group are ignored.
func TestRFCSection222Rules(t *testing.T) {
	const ua = "user-agent: ExampleBot\n"
	runRFCCases(t, []rfcCase{
		{section: "2.2.2_CaseSensitive", robotstxt: ua + "disallow: /Foo\n", agent: "ExampleBot", url: "https://www.example.com/foo", want: true},
		{section: "2.2.2_CaseSensitive", robotstxt: ua + "disallow: /Foo\n", agent: "ExampleBot", url: "https://www.example.com/Foo", want: false},
		{section: "2.2.2_FirstOctet", robotstxt: ua + "disallow: /foo\n", agent: "ExampleBot", url: "https://www.example.com/bar/foo", want: true},
		{section: "2.2.2_MostOctets", robotstxt: ua + "disallow: /foo\nallow: /foo/bar\n", agent: "ExampleBot", url: "https://www.example.com/foo/bar/x", want: true},
		{section: "2.2.2_MostOctets", robotstxt: ua + "allow: /foo\ndisallow: /foo/bar\n", agent: "ExampleBot", url: "https://www.example.com/foo/bar/x", want: false},
		{section: "2.2.2_AllowWinsTie", robotstxt: ua + "disallow: /foo\nallow: /foo\n", agent: "ExampleBot", url: "https://www.example.com/foo", want: true},
		{section: "2.2.2_NoMatch", robotstxt: ua + "disallow: /foo\n", agent: "ExampleBot", url: "https://www.example.com/bar", want: true},
		{section: "2.2.2_NoRules", robotstxt: ua, agent: "ExampleBot", url: "https://www.example.com/foo", want: true},
		{section: "2.2.2_RobotsTxt", robotstxt: ua + "disallow: /\n", agent: "ExampleBot", url: "https://www.example.com/robots.txt", want: true},
		{section: "2.2.2_OutsideGroup", robotstxt: "disallow: /foo\n" + ua + "allow: /bar\n", agent: "ExampleBot", url: "https://www.example.com/foo", want: true},
	})
}

// Section 2.2.2, Figure 4: a path, its encoded form, and the path that is
// matched. Every spelling of a row, used as the rule, must match every
// spelling of the same row used as the URL.
func TestRFCFigure4PercentEncoding(t *testing.T) {
	rows := []struct {
		path, encoded, toMatch string
		// spellings that this package does not treat as the same path as
		// the others, and why
		apart      map[string]bool
		divergence string
	}{
		{path: "/foo/bar?baz=quz", encoded: "/foo/bar?baz=quz", toMatch: "/foo/bar?baz=quz"},
		{
			path: "/foo/bar?baz=https://foo.bar", encoded: "/foo/bar?baz=https%3A%2F%2Ffoo.bar", toMatch: "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
			apart: map[string]bool{"/foo/bar?baz=https://foo.bar": true},
			divergence: "RFC 9309 Figure 4 encodes the reserved \":\" and \"/\" of a query value; this package leaves " +
				"reserved characters as written and keeps %3A and %2F distinct from them (/a%2Fb is not /a/b), so the raw " +
				"and the encoded spelling only match themselves",
		},
		{path: "/foo/bar/ツ", encoded: "/foo/bar/%E3%83%84", toMatch: "/foo/bar/%E3%83%84"},
		{path: "/foo/bar/%E3%83%84", encoded: "/foo/bar/%E3%83%84", toMatch: "/foo/bar/%E3%83%84"},
		{path: "/foo/bar/%62%61%7A", encoded: "/foo/bar/%62%61%7A", toMatch: "/foo/bar/baz"},
	}
	var cases []rfcCase
	for _, r := range rows {
		spellings := []string{r.path, r.encoded, r.toMatch}
		for _, rule := range spellings {
			for _, u := range spellings {
				c := rfcCase{
					section:   "2.2.2_Fig4",
					robotstxt: "user-agent: *\ndisallow: " + rule + "\n",
					agent:     "ExampleBot",
					url:       "https://www.example.com" + u,
					want:      false,
				}
				if rule != u && r.apart[rule] != r.apart[u] {
					c.want, c.divergence = true, r.divergence
				}
				cases = append(cases, c)
			}
		}
		// The normalised spelling is the RFC's "path to match".
		want := r.toMatch
		if r.apart[r.path] {
			want = r.path
		}
		if got := string(appendNormalized(nil, r.path, false)); got != want {
			t.Errorf("normalised %q = %q, want %q", r.path, got, want)
		}
	}
	runRFCCases(t, cases)
}

// Section 2.2.3, Figure 5: the special characters "#", "$" and "*", with
// the RFC's example lines; Figure 6: a "*" or "$" to be matched verbatim is
// written %2A or %24.
func TestRFCFigures5And6SpecialCharacters(t *testing.T) {
	const ua = "user-agent: *\n"
	runRFCCases(t, []rfcCase{
		// "#": allow: / # comment in line; # comment on its own line.
		{section: "2.2.3_Fig5_Hash", robotstxt: ua + "disallow: /\nallow: / # comment in line\n# comment on its own line\n", agent: "ExampleBot", url: "https://www.example.com/x", want: true},
		{section: "2.2.3_Fig5_Hash", robotstxt: ua + "disallow: /x # comment in line\n", agent: "ExampleBot", url: "https://www.example.com/x", want: false},
		{section: "2.2.3_Fig5_Hash", robotstxt: ua + "# disallow: /x\n", agent: "ExampleBot", url: "https://www.example.com/x", want: true},
		// "$": allow: /this/path/exactly$
		{section: "2.2.3_Fig5_Dollar", robotstxt: ua + "disallow: /\nallow: /this/path/exactly$\n", agent: "ExampleBot", url: "https://www.example.com/this/path/exactly", want: true},
		{section: "2.2.3_Fig5_Dollar", robotstxt: ua + "disallow: /\nallow: /this/path/exactly$\n", agent: "ExampleBot", url: "https://www.example.com/this/path/exactly/more", want: false},
		{section: "2.2.3_Fig5_Dollar", robotstxt: ua + "disallow: /\nallow: /this/path/exactly$\n", agent: "ExampleBot", url: "https://www.example.com/this/path/exactlyx", want: false},
		// "*": allow: /this/*/exactly, 0 or more instances of any character.
		{section: "2.2.3_Fig5_Star", robotstxt: ua + "disallow: /\nallow: /this/*/exactly\n", agent: "ExampleBot", url: "https://www.example.com/this/a/exactly", want: true},
		{section: "2.2.3_Fig5_Star", robotstxt: ua + "disallow: /\nallow: /this/*/exactly\n", agent: "ExampleBot", url: "https://www.example.com/this/a/b/exactly", want: true},
		{section: "2.2.3_Fig5_Star", robotstxt: ua + "disallow: /\nallow: /this/*/exactly\n", agent: "ExampleBot", url: "https://www.example.com/this//exactly", want: true},
		{section: "2.2.3_Fig5_Star", robotstxt: ua + "disallow: /\nallow: /this/*/exactly\n", agent: "ExampleBot", url: "https://www.example.com/this/exactly", want: false},
		// Figure 6: percent-encoded pattern, and the URI it matches.
		{section: "2.2.3_Fig6", robotstxt: ua + "disallow: /path/file-with-a-%2A.html\n", agent: "ExampleBot", url: "https://www.example.com/path/file-with-a-*.html", want: false},
		{section: "2.2.3_Fig6", robotstxt: ua + "disallow: /path/foo-%24\n", agent: "ExampleBot", url: "https://www.example.com/path/foo-$", want: false},
		// ... and the escaped characters have lost their special meaning.
		{section: "2.2.3_Fig6", robotstxt: ua + "disallow: /path/file-with-a-%2A.html\n", agent: "ExampleBot", url: "https://www.example.com/path/file-with-a-x.html", want: true},
		{section: "2.2.3_Fig6", robotstxt: ua + "disallow: /path/foo-%24\n", agent: "ExampleBot", url: "https://www.example.com/path/foo-", want: true},
		{section: "2.2.3_Fig6", robotstxt: ua + "disallow: /path/foo-%24\n", agent: "ExampleBot", url: "https://www.example.com/path/foo-$/more", want: false},
	})
}

// rfcSimpleExample is the file of section 5.1, as printed, with its closing
// "EOF" line (the RFC's marker for the end of the file; as a line it has no
// key and is ignored).
const rfcSimpleExample = "User-Agent: *\n" +
	"Disallow: *.gif$\n" +
	"Disallow: /example/\n" +
	"Allow: /publications/\n" +
	"\n" +
	"User-Agent: foobot\n" +
	"Disallow:/\n" +
	"Allow:/example/page.html\n" +
	"Allow:/example/allowed.gif\n" +
	"\n" +
	"User-Agent: barbot\n" +
	"User-Agent: bazbot\n" +
	"Disallow: /example/page.html\n" +
	"\n" +
	"User-Agent: quxbot\n" +
	"\n" +
	"EOF\n"

// Section 5.1, the simple example, checked against the RFC's description of
// each group.
func TestRFCSection51SimpleExample(t *testing.T) {
	const site = "https://www.example.com"
	ex := func(agent, path string, want bool) rfcCase {
		return rfcCase{section: "5.1_" + agent, robotstxt: rfcSimpleExample, agent: agent, url: site + path, want: want}
	}
	runRFCCases(t, []rfcCase{
		// "*": allows the /publications/ prefix, restricts the /example/
		// prefix and every URL with a .gif suffix; "*" matches any character,
		// the otherwise required leading "/" included.
		ex("ExampleBot", "/publications/", true),
		ex("ExampleBot", "/publications/paper.html", true),
		ex("ExampleBot", "/example/", false),
		ex("ExampleBot", "/example/page.html", false),
		ex("ExampleBot", "/images/logo.gif", false),
		ex("ExampleBot", "/logo.gif", false),
		ex("ExampleBot", "/index.html", true),
		// foobot: access to the two prefixes /example/page.html and
		// /example/allowed.gif only; its rules lack the optional space.
		ex("foobot", "/example/page.html", true),
		ex("foobot", "/example/page.html?lang=en", true),
		ex("foobot", "/example/allowed.gif", true),
		ex("foobot", "/example/", false),
		ex("foobot", "/example/other.gif", false),
		ex("foobot", "/publications/", false),
		ex("foobot", "/", false),
		// barbot and bazbot: one group; not the /example/page.html prefix,
		// everything else.
		ex("barbot", "/example/page.html", false),
		ex("bazbot", "/example/page.html", false),
		ex("barbot", "/example/page.html.bak", false),
		ex("barbot", "/example/", true),
		ex("bazbot", "/images/logo.gif", true),
		ex("bazbot", "/publications/", true),
		// quxbot: an empty group at the end of the file, unrestricted access.
		ex("quxbot", "/example/", true),
		ex("quxbot", "/example/page.html", true),
		ex("quxbot", "/images/logo.gif", true),
	})

	// The "EOF" line is no directive of any kind.
	var eof []Directive
	Scan([]byte(rfcSimpleExample), func(d Directive) {
		if d.Key == "EOF" {
			eof = append(eof, d)
		}
	})
	if len(eof) != 1 || eof[0].Kind != KindUnknown {
		t.Errorf("the EOF line scans as %+v, want one KindUnknown directive", eof)
	}
}

// Section 5.2, longest match. The RFC's sentence reads "/example/page/
// disallowed.gif MUST be used for the URI example.com/example/page/
// disallow.gif"; "disallow.gif" is evidently a typo for "disallowed.gif",
// since by §2.2.2 a rule matches only when its whole path is reached, and
// /example/page/disallowed.gif is not a prefix of /example/page/disallow.gif.
// Both readings are checked: the intended one, and the literal URI, which
// only Allow: /example/page/ matches.
func TestRFCSection52LongestMatch(t *testing.T) {
	const file = "User-Agent: foobot\n" +
		"Allow: /example/page/\n" +
		"Disallow: /example/page/disallowed.gif\n"
	const reversed = "User-Agent: foobot\n" +
		"Disallow: /example/page/disallowed.gif\n" +
		"Allow: /example/page/\n"
	runRFCCases(t, []rfcCase{
		{section: "5.2", robotstxt: file, agent: "foobot", url: "https://example.com/example/page/disallowed.gif", want: false},
		{section: "5.2", robotstxt: file, agent: "foobot", url: "https://example.com/example/page/disallow.gif", want: true},
		{section: "5.2", robotstxt: file, agent: "foobot", url: "https://example.com/example/page/", want: true},
		{section: "5.2", robotstxt: file, agent: "foobot", url: "https://example.com/example/page/other.gif", want: true},
		// The order of the lines does not matter.
		{section: "5.2_Reversed", robotstxt: reversed, agent: "foobot", url: "https://example.com/example/page/disallowed.gif", want: false},
		{section: "5.2_Reversed", robotstxt: reversed, agent: "foobot", url: "https://example.com/example/page/other.gif", want: true},
	})

	d := Parse([]byte(file)).For("foobot").Decide("https://example.com/example/page/disallowed.gif")
	if d.Rule() != "Disallow: /example/page/disallowed.gif" || d.Line != 3 {
		t.Errorf("decided by %q on line %d, want Disallow: /example/page/disallowed.gif on line 3", d.Rule(), d.Line)
	}
}
