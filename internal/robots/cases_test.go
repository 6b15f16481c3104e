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
	wants, err := filepath.Glob("testdata/cases/*.want")
	if err != nil || len(wants) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, wantPath := range wants {
		name := strings.TrimSuffix(filepath.Base(wantPath), ".want")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(strings.TrimSuffix(wantPath, ".want") + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			runCase(t, Parse(body), want)
		})
	}
}

func runCase(t *testing.T, file *File, want []byte) {
	t.Helper()
	rules := file.For("CorpusBot")
	var sitemaps []string
	sc := bufio.NewScanner(bytes.NewReader(want))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "agent:":
			rules = file.For(fields[1])
		case "sitemap:":
			sitemaps = append(sitemaps, fields[1])
		case "crawl-delay:":
			got, ok := rules.CrawlDelay()
			if fields[1] == "none" {
				if ok {
					t.Errorf("want line %d: crawl-delay %v, want none", n, got)
				}
				continue
			}
			d, err := time.ParseDuration(fields[1])
			if err != nil {
				t.Fatalf("want line %d: %v", n, err)
			}
			if !ok || got != d {
				t.Errorf("want line %d: crawl-delay %v (set %v), want %v", n, got, ok, d)
			}
		case "ALLOWED", "DISALLOWED":
			wantLine := 0
			if len(fields) == 4 && fields[2] == "line" {
				wantLine, _ = strconv.Atoi(fields[3])
			}
			d := rules.Decide(fields[1])
			if d.Allowed != (fields[0] == "ALLOWED") || d.Line != wantLine {
				t.Errorf("want line %d: %s gives allowed=%v by %q on line %d; want %s on line %d",
					n, fields[1], d.Allowed, d.Rule(), d.Line, fields[0], wantLine)
			}
		default:
			t.Fatalf("want line %d: cannot read %q", n, line)
		}
	}
	if got := file.Sitemaps(); strings.Join(got, " ") != strings.Join(sitemaps, " ") {
		t.Errorf("sitemaps %q, want %q", got, sitemaps)
	}
}
