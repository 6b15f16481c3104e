package robots

// The matcher assertions of google/robotstxt's robots_test.cc, as data: one
// row per EXPECT_TRUE/EXPECT_FALSE(IsUserAgentAllowed(robotstxt, agent, url)),
// in the order the C++ file has them, each named by the TEST it comes from.
//
// want is Google's expectation, except on the rows whose divergence is set:
// there want is what this package answers, and divergence says what Google
// answers and why this package, by design, differs (percent-encoding is
// normalised on both the rule and the URL here; see doc.go).
//
// The table is plain data so that other tests (for instance one running it
// through another robots.txt library) can use it as is.

type matchCase struct {
	test       string // the TEST of robots_test.cc the row comes from
	robotstxt  string
	agent      string
	url        string
	want       bool
	divergence string // "" when want is Google's expectation
}

// Bodies shared by several rows, named after the C++ variables.
const (
	googleSystemTest = "user-agent: FooBot\n" +
		"disallow: /\n"

	googleLineSyntaxCorrect = "user-agent: FooBot\n" +
		"disallow: /\n"
	googleLineSyntaxIncorrect = "foo: FooBot\n" +
		"bar: /\n"
	googleLineSyntaxIncorrectAccepted = "user-agent FooBot\n" +
		"disallow /\n"

	googleGroups = "allow: /foo/bar/\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /x/\n" +
		"user-agent: BarBot\n" +
		"disallow: /\n" +
		"allow: /y/\n" +
		"\n" +
		"\n" +
		"allow: /w/\n" +
		"user-agent: BazBot\n" +
		"\n" +
		"user-agent: FooBot\n" +
		"allow: /z/\n" +
		"disallow: /\n"

	googleREPNamesUpper = "USER-AGENT: FooBot\n" +
		"ALLOW: /x/\n" +
		"DISALLOW: /\n"
	googleREPNamesLower = "user-agent: FooBot\n" +
		"allow: /x/\n" +
		"disallow: /\n"
	googleREPNamesCamel = "uSeR-aGeNt: FooBot\n" +
		"AlLoW: /x/\n" +
		"dIsAlLoW: /\n"

	googleUAValueUpper = "User-Agent: FOO BAR\n" +
		"Allow: /x/\n" +
		"Disallow: /\n"
	googleUAValueLower = "User-Agent: foo bar\n" +
		"Allow: /x/\n" +
		"Disallow: /\n"
	googleUAValueCamel = "User-Agent: FoO bAr\n" +
		"Allow: /x/\n" +
		"Disallow: /\n"

	googleUpToFirstSpace = "User-Agent: *\n" +
		"Disallow: /\n" +
		"User-Agent: Foo Bar\n" +
		"Allow: /x/\n" +
		"Disallow: /\n"

	googleGlobalEmpty  = ""
	googleGlobalGlobal = "user-agent: *\n" +
		"allow: /\n" +
		"user-agent: FooBot\n" +
		"disallow: /\n"
	googleGlobalOnlySpecific = "user-agent: FooBot\n" +
		"allow: /\n" +
		"user-agent: BarBot\n" +
		"disallow: /\n" +
		"user-agent: BazBot\n" +
		"disallow: /\n"

	googleCaseSensitiveLowercaseURL = "user-agent: FooBot\n" +
		"disallow: /x/\n"
	googleCaseSensitiveUppercaseURL = "user-agent: FooBot\n" +
		"disallow: /X/\n"

	googleLongestDisallowPageAllowDir = "user-agent: FooBot\n" +
		"disallow: /x/page.html\n" +
		"allow: /x/\n"
	googleLongestAllowPageDisallowDir = "user-agent: FooBot\n" +
		"allow: /x/page.html\n" +
		"disallow: /x/\n"
	googleLongestEmptyBoth = "user-agent: FooBot\n" +
		"disallow: \n" +
		"allow: \n"
	googleLongestRootBoth = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /\n"
	googleLongestXAndXSlash = "user-agent: FooBot\n" +
		"disallow: /x\n" +
		"allow: /x/\n"
	googleLongestPageBoth = "user-agent: FooBot\n" +
		"disallow: /x/page.html\n" +
		"allow: /x/page.html\n"
	googleLongestPageVsStarHTML = "user-agent: FooBot\n" +
		"allow: /page\n" +
		"disallow: /*.html\n"
	googleLongestPageDotVsStarHTML = "user-agent: FooBot\n" +
		"allow: /x/page.\n" +
		"disallow: /*.html\n"
	googleLongestSpecificGroup = "User-agent: *\n" +
		"Disallow: /x/\n" +
		"User-agent: FooBot\n" +
		"Disallow: /y/\n"

	googleEncodingQuery = "User-agent: FooBot\n" +
		"Disallow: /\n" +
		"Allow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n"
	googleEncodingRaw3Byte = "User-agent: FooBot\n" +
		"Disallow: /\n" +
		"Allow: /foo/bar/ツ\n"
	googleEncodingEscaped3Byte = "User-agent: FooBot\n" +
		"Disallow: /\n" +
		"Allow: /foo/bar/%E3%83%84\n"
	googleEncodingEscapedUnreserved = "User-agent: FooBot\n" +
		"Disallow: /\n" +
		"Allow: /foo/bar/%62%61%7A\n"

	googleSpecialStar = "User-agent: FooBot\n" +
		"Disallow: /foo/bar/quz\n" +
		"Allow: /foo/*/qux\n"
	googleSpecialDollar = "User-agent: FooBot\n" +
		"Disallow: /foo/bar$\n" +
		"Allow: /foo/bar/qux\n"
	googleSpecialHash = "User-agent: FooBot\n" +
		"# Disallow: /\n" +
		"Disallow: /foo/quz#qux\n" +
		"Allow: /\n"

	googleIndexHTML = "User-Agent: *\n" +
		"Allow: /allowed-slash/index.html\n" +
		"Disallow: /\n"

	googleDocFish = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /fish\n"
	googleDocFishStar = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /fish*\n"
	googleDocFishSlash = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /fish/\n"
	googleDocStarPHP = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /*.php\n"
	googleDocStarPHPDollar = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /*.php$\n"
	googleDocFishStarPHP = "user-agent: FooBot\n" +
		"disallow: /\n" +
		"allow: /fish*.php\n"
	googleDocOrderP = "user-agent: FooBot\n" +
		"allow: /p\n" +
		"disallow: /\n"
	googleDocOrderFolder = "user-agent: FooBot\n" +
		"allow: /folder\n" +
		"disallow: /folder\n"
	googleDocOrderPageHTM = "user-agent: FooBot\n" +
		"allow: /page\n" +
		"disallow: /*.htm\n"
	googleDocOrderRootDollar = "user-agent: FooBot\n" +
		"allow: /$\n" +
		"disallow: /\n"
)

// googleLongLines holds the files and URL paths of GoogleOnly_LineTooLong,
// built exactly as the C++ test builds them.
var googleLongLines = buildGoogleLongLines()

type googleLongLineFiles struct {
	disallowFile string // user-agent: FooBot + one over-long disallow line
	longline     string // the disallow line's value, up to the cut

	allowFile string // user-agent: FooBot, disallow: /, two over-long allow lines
	longlineA string // the first allow line's value, up to the cut
	longlineB string // the second allow line's value, up to the cut
}

func buildGoogleLongLines() googleLongLineFiles {
	eolLen := len("\n")
	const maxLineLen = 2083 * 8 // kMaxLineLen
	allow := "allow: "
	disallow := "disallow: "
	var f googleLongLineFiles

	// Disallow rule pattern matches the URL after being cut off at kMaxLineLen.
	{
		robotstxt := "user-agent: FooBot\n"
		longline := []byte("/x/")
		maxLength := maxLineLen - len(longline) - len(disallow) + eolLen
		for len(longline) < maxLength {
			longline = append(longline, 'a')
		}
		robotstxt += disallow + string(longline) + "/qux\n"
		f.disallowFile, f.longline = robotstxt, string(longline)
	}

	{
		robotstxt := "user-agent: FooBot\n" +
			"disallow: /\n"
		longlineA := []byte("/x/")
		longlineB := []byte("/x/")
		maxLength := maxLineLen - len(longlineA) - len(allow) + eolLen
		for len(longlineA) < maxLength {
			longlineA = append(longlineA, 'a')
			longlineB = append(longlineB, 'b')
		}
		robotstxt += allow + string(longlineA) + "/qux\n"
		robotstxt += allow + string(longlineB) + "/qux\n"
		f.allowFile, f.longlineA, f.longlineB = robotstxt, string(longlineA), string(longlineB)
	}
	return f
}

const (
	divergenceRawUTF8URL = "Google: false. Google %-encodes the rule's non-ASCII octets but leaves the URL's raw ツ as is; " +
		"we %-encode the URL's non-ASCII octets too, so both sides read /foo/bar/%E3%83%84."
	divergenceEscapedUnreserved = "Google: false. Google compares %62%61%7A verbatim; we decode escaped unreserved " +
		"characters on both sides (RFC 9309 §2.2.2), so the rule reads /foo/bar/baz."
)

var googleCases = []matchCase{
	// GoogleOnly_SystemTest
	// Empty robots.txt: everything allowed.
	{test: "GoogleOnly_SystemTest", robotstxt: "", agent: "FooBot", url: "", want: true},
	// Empty user-agent to be matched: everything allowed.
	{test: "GoogleOnly_SystemTest", robotstxt: googleSystemTest, agent: "", url: "", want: true},
	// Empty url: implicitly disallowed.
	{test: "GoogleOnly_SystemTest", robotstxt: googleSystemTest, agent: "FooBot", url: "", want: false},
	// All params empty: same as robots.txt empty, everything allowed.
	{test: "GoogleOnly_SystemTest", robotstxt: "", agent: "", url: "", want: true},

	// ID_LineSyntax_Line
	{test: "ID_LineSyntax_Line", robotstxt: googleLineSyntaxCorrect, agent: "FooBot", url: "http://foo.bar/x/y", want: false},
	{test: "ID_LineSyntax_Line", robotstxt: googleLineSyntaxIncorrect, agent: "FooBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_LineSyntax_Line", robotstxt: googleLineSyntaxIncorrectAccepted, agent: "FooBot", url: "http://foo.bar/x/y", want: false},

	// ID_LineSyntax_Groups
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "FooBot", url: "http://foo.bar/x/b", want: true},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "FooBot", url: "http://foo.bar/z/d", want: true},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "FooBot", url: "http://foo.bar/y/c", want: false},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BarBot", url: "http://foo.bar/y/c", want: true},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BarBot", url: "http://foo.bar/w/a", want: true},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BarBot", url: "http://foo.bar/z/d", want: false},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BazBot", url: "http://foo.bar/z/d", want: true},
	// Lines with rules outside groups are ignored.
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "FooBot", url: "http://foo.bar/foo/bar/", want: false},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BarBot", url: "http://foo.bar/foo/bar/", want: false},
	{test: "ID_LineSyntax_Groups", robotstxt: googleGroups, agent: "BazBot", url: "http://foo.bar/foo/bar/", want: false},

	// ID_REPLineNamesCaseInsensitive
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesUpper, agent: "FooBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesLower, agent: "FooBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesCamel, agent: "FooBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesUpper, agent: "FooBot", url: "http://foo.bar/a/b", want: false},
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesLower, agent: "FooBot", url: "http://foo.bar/a/b", want: false},
	{test: "ID_REPLineNamesCaseInsensitive", robotstxt: googleREPNamesCamel, agent: "FooBot", url: "http://foo.bar/a/b", want: false},

	// ID_UserAgentValueCaseInsensitive
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueUpper, agent: "Foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueLower, agent: "Foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueCamel, agent: "Foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueUpper, agent: "Foo", url: "http://foo.bar/a/b", want: false},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueLower, agent: "Foo", url: "http://foo.bar/a/b", want: false},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueCamel, agent: "Foo", url: "http://foo.bar/a/b", want: false},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueUpper, agent: "foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueLower, agent: "foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueCamel, agent: "foo", url: "http://foo.bar/x/y", want: true},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueUpper, agent: "foo", url: "http://foo.bar/a/b", want: false},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueLower, agent: "foo", url: "http://foo.bar/a/b", want: false},
	{test: "ID_UserAgentValueCaseInsensitive", robotstxt: googleUAValueCamel, agent: "foo", url: "http://foo.bar/a/b", want: false},

	// GoogleOnly_AcceptUserAgentUpToFirstSpace (its IsValidUserAgentToObey
	// assertion is in TestGoogleValidUserAgentsToObey).
	{test: "GoogleOnly_AcceptUserAgentUpToFirstSpace", robotstxt: googleUpToFirstSpace, agent: "Foo", url: "http://foo.bar/x/y", want: true},
	{test: "GoogleOnly_AcceptUserAgentUpToFirstSpace", robotstxt: googleUpToFirstSpace, agent: "Foo Bar", url: "http://foo.bar/x/y", want: false},

	// ID_GlobalGroups_Secondary
	{test: "ID_GlobalGroups_Secondary", robotstxt: googleGlobalEmpty, agent: "FooBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_GlobalGroups_Secondary", robotstxt: googleGlobalGlobal, agent: "FooBot", url: "http://foo.bar/x/y", want: false},
	{test: "ID_GlobalGroups_Secondary", robotstxt: googleGlobalGlobal, agent: "BarBot", url: "http://foo.bar/x/y", want: true},
	{test: "ID_GlobalGroups_Secondary", robotstxt: googleGlobalOnlySpecific, agent: "QuxBot", url: "http://foo.bar/x/y", want: true},

	// ID_AllowDisallow_Value_CaseSensitive
	{test: "ID_AllowDisallow_Value_CaseSensitive", robotstxt: googleCaseSensitiveLowercaseURL, agent: "FooBot", url: "http://foo.bar/x/y", want: false},
	{test: "ID_AllowDisallow_Value_CaseSensitive", robotstxt: googleCaseSensitiveUppercaseURL, agent: "FooBot", url: "http://foo.bar/x/y", want: true},

	// ID_LongestMatch
	{test: "ID_LongestMatch", robotstxt: googleLongestDisallowPageAllowDir, agent: "FooBot", url: "http://foo.bar/x/page.html", want: false},
	{test: "ID_LongestMatch", robotstxt: googleLongestAllowPageDisallowDir, agent: "FooBot", url: "http://foo.bar/x/page.html", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestAllowPageDisallowDir, agent: "FooBot", url: "http://foo.bar/x/", want: false},
	// Equivalent disallow and allow patterns: allow is used.
	{test: "ID_LongestMatch", robotstxt: googleLongestEmptyBoth, agent: "FooBot", url: "http://foo.bar/x/page.html", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestRootBoth, agent: "FooBot", url: "http://foo.bar/x/page.html", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestXAndXSlash, agent: "FooBot", url: "http://foo.bar/x", want: false},
	{test: "ID_LongestMatch", robotstxt: googleLongestXAndXSlash, agent: "FooBot", url: "http://foo.bar/x/", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestPageBoth, agent: "FooBot", url: "http://foo.bar/x/page.html", want: true},
	// Longest match wins.
	{test: "ID_LongestMatch", robotstxt: googleLongestPageVsStarHTML, agent: "FooBot", url: "http://foo.bar/page.html", want: false},
	{test: "ID_LongestMatch", robotstxt: googleLongestPageVsStarHTML, agent: "FooBot", url: "http://foo.bar/page", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestPageDotVsStarHTML, agent: "FooBot", url: "http://foo.bar/x/page.html", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestPageDotVsStarHTML, agent: "FooBot", url: "http://foo.bar/x/y.html", want: false},
	// Most specific group for FooBot allows implicitly /x/page.
	{test: "ID_LongestMatch", robotstxt: googleLongestSpecificGroup, agent: "FooBot", url: "http://foo.bar/x/page", want: true},
	{test: "ID_LongestMatch", robotstxt: googleLongestSpecificGroup, agent: "FooBot", url: "http://foo.bar/y/page", want: false},

	// ID_Encoding
	// /foo/bar?baz=http://foo.bar stays unencoded.
	{test: "ID_Encoding", robotstxt: googleEncodingQuery, agent: "FooBot", url: "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", want: true},
	// 3 byte character: /foo/bar/ツ -> /foo/bar/%E3%83%84
	{test: "ID_Encoding", robotstxt: googleEncodingRaw3Byte, agent: "FooBot", url: "http://foo.bar/foo/bar/%E3%83%84", want: true},
	{test: "ID_Encoding", robotstxt: googleEncodingRaw3Byte, agent: "FooBot", url: "http://foo.bar/foo/bar/ツ", want: true, divergence: divergenceRawUTF8URL},
	// Percent encoded 3 byte character: /foo/bar/%E3%83%84 -> /foo/bar/%E3%83%84
	{test: "ID_Encoding", robotstxt: googleEncodingEscaped3Byte, agent: "FooBot", url: "http://foo.bar/foo/bar/%E3%83%84", want: true},
	{test: "ID_Encoding", robotstxt: googleEncodingEscaped3Byte, agent: "FooBot", url: "http://foo.bar/foo/bar/ツ", want: true, divergence: divergenceRawUTF8URL},
	// Percent encoded unreserved US-ASCII: /foo/bar/%62%61%7A
	{test: "ID_Encoding", robotstxt: googleEncodingEscapedUnreserved, agent: "FooBot", url: "http://foo.bar/foo/bar/baz", want: true, divergence: divergenceEscapedUnreserved},
	{test: "ID_Encoding", robotstxt: googleEncodingEscapedUnreserved, agent: "FooBot", url: "http://foo.bar/foo/bar/%62%61%7A", want: true},

	// ID_SpecialCharacters
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialStar, agent: "FooBot", url: "http://foo.bar/foo/bar/quz", want: false},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialStar, agent: "FooBot", url: "http://foo.bar/foo/quz", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialStar, agent: "FooBot", url: "http://foo.bar/foo//quz", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialStar, agent: "FooBot", url: "http://foo.bar/foo/bax/quz", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialDollar, agent: "FooBot", url: "http://foo.bar/foo/bar", want: false},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialDollar, agent: "FooBot", url: "http://foo.bar/foo/bar/qux", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialDollar, agent: "FooBot", url: "http://foo.bar/foo/bar/", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialDollar, agent: "FooBot", url: "http://foo.bar/foo/bar/baz", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialHash, agent: "FooBot", url: "http://foo.bar/foo/bar", want: true},
	{test: "ID_SpecialCharacters", robotstxt: googleSpecialHash, agent: "FooBot", url: "http://foo.bar/foo/quz", want: false},

	// GoogleOnly_IndexHTMLisDirectory
	// If index.html is allowed, / is allowed too.
	{test: "GoogleOnly_IndexHTMLisDirectory", robotstxt: googleIndexHTML, agent: "foobot", url: "http://foo.com/allowed-slash/", want: true},
	// Does not exactly match.
	{test: "GoogleOnly_IndexHTMLisDirectory", robotstxt: googleIndexHTML, agent: "foobot", url: "http://foo.com/allowed-slash/index.htm", want: false},
	// Exact match.
	{test: "GoogleOnly_IndexHTMLisDirectory", robotstxt: googleIndexHTML, agent: "foobot", url: "http://foo.com/allowed-slash/index.html", want: true},
	{test: "GoogleOnly_IndexHTMLisDirectory", robotstxt: googleIndexHTML, agent: "foobot", url: "http://foo.com/anyother-url", want: false},

	// GoogleOnly_LineTooLong
	// Matches nothing, so URL is allowed.
	{test: "GoogleOnly_LineTooLong", robotstxt: googleLongLines.disallowFile, agent: "FooBot", url: "http://foo.bar/fux", want: true},
	// Matches cut off disallow rule.
	{test: "GoogleOnly_LineTooLong", robotstxt: googleLongLines.disallowFile, agent: "FooBot", url: "http://foo.bar" + googleLongLines.longline + "/fux", want: false},
	// URL matches the disallow rule.
	{test: "GoogleOnly_LineTooLong", robotstxt: googleLongLines.allowFile, agent: "FooBot", url: "http://foo.bar/", want: false},
	// Matches the allow rule exactly.
	{test: "GoogleOnly_LineTooLong", robotstxt: googleLongLines.allowFile, agent: "FooBot", url: "http://foo.bar" + googleLongLines.longlineA + "/qux", want: true},
	// Matches cut off allow rule.
	{test: "GoogleOnly_LineTooLong", robotstxt: googleLongLines.allowFile, agent: "FooBot", url: "http://foo.bar" + googleLongLines.longlineB + "/fux", want: true},

	// GoogleOnly_DocumentationChecks
	// "URL matching based on path values": /fish
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fish", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fish.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fish/salmon.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fishheads", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fishheads/yummy.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/fish.html?id=anything", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/Fish.asp", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/catfish", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFish, agent: "FooBot", url: "http://foo.bar/?id=fish", want: false},
	// "/fish*" equals "/fish"
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fish", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fish.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fish/salmon.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fishheads", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fishheads/yummy.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/fish.html?id=anything", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/Fish.bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/catfish", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStar, agent: "FooBot", url: "http://foo.bar/?id=fish", want: false},
	// "/fish/" does not equal "/fish"
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish/", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish/salmon", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish/?salmon", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish/salmon.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish/?id=anything", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/fish.html", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishSlash, agent: "FooBot", url: "http://foo.bar/Fish/Salmon.html", want: false},
	// "/*.php"
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/filename.php", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/folder/filename.php", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/folder/filename.php?parameters", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar//folder/any.php.file.html", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/filename.php/", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/index?f=filename.php/", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/php/", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/index?php", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHP, agent: "FooBot", url: "http://foo.bar/windows.PHP", want: false},
	// "/*.php$"
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/filename.php", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/folder/filename.php", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/filename.php?parameters", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/filename.php/", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/filename.php5", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/php/", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/filename?php", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar/aaaphpaaa", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocStarPHPDollar, agent: "FooBot", url: "http://foo.bar//windows.PHP", want: false},
	// "/fish*.php"
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStarPHP, agent: "FooBot", url: "http://foo.bar/bar", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStarPHP, agent: "FooBot", url: "http://foo.bar/fish.php", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStarPHP, agent: "FooBot", url: "http://foo.bar/fishheads/catfish.php?parameters", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocFishStarPHP, agent: "FooBot", url: "http://foo.bar/Fish.PHP", want: false},
	// "Order of precedence for group-member records".
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocOrderP, agent: "FooBot", url: "http://example.com/page", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocOrderFolder, agent: "FooBot", url: "http://example.com/folder/page", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocOrderPageHTM, agent: "FooBot", url: "http://example.com/page.htm", want: false},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocOrderRootDollar, agent: "FooBot", url: "http://example.com/", want: true},
	{test: "GoogleOnly_DocumentationChecks", robotstxt: googleDocOrderRootDollar, agent: "FooBot", url: "http://example.com/page.html", want: false},
}
