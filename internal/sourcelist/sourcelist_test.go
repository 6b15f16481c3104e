package sourcelist

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files from what Parse returns")

// render writes entries one a line, tab-separated, as the .golden files
// hold them: line, URL, feed, title, and the rejection if any.
func render(entries []Entry) string {
	var b strings.Builder
	for _, e := range entries {
		reason := ""
		if e.Err != nil {
			reason = "rejected: " + e.Err.Error()
		}
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%s\n", e.Line, e.URL, e.Feed, e.Title, reason)
	}
	return b.String()
}

// TestParseFixtures parses every fixture of testdata/ with a .golden file
// beside it and compares the entries with it. The golden files were
// checked by hand against the fixtures; -update rewrites them.
func TestParseFixtures(t *testing.T) {
	for _, name := range []string{
		"feedly.opml", "inoreader.xml", "netnewswire.opml", "latin1.opml",
		"bom.opml", "list.txt", "crlf.txt", "empty.txt",
	} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			entries, err := Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := render(entries)
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("entries differ from %s\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestParseDocumentErrors covers the inputs Parse refuses whole.
func TestParseDocumentErrors(t *testing.T) {
	for _, c := range []struct {
		name     string
		input    string // or the fixture, when file is set
		file     string
		wantLine int    // the *ParseError line; 0 when the error is not one
		wantText string // in the message
		wantIs   error
		limits   limits // when set, instead of Parse's
	}{
		// Documents not well formed are read leniently (TestParseMalformed)
		// unless no outline in them names a URL.
		{name: "nothing readable", input: "<opml>\n<body>\n<outline text=\"a < b\"/>\n<<<>>>\n", wantLine: 3, wantText: "OPML line 3"},
		{name: "cut short, nothing readable", input: "<opml><body>\n<outline text=\"Cat\">\n", wantLine: 3, wantText: "unexpected EOF"},
		{name: "a feed, not a list", file: "rss.xml", wantText: "root element is <rss>"},
		{name: "no root", input: "<?xml version=\"1.0\"?>\n<!-- only -->\n", wantLine: 3, wantText: "no <opml> element"},
		{name: "unclosed tag", input: "<opml>\n<body>\n<outline text=\"a\"\n", wantLine: 4, wantText: "unexpected EOF"},
		{name: "too large", input: strings.Repeat("#\n", MaxInputBytes/2+1), wantIs: ErrTooLarge},
		{name: "too large, small limit", input: "https://a.example/\n", limits: limits{inputBytes: 18, entries: 10}, wantIs: ErrTooLarge},
		{name: "too many lines", input: strings.Repeat("https://a.example/\n", MaxEntries+1), wantIs: ErrTooManyEntries, wantText: "line 100001"},
		{name: "too many outlines", input: "<opml><body>\n" + strings.Repeat("<outline xmlUrl=\"https://a.example/\"/>\n", 6) + "</body></opml>", limits: limits{inputBytes: 1 << 20, entries: 5}, wantIs: ErrTooManyEntries, wantText: "line 7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			input := []byte(c.input)
			if c.file != "" {
				var err error
				if input, err = os.ReadFile(filepath.Join("testdata", c.file)); err != nil {
					t.Fatal(err)
				}
			}
			var entries []Entry
			var err error
			if c.limits != (limits{}) {
				var l List
				l, err = parse(bytes.NewReader(input), c.limits)
				entries = l.Entries
			} else {
				entries, err = Parse(bytes.NewReader(input))
			}
			if err == nil {
				t.Fatalf("Parse succeeded with %d entries, want an error", len(entries))
			}
			if entries != nil {
				t.Errorf("Parse returned %d entries with its error", len(entries))
			}
			if c.wantText != "" && !strings.Contains(err.Error(), c.wantText) {
				t.Errorf("error %q does not contain %q", err, c.wantText)
			}
			if c.wantIs != nil && !errors.Is(err, c.wantIs) {
				t.Errorf("error %q is not %v", err, c.wantIs)
			}
			var pe *ParseError
			if errors.As(err, &pe) != (c.wantLine != 0) {
				t.Fatalf("error %q (%T): *ParseError is %v, want %v", err, err, errors.As(err, &pe), c.wantLine != 0)
			}
			if pe != nil && pe.Line != c.wantLine {
				t.Errorf("ParseError.Line = %d, want %d (%v)", pe.Line, c.wantLine, err)
			}
		})
	}
}

// TestParseLimitsAreInclusive: exactly MaxEntries entries and exactly
// MaxInputBytes bytes are accepted.
func TestParseLimitsAreInclusive(t *testing.T) {
	entries, err := Parse(strings.NewReader(strings.Repeat("https://a.example/\n", MaxEntries)))
	if err != nil || len(entries) != MaxEntries {
		t.Errorf("MaxEntries lines: %d entries, %v", len(entries), err)
	}
	opml := "<opml><body>\n" + strings.Repeat("<outline xmlUrl=\"https://a.example/\"/>\n", 5) + "</body></opml>"
	l, err := parse(strings.NewReader(opml), limits{inputBytes: int64(len(opml)), entries: 5})
	entries = l.Entries
	if err != nil || len(entries) != 5 {
		t.Errorf("5 outlines with limits of 5 and %d bytes: %d entries, %v", len(opml), len(entries), err)
	}
	input := "https://a.example/\n" + strings.Repeat("#", MaxInputBytes-len("https://a.example/\n"))
	entries, err = Parse(strings.NewReader(input))
	if err != nil || len(entries) != 1 {
		t.Errorf("MaxInputBytes bytes: %d entries, %v", len(entries), err)
	}
}

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want string // "" for accepted, else a part of the reason
	}{
		{"https://example.com", ""},
		{"http://example.com:8080/a?b#c", ""},
		{"HTTPS://EXAMPLE.COM/", ""},
		{"http://[::1]/", ""},
		{"", "empty"},
		{"example.com", "did you mean https://example.com"},
		{"/a/b", "not an absolute URL"},
		{"//example.com/a", "not an absolute URL"},
		{"ftp://example.com/", `scheme "ftp"`},
		{"javascript:alert(1)", `scheme "javascript"`},
		{"http:example.com", "no host"},
		{"http:///a", "no host"},
		{"http://:80/", "no host"},
		{"http://a b/", "whitespace"},
		{"http://a.com/%zz", "unparsable"},
		{"http://[::1/", "unparsable"},
		// User information, in every spelling, is refused, and the reason
		// never repeats the password.
		{"http://u:pw@host.example/", "user name or password"},
		{"http://u@host.example/", "user name or password"},
		{"http://:pw@host.example/", "user name or password"},
		{"http://@host.example/", "user name or password"},
		{"https://u:@host.example/a", "add https://host.example/a instead"},
		{"http://u%40x:p%3Aw@host.example/", "user name or password"},
		// Ports: 1 to 65535, digits only.
		{"http://x.example:1/", ""},
		{"http://x.example:65535/", ""},
		{"http://x.example:0080/", ""},
		{"http://x.example:0/", "invalid port \"0\""},
		{"http://x.example:00/", "invalid port"},
		{"http://x.example:65536/", "invalid port \"65536\""},
		{"http://x.example:99999/", "from 1 to 65535"},
		{"http://x.example:99999999999999999999/", "invalid port"},
		{"http://x.example:abc/", "invalid port"},
		{"http://x.example:-1/", "invalid port"},
		{"http://[::1]:0/", "invalid port"},
		{"http://x.example:/", ""}, // an empty port is the default one
	} {
		err := CheckURL(c.raw)
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("CheckURL(%q) = %v: repeats the password", c.raw, err)
		}
		if userinfo := strings.Contains(c.raw, "@"); userinfo != errors.Is(err, ErrUserinfo) {
			t.Errorf("CheckURL(%q) = %v: errors.Is(ErrUserinfo) = %v, want %v", c.raw, err, !userinfo, userinfo)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckURL(%q) = %v, want nil", c.raw, err)
		case c.want != "" && err == nil:
			t.Errorf("CheckURL(%q) = nil, want %q", c.raw, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("CheckURL(%q) = %v, want %q", c.raw, err, c.want)
		}
	}
}

