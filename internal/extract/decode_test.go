package extract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// TestDecodeFixtures: each decoding fixture is read in the encoding, and
// for the reason, a browser would (with the one departure decode states),
// and a word only that encoding gives right comes out whole.
func TestDecodeFixtures(t *testing.T) {
	for _, c := range []struct {
		name, want, from, word string
	}{
		{"late_utf8", "utf-8", fromUTF8, "secretary’s"},
		{"late_meta", "windows-1252", fromMeta, "secretary’s"},
		{"meta_straddle", "windows-1252", fromMeta, "“a decision was deferred”"},
		{"header_charset", "windows-1251", fromHeader, "Комитет"},
		{"header_beats_meta", "koi8-r", fromHeader, "своё"},
		{"bom_utf16", "utf-16le", fromBOM, "café"},
		{"mislabelled_utf8", "utf-8", fromMislabelled, "café"},
		{"undeclared_legacy", "windows-1252", fromDetection, "s’est réuni"},
		{"windows1252", "windows-1252", fromMeta, ""},
		{"plain_post", "utf-8", fromMeta, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			stem := filepath.Join("testdata", c.name)
			body, err := os.ReadFile(stem + ".html")
			if err != nil {
				t.Fatal(err)
			}
			ct, _ := os.ReadFile(stem + ".ct")
			text, name, from := decode(body, strings.TrimSpace(string(ct)))
			if name != c.want || from != c.from {
				t.Errorf("decoded as %s (%s), want %s (%s)", name, from, c.want, c.from)
			}
			if !strings.Contains(string(text), c.word) {
				t.Errorf("%q not in the decoded page", c.word)
			}
		})
	}
}

func TestDecodeCases(t *testing.T) {
	for _, c := range []struct {
		body, ct, want, from string
	}{
		{"\xef\xbb\xbf<meta charset=windows-1252>\xc3\xa9", "text/html; charset=koi8-r", "utf-8", fromBOM},
		{"\xfe\xff\x00<\x00p", "", "utf-16be", fromBOM},
		{"<p>caf\xe9", "text/html; charset=ISO-8859-1", "windows-1252", fromHeader},
		{"<p>caf\xe9", "text/html; charset=nonsense", "windows-1252", fromDetection},
		{"<p>caf\xe9", "text/html; foo; charset='utf-8'", "utf-8", fromHeader},
		{"<p>" + strings.Repeat("caf\xe9 ", 10), "text/html; charset=utf-8", "windows-1252", fromDetection},
		{"<meta http-equiv=content-type content='text/html; charset=shift_jis'>\x82\xa0", "", "shift_jis", fromMeta},
		{"<meta charset=utf-16><p>x", "", "utf-8", fromMeta},
		{"<script>var s='<meta charset=koi8-r>'</script><p>x", "", "utf-8", fromUTF8},
		{"<head></head><meta charset=koi8-r><p>x", "", "utf-8", fromUTF8},
		{"<body><meta charset=koi8-r><p>x", "", "utf-8", fromUTF8},
		{"plain ascii", "", "utf-8", fromUTF8},
		{"<p>" + strings.Repeat("naïve ", 60) + "\xff", "", "utf-8", fromUTF8},
	} {
		text, name, from := decode([]byte(c.body), c.ct)
		if name != c.want || from != c.from {
			t.Errorf("decode(%q, %q) = %s (%s), want %s (%s)", c.body, c.ct, name, from, c.want, c.from)
		}
		if !utf8.Valid(text) {
			t.Errorf("decode(%q) gave invalid UTF-8", c.body)
		}
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"cafe\u0301":            "café",
		"com\u00admit\u00adtee": "committee",
		"every\u200bone":        "everyone",
		"word\u2060joiner":      "wordjoiner",
		"\ufeffmark":            "mark",
		"می\u200cخواهم":         "می\u200cخواهم", // the non-joiner is part of the spelling
	} {
		if got := normalise(in); got != want {
			t.Errorf("normalise(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecode holds, over arbitrary bytes and Content-Types: no panic;
// valid UTF-8 out; a known encoding named with its reason; output bounded
// (a byte becomes at most three); the same answer twice.
func FuzzDecode(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "")
	}
	f.Add([]byte("\xff\xfe<\x00"), "text/html; charset=utf-8")
	f.Add([]byte("<meta charset=\"x-user-defined\">\x80"), "")
	f.Add([]byte("<meta http-equiv=Content-Type content=charset=>"), "text/html;charset=")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		text, name, from := decode(body, ct)
		if !utf8.Valid(text) {
			t.Fatalf("invalid UTF-8 out")
		}
		if name == "" || from == "" {
			t.Fatalf("no encoding named: %q %q", name, from)
		}
		if len(text) > 3*len(body)+3 {
			t.Fatalf("%d bytes out of %d", len(text), len(body))
		}
		if t2, n2, f2 := decode(body, ct); !bytes.Equal(t2, text) || n2 != name || f2 != from {
			t.Fatalf("not deterministic")
		}
		_ = normalise(string(text))
	})
}

