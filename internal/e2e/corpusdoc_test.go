package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/binarytest"
	"corpus.blog/corpusbot/internal/simweb"
)

// docs/corpus.md tells a researcher how to read an export with jq, pandas
// and DuckDB. Every fenced block of it whose info string holds "test"
// (```sh test needs=jq, ```python test, ```js test) is run here, as
// written, in the directory of a real export (posts.jsonl, posts.parquet
// and the database corpusbot.db, from a crawl of two simulated blogs), and
// must exit 0 and print exactly the ```output block that follows it in the
// doc. A snippet whose tool is missing is skipped, unless
// CORPUSBOT_TEST_DOC_TOOLS=required (as .ci/run sets): then it fails.
//
// The tools: jq and corpusbot (the built binary) on PATH for sh; a python3
// with pandas for python (CORPUSBOT_TEST_PYTHON, else python3 on PATH, else
// /usr/bin/python3, Debian's, where python3-pandas installs); node with
// the npm package @duckdb/node-api installed in CORPUSBOT_TEST_DUCKDB (a
// directory holding node_modules) for js, run as a .mjs script beside the
// export with node_modules linked there, as the doc says to install it.

const (
	docHostDE = "203.0.113.81" // Annas Blog: metadata in the pages, an RSS feed of summaries
	docHostEN = "203.0.113.82" // Field Notes: a JSON Feed with full texts
)

// docSnippet is one fenced block of the doc to run, with the output it
// must print.
type docSnippet struct {
	line   int // of its opening fence, 1-based
	lang   string
	needs  []string
	code   string
	output string
}