func TestSourceURL(t *testing.T) {
	for _, c := range []struct{ raw, want, err string }{
		{"https://a.example", "https://a.example/", ""},
		{"HTTPS://a.example/blog", "https://a.example/blog", ""},
		{"http://a.example:8080", "http://a.example:8080/", ""},
		{"http://u:pw@a.example/", "", "user name or password"},
		{"http://a.example:99999/", "", "invalid port"},
		{"ftp://a.example/", "", "not http or https"},
	} {
		got, err := SourceURL(c.raw)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("SourceURL(%q) = %q, %v; want %q", c.raw, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || got != ""):
			t.Errorf("SourceURL(%q) = %q, %v; want an error with %q", c.raw, got, err, c.err)
		}
	}
}

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"http://u:pw@a.example/": "http://u:xxxxx@a.example/",
		"http://u@a.example/":    "http://u@a.example/",
		"https://a.example/x":    "https://a.example/x",
		"http://u:pw@a b/%zz":    "(URL not shown: it may hold a password)",
		"http://a.example/%zz":   "http://a.example/%zz",
		"mailto:someone@example": "mailto:someone@example",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// A list entry with a password is rejected, and the entry keeps the URL
// without it.
func TestParseRejectsUserinfo(t *testing.T) {
	in := "http://u:secret@a.example/\n<not xml>\n"
	entries, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || !errors.Is(entries[0].Err, ErrUserinfo) || strings.Contains(entries[0].URL, "secret") {
		t.Fatalf("entries = %+v", entries)
	}
	opml := `<opml><body><outline text="x" htmlUrl="https://u:secret@b.example/" xmlUrl="https://u:secret@b.example/feed"/></body></opml>`
	entries, err = Parse(strings.NewReader(opml))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !errors.Is(entries[0].Err, ErrUserinfo) || strings.Contains(entries[0].URL, "secret") || strings.Contains(entries[0].Err.Error(), "secret") {
		t.Fatalf("OPML entries = %+v", entries)
	}
}

