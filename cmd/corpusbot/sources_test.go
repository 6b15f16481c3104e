package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/store"
)

// sourceList is a plain list with good lines, repeats (one spelled
// differently), lines to skip and bad lines.
const sourceList = `# my blogs
https://a.example/

https://b.example/blog/
https://A.example
ftp://c.example/
not a url
https://b.example/blog/
  https://d.example  
`

// sourceOPML nests subscriptions in a category, as feed readers do: a site
// with its feed, a feed alone, a repeat of the list's site, an outline with
// a bad URL and one that names none.
const sourceOPML = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>Subscriptions</title></head>
  <body>
    <outline text="Blogs" title="Blogs">
      <outline type="rss" text="E" xmlUrl="https://e.example/feed.xml" htmlUrl="https://e.example/"/>
      <outline type="rss" text="F" xmlUrl="https://f.example/atom.xml"/>
      <outline type="rss" text="A again" xmlUrl="https://a.example/feed" htmlUrl="https://a.example/"/>
      <outline type="rss" text="Bad" xmlUrl="javascript:alert(1)"/>
      <outline type="rss" text="Nothing"/>
    </outline>
  </body>
</opml>
`

func storedSources(t *testing.T, dbPath string) []string {
	t.Helper()
	ctx := context.Background()
	s := config.Defaults()
	s.DB = dbPath
	st, err := app.OpenStore(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var urls []string
	if err := st.EachSource(ctx, func(s store.Source) error { urls = append(urls, s.URL); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(urls)
	return urls
}

func TestSourcesAddFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}

	out, errOut, code := runCLI(t, nil, env, "sources", "add", "--file", writeFile(t, "list.txt", sourceList))
	if code != 0 {
		t.Fatalf("list: %d %s", code, errOut)
	}
	want := `added https://a.example/
added https://b.example/blog/
known https://a.example/
rejected line 6: scheme "ftp" is not http or https
rejected line 7: URL contains whitespace
known https://b.example/blog/
added https://d.example/
3 added, 2 known, 2 rejected
`
	if out != want {
		t.Errorf("list output:\n%s\nwant:\n%s", out, want)
	}

	out, errOut, code = runCLI(t, nil, env, "sources:add", "--file", writeFile(t, "subs.opml", sourceOPML))
	if code != 0 {
		t.Fatalf("OPML: %d %s", code, errOut)
	}
	want = `added https://e.example/
added https://f.example/atom.xml
known https://a.example/
rejected line 9: xmlUrl: scheme "javascript" is not http or https
rejected line 10: outline has no xmlUrl or htmlUrl
2 added, 1 known, 2 rejected
`
	if out != want {
		t.Errorf("OPML output:\n%s\nwant:\n%s", out, want)
	}

	if got, wantSrc := storedSources(t, db), []string{"https://a.example/", "https://b.example/blog/",
		"https://d.example/", "https://e.example/", "https://f.example/atom.xml"}; !slices.Equal(got, wantSrc) {
		t.Errorf("stored %v, want %v", got, wantSrc)
	}
}

func TestSourcesAddStdin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	out, errOut, code := runCLI(t, strings.NewReader("https://a.example\nhttps://g.example/\n"), env, "sources", "add", "--file", "-")
	if code != 0 || out != "added https://a.example/\nadded https://g.example/\n2 added, 0 known, 0 rejected\n" {
		t.Fatalf("stdin: %d %q %s", code, out, errOut)
	}
	// The positional form agrees that these are known.
	out, _, code = runCLI(t, nil, env, "sources", "add", "https://g.example")
	if code != 0 || out != "known https://g.example/\n" {
		t.Fatalf("positional after --file: %d %q", code, out)
	}
	// An OPML document on one line: entries share a line number, and each
	// still gets its own line of output, in order.
	oneLine := `<opml version="2.0"><body><outline xmlUrl="https://x.example/f"/><outline xmlUrl="https://x.example/f"/>` +
		`<outline xmlUrl="https://y.example/f"/><outline xmlUrl="https://a.example/"/></body></opml>`
	out, _, code = runCLI(t, strings.NewReader(oneLine), env, "sources", "add", "--file", "-")
	if want := "added https://x.example/f\nknown https://x.example/f\nadded https://y.example/f\nknown https://a.example/\n" +
		"2 added, 2 known, 0 rejected\n"; code != 0 || out != want {
		t.Fatalf("one-line OPML: %d %q, want %q", code, out, want)
	}
	// Empty input: nothing to add, and not an error.
	out, _, code = runCLI(t, strings.NewReader(""), env, "sources", "add", "--file", "-")
	if code != 0 || out != "0 added, 0 known, 0 rejected\n" {
		t.Fatalf("empty stdin: %d %q", code, out)
	}
}

// TestSourcesAddFileUnreadable: a whole input that cannot be read fails,
// prints no entry line and adds nothing; rejected lines alone do not fail.
func TestSourcesAddFileUnreadable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	env := map[string]string{"CORPUSBOT_DB": db}
	for name, args := range map[string][]string{
		"missing file": {"sources", "add", "--file", filepath.Join(t.TempDir(), "none.txt")},
		// Malformed OPML is read outline by outline; with no outline
		// naming a URL, nothing can be read.
		"malformed OPML": {"sources", "add", "--file", writeFile(t, "bad.opml",
			`<opml version="2.0"><body><outline text="a < b"/><<<</body>`)},
		"XML, not OPML": {"sources", "add", "--file", writeFile(t, "rss.xml", `<rss version="2.0"><channel/></rss>`)},
	} {
		out, errOut, code := runCLI(t, nil, env, args...)
		if code != exitFailure || out != "" || errOut == "" {
			t.Errorf("%s: %d %q %q, want exit 1 with an error and no output", name, code, out, errOut)
		}
	}
	if _, err := os.Stat(db); err == nil {
		if got := storedSources(t, db); len(got) != 0 {
			t.Errorf("unreadable inputs added %v", got)
		}
	}
	out, _, code := runCLI(t, strings.NewReader("nope\n"), env, "sources", "add", "--file", "-")
	if code != 0 || !strings.HasSuffix(out, "0 added, 0 known, 1 rejected\n") {
		t.Errorf("only rejected lines: %d %q", code, out)
	}
	if _, errOut, code := runCLI(t, nil, env, "sources", "add", "--file", "-", "https://a.example/"); code != exitUsage || errOut == "" {
		t.Errorf("--file with URLs: %d, want a usage error", code)
	}
}
