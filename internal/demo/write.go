package demo

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Write prints the report for an operator: per day a table of requests by
// kind for both crawlers, the per-post figures and the ratio, then what
// corpusbot declined to fetch and why, what its store holds, each source's
// gaps and the servers' verdict on its politeness.
func (r *Report) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("corpusbot demo: %d simulated blogs, %d simulated days, all on loopback (no network used)\n", r.Blogs, len(r.Days))
	p("Population on day 1: %s live posts, %s of them open to CorpusBot by robots.txt.\n", num(r.Posts), num(r.Allowed))
	p("Both crawlers obey the same robots.txt group; each crawls its own identical copy of the web.\n")
	p("Every figure is counted by the simulated servers, not by the crawlers.\n")
	for _, d := range r.Days {
		p("\n")
		r.writeDay(p, d)
	}

	p("\nRequests corpusbot chose not to send (no connection made), all days\n")
	notSent := map[string]int{}
	for _, d := range r.Days {
		for k, n := range d.BotNotSent {
			notSent[k] += n
		}
	}
	if len(notSent) == 0 {
		p("  none\n")
	}
	for _, k := range sortedKeys(notSent) {
		p("  %-52s %8s\n", k, num(notSent[k]))
	}

	f := r.Findings
	p("\nWhat corpusbot's store holds at the end (%s)\n", r.DB)
	p("  posts:    %s\n", counts(f.PostStates))
	p("  feeds:    %s\n", counts(f.FeedStates))
	p("  sitemaps: %s (indexes and their children included)\n", num(f.Sitemaps))
	if f.Children > 0 {
		p("  SITEMAP_RECHECK (%s): %s child sitemaps of %d sites are read again at least that often, though their\n"+
			"  index says nothing changed, so that a removal is seen: at most %.1f requests a week, %.1f per such site\n"+
			"  (conditional: an unchanged child costs a 304)\n",
			humanDays(f.Recheck), num(f.Children), f.ChildSites, f.RecheckPerWeek(), f.RecheckPerWeek()/float64(f.ChildSites))
	}

	p("\nGaps, source by source (what the coverage page shows)\n")
	width := 0
	for _, g := range f.Gaps {
		width = max(width, len(host(g.Source)))
	}
	for _, g := range f.Gaps {
		p("  %-*s  %s\n", width, host(g.Source), strings.Join(g.Reasons, "; "))
	}

	disallowed := 0
	for _, d := range r.Days {
		disallowed += d.BotDisallowedRequested
	}
	p("\nRequests corpusbot sent for URLs robots.txt disallows it (each blog's own rules): %d\n", disallowed)
	p("Politeness, checked by the servers over every request of every day: ")
	if len(r.Violations) == 0 {
		p("0 violations.\n  (one request at a time per site; gaps of at least MIN_GAP or the Crawl-delay; robots.txt first on\n" +
			"  every host; nothing robots.txt disallows requested; the exact User-Agent; no cookies)\n")
	} else {
		p("%d VIOLATIONS\n", len(r.Violations))
		for i, v := range r.Violations {
			if i == 20 {
				p("  … and %d more\n", len(r.Violations)-i)
				break
			}
			p("  %s\n", v)
		}
	}
	p("\nSimulated %d days in %.1f s of wall time.\n", len(r.Days), r.Elapsed.Seconds())
	return bw.Flush()
}

func (r *Report) writeDay(p func(string, ...any), d Day) {
	if d.N == 1 {
		p("Day 1: every post is new to both crawlers (%s new-or-modified posts open to CorpusBot)\n", num(d.Changed))
	} else {
		p("Day %d: %s new, %s modified, %s removed posts overnight (%s new-or-modified open to CorpusBot)\n",
			d.N, num(d.New), num(d.Modified), num(d.Removed), num(d.Changed))
	}
	p("  %-24s %30s   %23s\n", "", "corpusbot", "naive crawler")
	p("  %-24s %9s %6s %6s %9s   %9s %6s %9s\n", "requests for", "requests", "304", "errors", "KiB", "requests", "errors", "KiB")
	row := func(label string, b, n Count) {
		p("  %-24s %9s %6s %6s %9s   %9s %6s %9s\n", label, num(b.Requests), num(b.NotModified), num(b.Errors), kib(b.Bytes),
			num(n.Requests), num(n.Errors), kib(n.Bytes))
	}
	for _, k := range Kinds {
		b, n := d.Bot.ByKind[k], d.Naive.ByKind[k]
		if b.Requests+n.Requests > 0 {
			row(string(k), b, n)
		}
	}
	row("total", d.Bot.Total, d.Naive.Total)
	p("  %-40s %12s %18s\n", "", "corpusbot", "naive crawler")
	p("  %-40s %12s %18s\n", "requests per new-or-modified post", dec(d.BotPerPost()), dec(d.NaivePerPost()))
	p("  %-40s %12s %18s\n", "post pages fetched per new-or-modified post", dec(d.BotPagesPerPost()), dec(d.NaivePagesPerPost()))
	p("  %-40s %12s %18s\n", "KiB per new-or-modified post", dec(float64(d.Bot.Total.Bytes)/1024/float64(max(1, d.Changed))),
		dec(float64(d.Naive.Total.Bytes)/1024/float64(max(1, d.Changed))))
	p("  %-40s %12s %18s\n", "new-or-modified posts picked up", fmt.Sprintf("%s of %s", num(d.BotSeen), num(d.Changed)),
		fmt.Sprintf("%s of %s", num(d.NaiveSeen), num(d.Changed)))
	if len(d.BotMissed) > 0 {
		p("  not picked up by corpusbot: %s\n", missed(d.BotMissed))
	}
	if d.N > 1 {
		p("  %-40s %12s %18s\n", "removed posts marked removed", fmt.Sprintf("%s of %s", num(d.BotRemovalsSeen), num(d.Removed)), "(not tracked)")
	}
	p("  => corpusbot: %s requests and %s bytes than the naive crawler (%s vs %s requests).\n",
		ratio(d.FewerRequests()), ratio(d.FewerBytes()), num(d.Bot.Total.Requests), num(d.Naive.Total.Requests))
}

// missed lists the blogs with posts corpusbot did not pick up, most first.
func missed(m map[string]int) string {
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := []string{}
	for i, k := range keys {
		if i == 6 {
			parts = append(parts, fmt.Sprintf("and %d more blogs", len(keys)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", k, num(m[k])))
	}
	return strings.Join(parts, ", ")
}

// ratio is a fraction saved in words: "98.7% fewer" or "12.0% more".
func ratio(fewer float64) string {
	if fewer >= 0 {
		return fmt.Sprintf("%.1f%% fewer", 100*fewer)
	}
	return fmt.Sprintf("%.1f%% more", -100*fewer)
}

func dec(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	if f >= 100 {
		return num(int(math.Round(f)))
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

func kib(b int64) string { return num(int((b + 512) / 1024)) }

// num writes n with thousands separators.
func num(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + num(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = num(m[k]) + " " + k
	}
	return strings.Join(parts, ", ")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// humanDays says a duration in days when it is whole days ("7 days"), as
// Go would otherwise ("168h0m0s").
func humanDays(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		n := int(d / (24 * time.Hour))
		if n == 1 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", n)
	}
	return d.String()
}
