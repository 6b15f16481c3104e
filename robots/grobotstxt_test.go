package robots_test

import (
	"testing"

	"github.com/jimsmart/grobotstxt"
)

// github.com/jimsmart/grobotstxt is a line-by-line Go port of Google's C++
// robots.txt library, the reference this package is checked against. Its
// only matching API parses the file on every decision (AgentAllowed); the
// parse-only figure uses its callback parser with handlers that do nothing.
// BenchmarkParse and BenchmarkMatch (bench_test.go) run these as their
// …/lib=grobotstxt cases, for benchstat -col /lib.

type nopHandler struct{}

func (nopHandler) HandleRobotsStart()                      {}
func (nopHandler) HandleRobotsEnd()                        {}
func (nopHandler) HandleUserAgent(int, string)             {}
func (nopHandler) HandleAllow(int, string)                 {}
func (nopHandler) HandleDisallow(int, string)              {}
func (nopHandler) HandleSitemap(int, string)               {}
func (nopHandler) HandleUnknownAction(int, string, string) {}

// benchGrobotstxtParse is BenchmarkParse's grobotstxt case: its callback
// parser with handlers that keep nothing, so it builds no rule set at all.
func benchGrobotstxtParse(b *testing.B, raw []byte) {
	body := string(raw)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		grobotstxt.Parse(body, nopHandler{})
	}
}

// benchGrobotstxtMatch is BenchmarkMatch's grobotstxt case: one decision,
// which in its API includes parsing the file again.
func benchGrobotstxtMatch(b *testing.B, raw []byte, paths []string) {
	body := string(raw)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkBool = grobotstxt.AgentAllowed(body, benchAgent, "http://example.com"+paths[i])
		if i++; i == len(paths) {
			i = 0
		}
	}
}
