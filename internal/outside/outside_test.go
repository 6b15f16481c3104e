package outside

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// consumer is the outside module's program: what a Go programmer who
// imports the three packages would write, touching each main entry point.
// Its feed and sitemap dates go through the module's internal date parser,
// and its feed links through internal/entryurl, which the public packages
// import: an outside importer gets them transitively.
const consumer = `package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/robots"
	"corpus.blog/corpusbot/sitemap"
)

func main() {
	token := robots.ProductToken("OutsideBot/1.0 (+https://outside.example/bot)")
	rules := robots.Parse([]byte("User-agent: *\nDisallow: /\n\nUser-agent: outsidebot\nDisallow: /private/\nCrawl-delay: 2\n")).For(token)
	d := rules.Decide("https://blog.example/private/x?y=1")
	delay, _ := rules.CrawlDelay()
	v := robots.Decide(robots.Fetch{Status: 503}, nil, time.Time{}, time.Now(), robots.TTLs{Answer: time.Hour, Guess: time.Minute})
	fmt.Println("robots:", token, d.Allowed, d.Rule(), d.Line, rules.Allowed("/public"), delay, v.State, v.For(token).Allowed("/public"))

	doc := "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">" +
		"<url><loc>https://blog.example/a</loc><lastmod>2026-12-01T10:00:00+01:00</lastmod></url>" +
		"<url><loc>not a URL</loc></url></urlset>"
	sum, err := sitemap.Read(strings.NewReader(doc), sitemap.Options{}, func(e sitemap.Entry) error {
		fmt.Println("sitemap:", e.Type, e.Loc, e.Lastmod.Format(time.RFC3339))
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("sitemap:", sum.Format, sum.URLs, sum.Skipped, sum.Whole())

	f, err := feed.Parse([]byte("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Outside</title>"+
		"<entry><title>Hello</title><link href=\"/2026/hello\"/><published>Tue, 01 Dec 2026 10:00:00 +0100</published></entry></feed>"),
		"https://blog.example/feed.atom")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	e := f.Entries[0]
	fmt.Println("feed:", f.Format, f.Title, e.Link, e.Published.Format(time.RFC3339))
	for _, l := range feed.Discover([]byte("<link rel=alternate type=application/atom+xml href=/feed.atom>"), "https://blog.example/") {
		fmt.Println("discover:", l.Type, l.URL)
	}
}
`

const want = `robots: OutsideBot false Disallow: /private/ 5 true 2s unreachable false
sitemap: url https://blog.example/a 2026-12-01T09:00:00Z
sitemap: urlset 1 1 true
feed: atom Outside https://blog.example/2026/hello 2026-12-01T09:00:00Z
discover: application/atom+xml https://blog.example/feed.atom
`

// intruder imports one of the module's internal packages, which Go must
// refuse to build outside the module.
const intruder = `package intruder

import "corpus.blog/corpusbot/internal/dates"

var _, _ = dates.Parse("2026-12-01")
`

// TestOutsideModule builds and runs a module outside this one that requires
// corpus.blog/corpusbot through a replace directive pointing at this tree.
// Dependencies come from the module cache, or the module proxy the
// environment names; go.sum is this module's, which holds every checksum the
// outside module needs.
func TestOutsideModule(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: the outside module cannot be built")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ourMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(ourMod, []byte("module corpus.blog/corpusbot\n")) {
		t.Fatalf("%s is not the corpus.blog/corpusbot module", root)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(ourMod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/outside\n\n"+string(goLine)+"\n\n"+
		"require corpus.blog/corpusbot v0.0.0\n\n"+
		"replace corpus.blog/corpusbot => "+root+"\n")
	write("go.sum", string(sum))
	write("main.go", consumer)

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	goCmd := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = dir
		// -mod=mod lets the go command add the requirements the replaced
		// module brings (golang.org/x/net, x/text) to the outside go.mod;
		// GOWORK=off keeps any workspace of the environment out of it.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			return stdout.String(), &runError{args: args, err: err, stderr: stderr.String()}
		}
		return stdout.String(), nil
	}

	if _, err := goCmd("mod", "tidy"); err != nil {
		t.Fatal(err)
	}
	got, err := goCmd("run", ".")
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the outside program printed\n%s\nwant\n%s", got, want)
	}

	// The module's internal packages stay its own.
	write("intruder/intruder.go", intruder)
	_, err = goCmd("build", "./intruder")
	if err == nil {
		t.Fatal("an outside module built a package importing corpus.blog/corpusbot/internal/dates")
	}
	if !strings.Contains(err.Error(), "use of internal package corpus.blog/corpusbot/internal/dates not allowed") {
		t.Errorf("building the intruder failed for another reason than the internal import:\n%v", err)
	}
}

type runError struct {
	args   []string
	err    error
	stderr string
}

func (e *runError) Error() string {
	return "go " + strings.Join(e.args, " ") + ": " + e.err.Error() + "\n" + e.stderr
}