// parseDocSnippets reads the test blocks of a Markdown document: every
// fenced block whose info string has the word "test", each followed (prose
// between allowed) by a block whose info string is "output".
func parseDocSnippets(doc string) ([]docSnippet, error) {
	type block struct {
		line       int
		info, body string
	}
	var blocks []block
	var cur *block
	var body strings.Builder
	sc := bufio.NewScanner(strings.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if cur == nil {
			if info, ok := strings.CutPrefix(l, "```"); ok {
				cur = &block{line: n, info: strings.TrimSpace(info)}
				body.Reset()
			}
			continue
		}
		if strings.TrimSpace(l) == "```" {
			cur.body = body.String()
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body.WriteString(l + "\n")
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: a fenced block is never closed", cur.line)
	}
	var out []docSnippet
	for i, b := range blocks {
		fields := strings.Fields(b.info)
		if len(fields) < 2 || fields[1] != "test" {
			continue
		}
		s := docSnippet{line: b.line, lang: fields[0], code: b.body}
		for _, f := range fields[2:] {
			v, ok := strings.CutPrefix(f, "needs=")
			if !ok {
				return nil, fmt.Errorf("line %d: %q in the info string: want needs=TOOL[,TOOL]", b.line, f)
			}
			s.needs = strings.Split(v, ",")
		}
		if i+1 >= len(blocks) || blocks[i+1].info != "output" {
			return nil, fmt.Errorf("line %d: a ```%s block is not followed by an ```output block", b.line, b.info)
		}
		s.output = blocks[i+1].body
		out = append(out, s)
	}
	return out, nil
}

// docBlogPage is a post's page on Annas Blog, with the metadata the record
// takes from a page.
func docBlogPage(title, body string) string {
	return `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>` + title + `</title>
<meta name="author" content="Anna Schmidt">
<meta name="description" content="Ein Bericht aus Annas Blog.">
<meta property="og:site_name" content="Annas Blog">
<meta property="og:image" content="/bilder/titel.jpg">
<meta property="article:tag" content="Wandern">
<meta property="article:tag" content="Harz">
<link rel="license" href="https://creativecommons.org/licenses/by/4.0/">
</head><body><article><h1>` + title + `</h1>` + body + `</article></body></html>`
}

const (
	tidePoolsText = `<p>At low tide the rocks below the lighthouse turn into a garden. We counted three kinds of anemone, a small green crab that would not leave its crack, and a sea star the colour of a ripe apricot. The children kept a list in a waterproof notebook, and by noon it ran to two pages.</p>
<p>The water comes back quickly on this part of the coast, so we watched the clock and left the lowest pools before the channel filled. Next month the tides are lower still, and we plan to come back with a field guide and a better camera.</p>`
	lighthouseText = `<p>The lighthouse keeper's cottage is now a small museum with a stove, a logbook and a brass lamp that still turns when the guide winds it. The logbook records every ship that passed in the winter of 1911, with the weather in a careful hand.</p>
<p>From the gallery you can see the whole bay and, on a clear day, the island where the first light stood. The stairs are narrow and steep, one hundred and twelve of them, and the view at the top is worth every one.</p>`
)

// docFieldNotesFeed is Field Notes' JSON Feed: full texts, authors, tags
// and a language, so that its posts' records come from the feed.
func docFieldNotesFeed(h *simweb.Host) string {
	item := func(path, title, date, tag, html string) string {
		return fmt.Sprintf(`{"id":%q,"url":%q,"title":%q,"date_published":%q,"authors":[{"name":"Sam Rivera"}],"tags":["coast",%q],"content_html":%q}`,
			h.URL(path), h.URL(path), title, date, tag, html)
	}
	return `{"version":"https://jsonfeed.org/version/1.1","title":"Field Notes","home_page_url":"` + h.URL("/") +
		`","language":"en","items":[` +
		item("/2026/11/tide-pools/", "Tide pools", "2026-11-03T09:00:00Z", "tides", tidePoolsText) + "," +
		item("/2026/11/lighthouse/", "The lighthouse", "2026-11-04T09:00:00Z", "history", lighthouseText) + `]}`
}

// docExports are the commands that make the export the doc's snippets
// read, as the doc gives them.
var docExports = [][]string{
	{"corpusbot", "export", "--text", "--output", "posts.jsonl"},
	{"corpusbot", "export", "--format", "parquet", "--output", "posts.parquet"},
}

// docCorpus crawls the two blogs with the built binary and exports them as
// the doc says (posts.jsonl with texts, posts.parquet); it returns the
// environment, whose directory holds both and the database.
func docCorpus(t *testing.T) *binarytest.Env {
	t.Helper()
	web := simweb.New()
	t.Cleanup(web.Close)

	de := web.Host(docHostDE)
	de.Robots("User-agent: *\nAllow: /\n")
	de.Put("/", "text/html; charset=utf-8", `<!doctype html><html lang="de"><head><title>Annas Blog</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><p>Ein Blog.</p></body></html>`)
	de.Put("/posts/1/", "text/html; charset=utf-8", docBlogPage("Wandern im Harz", hikeText))
	de.Put("/posts/2/", "text/html; charset=utf-8", docBlogPage("Roggenbrot", breadText))
	de.Put("/posts/3/", "text/html; charset=utf-8", docBlogPage("Roggenbrot, noch einmal", breadText))
	de.Put("/feed.xml", "application/rss+xml", recordFeed(de, ""))

	en := web.Host(docHostEN)
	en.Robots("User-agent: *\nAllow: /\n")
	en.Put("/", "text/html; charset=utf-8", `<!doctype html><html lang="en"><head><title>Field Notes</title>
<link rel="alternate" type="application/feed+json" href="/feed.json"></head><body><p>Notes from the coast.</p></body></html>`)
	en.Put("/feed.json", "application/feed+json", docFieldNotesFeed(en))
	for _, p := range []struct{ path, title, body string }{
		{"/2026/11/tide-pools/", "Tide pools", tidePoolsText},
		{"/2026/11/lighthouse/", "The lighthouse", lighthouseText},
	} {
		en.Put(p.path, "text/html; charset=utf-8", `<!doctype html><html lang="en"><head><title>`+p.title+`</title></head><body><article><h1>`+
			p.title+`</h1>`+p.body+`</article></body></html>`)
	}

	env := binarytest.NewEnv(t).Proxy(t, web)
	addSources(t, env, docHostDE, docHostEN)
	if r := env.Run(t, 2*time.Minute, "run", "--once"); r.Code != 0 {
		t.Fatalf("run --once: %d %s", r.Code, r.Stderr)
	}
	for _, c := range docExports {
		args := c[1:]
		if r := env.Run(t, time.Minute, args...); r.Code != 0 {
			t.Fatalf("%v: %d %s", args, r.Code, r.Stderr)
		}
	}
	return env
}

// docTools finds the tools the doc's snippets need; a missing one has the
// reason it is missing.
type docTools struct {
	bin      string // the built corpusbot
	python   string // a python3 that imports pandas
	duckdb   string // CORPUSBOT_TEST_DUCKDB, holding node_modules/@duckdb/node-api
	missing  map[string]string
	versions []string
}

func findDocTools(t *testing.T) *docTools {
	t.Helper()
	d := &docTools{bin: binarytest.Binary(t), missing: map[string]string{}}
	run := func(name string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if v, err := run("jq", "--version"); err != nil {
		d.missing["jq"] = "jq is not on PATH (Debian: apt-get install jq)"
	} else {
		d.versions = append(d.versions, v)
	}

	candidates := []string{os.Getenv("CORPUSBOT_TEST_PYTHON"), "python3", "/usr/bin/python3"}
	d.missing["pandas"] = "no python3 imports pandas (Debian: apt-get install python3-pandas; CORPUSBOT_TEST_PYTHON names one)"
	for _, py := range candidates {
		if py == "" {
			continue
		}
		if v, err := run(py, "-c", "import pandas, sys; print('python', sys.version.split()[0], 'pandas', pandas.__version__)"); err == nil {
			d.python = py
			delete(d.missing, "pandas")
			d.versions = append(d.versions, v+" ("+py+")")
			break
		}
	}

	d.duckdb = os.Getenv("CORPUSBOT_TEST_DUCKDB")
	switch node, err := run("node", "--version"); {
	case err != nil:
		d.missing["duckdb"] = "node is not on PATH"
	case d.duckdb == "":
		d.missing["duckdb"] = "CORPUSBOT_TEST_DUCKDB is not set (a directory where `npm install @duckdb/node-api` ran)"
	default:
		if _, err := os.Stat(filepath.Join(d.duckdb, "node_modules", "@duckdb", "node-api", "package.json")); err != nil {
			d.missing["duckdb"] = "CORPUSBOT_TEST_DUCKDB=" + d.duckdb + " holds no node_modules/@duckdb/node-api"
		} else {
			d.versions = append(d.versions, "node "+node+", @duckdb/node-api in "+d.duckdb)
		}
	}
	return d
}

// need skips (or, when the tools are required, fails) the snippet if a
// tool it needs is missing.
func (d *docTools) need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if tool == "corpusbot" {
			continue
		}
		why, missing := d.missing[tool]
		if _, known := map[string]bool{"jq": true, "pandas": true, "duckdb": true}[tool]; !known {
			t.Fatalf("needs=%s: unknown tool (jq, pandas, duckdb, corpusbot)", tool)
		}
		if !missing {
			continue
		}
		if os.Getenv("CORPUSBOT_TEST_DOC_TOOLS") == "required" {
			t.Fatalf("%s: %s (CORPUSBOT_TEST_DOC_TOOLS=required)", tool, why)
		}
		t.Skipf("%s: %s", tool, why)
	}
}

