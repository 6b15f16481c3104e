package robots_test

import (
	"testing"

	"github.com/temoto/robotstxt"

	"corpus.blog/corpusbot/robots"
)

// The benchmarks compare this package with github.com/temoto/robotstxt and
// github.com/jimsmart/grobotstxt (grobotstxt_test.go) on the corpora of
// bench_corpus_test.go. Names are BenchmarkParse/<corpus>/lib=<lib>
// and BenchmarkMatch/<corpus>/lib=<lib>, so that
//
//	benchstat -col /lib old.txt
//
// puts the two libraries side by side for each corpus.

var (
	sinkFile     *robots.File
	sinkTemoto   *robotstxt.RobotsData
	sinkDecision robots.Decision
	sinkBool     bool
)

// BenchmarkParse measures reading a whole file, bytes in, parsed file out.
func BenchmarkParse(b *testing.B) {
	for _, c := range benchCorpora(b) {
		b.Run(c.name+"/lib=corpusbot", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				sinkFile = robots.Parse(c.body)
			}
		})
		b.Run(c.name+"/lib=temoto", func(b *testing.B) {
			if _, err := robotstxt.FromBytes(c.body); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				sinkTemoto, _ = robotstxt.FromBytes(c.body)
			}
		})
		b.Run(c.name+"/lib=grobotstxt", func(b *testing.B) { benchGrobotstxtParse(b, c.body) })
	}
}

// BenchmarkMatch measures one decision: the file is parsed and the crawler's
// group selected once, outside the timer, and each iteration decides one path
// of urls.txt, cycling through them, so ns/op is the cost of one match.
func BenchmarkMatch(b *testing.B) {
	paths := benchPaths(b)
	for _, c := range benchCorpora(b) {
		b.Run(c.name+"/lib=corpusbot", func(b *testing.B) {
			rs := robots.Parse(c.body).For(benchAgent)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkDecision = rs.Decide(paths[i])
				if i++; i == len(paths) {
					i = 0
				}
			}
		})
		b.Run(c.name+"/lib=temoto", func(b *testing.B) {
			data, err := robotstxt.FromBytes(c.body)
			if err != nil {
				b.Fatal(err)
			}
			g := data.FindGroup(benchAgent)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkBool = g.Test(paths[i])
				if i++; i == len(paths) {
					i = 0
				}
			}
		})
		b.Run(c.name+"/lib=grobotstxt", func(b *testing.B) { benchGrobotstxtMatch(b, c.body, paths) })
	}
}

// TestBenchCorpusAIBots checks that the block list does what it says in both
// libraries: GPTBot may fetch none of the benchmark's paths, while CorpusBot,
// named by no group, obeys the short "*" group.
func TestBenchCorpusAIBots(t *testing.T) {
	var body []byte
	for _, c := range benchCorpora(t) {
		if c.name == "aibots" {
			body = c.body
		}
	}
	f := robots.Parse(body)
	data, err := robotstxt.FromBytes(body)
	if err != nil {
		t.Fatalf("temoto: %v", err)
	}
	gpt := f.For("GPTBot")
	if gpt.Source() != robots.SourceNamed {
		t.Fatalf("GPTBot obeys %v rules, want its own group", gpt.Source())
	}
	theirs := data.FindGroup("GPTBot")
	for _, p := range benchPaths(t) {
		if d := gpt.Decide(p); d.Allowed || d.Rule() != "Disallow: /" {
			t.Errorf("corpusbot: GPTBot %q: allowed=%v by %q, want Disallow: /", p, d.Allowed, d.Rule())
		}
		if theirs.Test(p) {
			t.Errorf("temoto: GPTBot %q allowed", p)
		}
	}
	ours := f.For(benchAgent)
	if ours.Source() != robots.SourceWildcard {
		t.Fatalf("%s obeys %v rules, want the * group", benchAgent, ours.Source())
	}
	for p, want := range map[string]bool{"/2024/01/09/hello-world/": true, "/wp-admin/": false, "/wp-admin/admin-ajax.php": true} {
		if got := ours.Allowed(p); got != want {
			t.Errorf("corpusbot: %s %q allowed=%v, want %v", benchAgent, p, got, want)
		}
		if got := data.TestAgent(p, benchAgent); got != want {
			t.Errorf("temoto: %s %q allowed=%v, want %v", benchAgent, p, got, want)
		}
	}
}