func TestDedup(t *testing.T) {
	data, err := os.ReadFile("testdata/list.txt")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	unique, repeats := Dedup(entries)
	var got []string
	for _, r := range repeats {
		got = append(got, fmt.Sprintf("%d %s (first %d)", r.Line, r.URL, r.FirstLine))
	}
	want := []string{
		"6 https://jvns.ca/ (first 2)",
		"17 https://danluu.com (first 4)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("repeats:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(unique)+len(repeats) != len(entries) {
		t.Errorf("%d unique + %d repeats != %d entries", len(unique), len(repeats), len(entries))
	}
	for i := 1; i < len(unique); i++ {
		if unique[i].Line <= unique[i-1].Line {
			t.Errorf("unique entries out of order: line %d after %d", unique[i].Line, unique[i-1].Line)
		}
	}
	// The same site in an OPML export (case of the host, a missing "/").
	nnw, err := os.ReadFile("testdata/netnewswire.opml")
	if err != nil {
		t.Fatal(err)
	}
	entries, err = Parse(bytes.NewReader(nnw))
	if err != nil {
		t.Fatal(err)
	}
	if _, repeats := Dedup(entries); len(repeats) != 1 || repeats[0].Title != "Daring Fireball again" || repeats[0].FirstLine != 8 {
		t.Errorf("NetNewsWire repeats = %+v, want Daring Fireball again, first on line 8", repeats)
	}
}

// FuzzParse checks what must hold for any input: no panic, entries in line
// order within the input's lines, an Err or a valid URL on each, and Feed
// always valid when set.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if strings.HasSuffix(name, ".golden") {
			continue
		}
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("<opml><outline xmlUrl='https://a/'><outline htmlUrl='http://b'/></outline></opml>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Parse(bytes.NewReader(data))
		if err != nil {
			if entries != nil {
				t.Fatalf("entries returned with error %v", err)
			}
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		prev := 0
		for _, e := range entries {
			if e.Line < 1 || e.Line > lines || e.Line < prev {
				t.Fatalf("entry line %d (previous %d, %d lines)", e.Line, prev, lines)
			}
			prev = e.Line
			if e.Err == nil && CheckURL(e.URL) != nil {
				t.Fatalf("accepted entry with bad URL %q: %v", e.URL, CheckURL(e.URL))
			}
			if e.Feed != "" && CheckURL(e.Feed) != nil {
				t.Fatalf("bad feed URL %q kept: %v", e.Feed, CheckURL(e.Feed))
			}
		}
		Dedup(entries)
	})
}

// TestParseMalformed reads the OPML documents of testdata/malformed, each
// not well-formed XML (or in an encoding the XML decoder does not read) in
// a way real exports are, and compares what ParseList makes of them with
// the .golden file beside each: whether and where the document was found
// malformed, then the entries as TestParseFixtures renders them. The
// golden files were checked by hand; -update rewrites them.
func TestParseMalformed(t *testing.T) {
	files, err := filepath.Glob("testdata/malformed/*.opml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			l, err := ParseList(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("ParseList: %v", err)
			}
			head := "well-formed\n"
			if l.Malformed != nil {
				head = fmt.Sprintf("malformed: %v\n", l.Malformed)
			}
			got := head + render(l.Entries)
			golden := name + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("differs from %s\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}