// TestCorpusDocSnippets runs docs/corpus.md's snippets against a real
// export and checks what each prints.
func TestCorpusDocSnippets(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "corpus.md"))
	if err != nil {
		t.Fatal(err)
	}
	snippets, err := parseDocSnippets(string(doc))
	if err != nil {
		t.Fatalf("docs/corpus.md: %v", err)
	}
	if len(snippets) == 0 {
		t.Fatal("docs/corpus.md has no test snippets")
	}
	// The export the snippets read is made here with the commands the
	// doc says made it.
	for _, c := range docExports {
		if !strings.Contains(string(doc), "\n"+strings.Join(c, " ")+"\n") {
			t.Errorf("docs/corpus.md does not give the export's command %q", strings.Join(c, " "))
		}
	}
	langs := map[string]bool{}
	for _, s := range snippets {
		langs[s.lang] = true
	}
	for _, l := range []string{"sh", "python", "js"} {
		if !langs[l] {
			t.Errorf("docs/corpus.md has no ```%s test snippet", l)
		}
	}

	tools := findDocTools(t)
	t.Logf("tools: %s", strings.Join(tools.versions, "; "))
	env := docCorpus(t)
	scripts := t.TempDir() // sh and python snippets are kept out of the export's directory
	if tools.duckdb != "" && tools.missing["duckdb"] == "" {
		// As the doc says: @duckdb/node-api installed where the scripts are.
		if err := os.Symlink(filepath.Join(tools.duckdb, "node_modules"), filepath.Join(env.Dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
	}

	// The snippets run in order, in one directory: a later one may read
	// what an earlier one wrote, as a reader following the doc would.
	for _, s := range snippets {
		t.Run(fmt.Sprintf("line%d_%s", s.line, s.lang), func(t *testing.T) {
			var cmd []string
			switch s.lang {
			case "sh":
				tools.need(t, s.needs...)
				file := filepath.Join(scripts, fmt.Sprintf("line%d.sh", s.line))
				docWriteFile(t, file, s.code)
				cmd = []string{"bash", "-e", "-o", "pipefail", file}
			case "python":
				tools.need(t, append([]string{"pandas"}, s.needs...)...)
				file := filepath.Join(scripts, fmt.Sprintf("line%d.py", s.line))
				docWriteFile(t, file, s.code)
				cmd = []string{tools.python, file}
			case "js":
				tools.need(t, append([]string{"duckdb"}, s.needs...)...)
				file := filepath.Join(env.Dir, fmt.Sprintf(".doc-line%d.mjs", s.line))
				docWriteFile(t, file, s.code)
				cmd = []string{"node", file}
			default:
				t.Fatalf("```%s test: no runner for %q (sh, python, js)", s.lang, s.lang)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
			c.Dir = env.Dir
			c.Env = []string{
				"PATH=" + filepath.Dir(tools.bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
				"HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8",
			}
			var stdout, stderr bytes.Buffer
			c.Stdout, c.Stderr = &stdout, &stderr
			err := c.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("%v: %v", cmd, err)
			}
			if err != nil {
				t.Fatalf("docs/corpus.md:%d exits %d\n--- code\n%s--- stdout\n%s--- stderr\n%s", s.line, exit.ExitCode(), s.code, stdout.String(), stderr.String())
			}
			if got, want := docNormaliseOutput(stdout.String()), docNormaliseOutput(s.output); got != want {
				t.Errorf("docs/corpus.md:%d prints\n%s\nthe doc says\n%s\n--- stderr\n%s", s.line, got, want, stderr.String())
			}
		})
	}
}

// docNormaliseOutput drops trailing spaces and trailing blank lines: what a
// reader of the doc cannot see.
func docNormaliseOutput(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

func docWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