// startTagCases are <meta> tags written every way the tokenizer allows:
// quotes around '>', unquoted values, names starting with '=', stray
// slashes, white space of every kind, tags cut short.
var startTagCases = []string{
	`<meta charset="utf-8">rest`,
	`<meta name="description" content="a > b">after`,
	`<meta content='it"s' name=x>`,
	`<meta content=a"b>c d='e>f'>`,
	`<meta =x charset=utf-8 >`,
	`<meta / charset = "koi8-r" / >x`,
	"<meta\tname\n=\fvalue\r>",
	`<meta name=a/b/>`,
	`<meta name="unclosed>`,
	`<meta name=`,
	`<meta `,
	`<meta>`,
	`<meta/>`,
	`<meta a=>b>`,
	`<meta a= >b>`,
	`<meta a b c>`,
	`<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">`,
}

// TestStartTagEnd: startTagEnd bounds a tag exactly where the tokenizer
// ends it.
func TestStartTagEnd(t *testing.T) {
	for _, c := range startTagCases {
		checkStartTagEnd(t, []byte(c))
	}
}

func FuzzStartTagEnd(f *testing.F) {
	for _, c := range startTagCases {
		f.Add([]byte(c[len("<meta"):]))
	}
	f.Fuzz(func(t *testing.T, rest []byte) {
		checkStartTagEnd(t, append([]byte("<meta "), rest...))
	})
}

func checkStartTagEnd(t *testing.T, b []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(b))
	tt := z.Next()
	if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
		return // cut short: the tokenizer gives no tag, so no attribute is read
	}
	if got, want := startTagEnd(b), len(z.Raw()); got != want {
		t.Errorf("startTagEnd(%q) = %d, the tokenizer read %d bytes", b, got, want)
	}
}

// TestPrescanSkipsOnlyMute: a <meta> whose attributes can declare no
// encoding is skipped, and one that can is still read, whatever comes
// before it.
func TestPrescanSkipsOnlyMute(t *testing.T) {
	for _, c := range []struct{ head, want string }{
		{`<meta name="viewport" content="width=device-width"><meta charset="koi8-r">`, "koi8-r"},
		{`<meta name="x" content="a > b"><meta http-equiv="content-type" content="text/html; charset=iso-8859-2">`, "iso-8859-2"},
		{`<meta http-equiv="Content-Type" content="text/html; ch&#97;rset=windows-1251">`, "windows-1251"},
		{`<meta name="a" content="charset=x is not a declaration">`, ""},
	} {
		if got := prescan([]byte("<head>" + c.head + "</head>")); got != c.want {
			t.Errorf("prescan(%s) = %q, want %q", c.head, got, c.want)
		}
	}
}
