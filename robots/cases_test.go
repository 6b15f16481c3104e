package robots

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCases runs every testdata/cases/NAME.txt robots file against the
// expectations in NAME.want. A .want file is a list of lines:
//
//	agent: TOKEN                   the crawler asking from here on (default CorpusBot)
//	ALLOWED|DISALLOWED URL [line N] the decision, and the deciding line (none: no rule matched)
//	crawl-delay: DURATION|none      the delay the current agent obeys
//	sitemap: URL                    the file's sitemaps, all of them, in order
func TestCases(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) { runCase(t, Parse(c.body), c.expect) })
	}
}

// fixture is one robots file of testdata/cases with its expectations.
type fixture struct {
	name   string
	body   []byte
	expect []expectation
}

func loadCases(t *testing.T) []fixture {
	t.Helper()
	wants, err := filepath.Glob("testdata/cases/*.want")
	if err != nil || len(wants) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var out []fixture
	for _, wantPath := range wants {
		body, err := os.ReadFile(strings.TrimSuffix(wantPath, ".want") + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(wantPath)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(wantPath), ".want")
		out = append(out, fixture{name: name, body: body, expect: readExpectations(t, want)})
	}
	return out
}

// expectation is one line of a .want file, with the agent in force there.
type expectation struct {
	line  int
	agent string
	kind  string // "ALLOWED", "DISALLOWED", "crawl-delay:" or "sitemap:"
	arg   string // the URL, the duration or "none", or the sitemap
	rule  int    // the deciding line for ALLOWED and DISALLOWED; 0 for none
}

func readExpectations(t *testing.T, want []byte) []expectation {
	t.Helper()
	var out []expectation
	agent := "CorpusBot"
	sc := bufio.NewScanner(bytes.NewReader(want))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case fields[0] == "agent:" && len(fields) == 2:
			agent = fields[1]
		case (fields[0] == "sitemap:" || fields[0] == "crawl-delay:") && len(fields) == 2:
			out = append(out, expectation{line: n, agent: agent, kind: fields[0], arg: fields[1]})
		case (fields[0] == "ALLOWED" || fields[0] == "DISALLOWED") && (len(fields) == 2 || len(fields) == 4 && fields[2] == "line"):
			e := expectation{line: n, agent: agent, kind: fields[0], arg: fields[1]}
			if len(fields) == 4 {
				e.rule, _ = strconv.Atoi(fields[3])
			}
			out = append(out, e)
		default:
			t.Fatalf("want line %d: cannot read %q", n, line)
		}
	}
	return out
}

func runCase(t *testing.T, file *File, expect []expectation) {
	t.Helper()
	var sitemaps []string
	for _, e := range expect {
		rules := file.For(e.agent)
		switch e.kind {
		case "sitemap:":
			sitemaps = append(sitemaps, e.arg)
		case "crawl-delay:":
			got, ok := rules.CrawlDelay()
			if e.arg == "none" {
				if ok {
					t.Errorf("want line %d: crawl-delay %v, want none", e.line, got)
				}
				continue
			}
			d, err := time.ParseDuration(e.arg)
			if err != nil {
				t.Fatalf("want line %d: %v", e.line, err)
			}
			if !ok || got != d {
				t.Errorf("want line %d: crawl-delay %v (set %v), want %v", e.line, got, ok, d)
			}
		default:
			d := rules.Decide(e.arg)
			if d.Allowed != (e.kind == "ALLOWED") || d.Line != e.rule {
				t.Errorf("want line %d: %s gives allowed=%v by %q on line %d; want %s on line %d",
					e.line, e.arg, d.Allowed, d.Rule(), d.Line, e.kind, e.rule)
			}
		}
	}
	if got := file.Sitemaps(); strings.Join(got, " ") != strings.Join(sitemaps, " ") {
		t.Errorf("sitemaps %q, want %q", got, sitemaps)
	}
}
