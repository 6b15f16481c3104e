package web

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// chartTable reads the data table of one chart of a page: its rows'
// labels, the values of each row, and whether the chart says it has
// nothing to show.
func chartTable(t *testing.T, page, id string) (labels []string, values [][]int, empty bool, note string) {
	t.Helper()
	start := strings.Index(page, `<figure class="chart" id="`+id+`">`)
	if start < 0 {
		t.Fatalf("no chart %s", id)
	}
	fig := page[start:]
	fig = fig[:strings.Index(fig, "</figure>")]
	empty = strings.Contains(fig, "nothing to show yet")
	if m := regexp.MustCompile(`<span class="muted chart-note">([^<]*)</span>`).FindStringSubmatch(fig); m != nil {
		note = html.UnescapeString(m[1])
	}
	for _, row := range regexp.MustCompile(`<tr><th scope="row">([^<]*)</th>(.*?)</tr>`).FindAllStringSubmatch(fig, -1) {
		labels = append(labels, row[1])
		var vs []int
		for _, v := range regexp.MustCompile(`<td class="n">([^<]*)</td>`).FindAllStringSubmatch(row[2], -1) {
			n, err := strconv.Atoi(strings.ReplaceAll(v[1], ",", ""))
			if err != nil {
				t.Fatalf("%s: value %q", id, v[1])
			}
			vs = append(vs, n)
		}
		values = append(values, vs)
	}
	return labels, values, empty, note
}

// The coverage page's charts show the data's own time range, whatever the
// clock says: the store's data lies eight months and more before the
// clock (a demo on simulated dates, a crawl stopped long ago), or on the
// clock's own days. The month chart counts every indexed post, those
// with no published date by the month first seen.
func TestCoverageChartsFollowData(t *testing.T) {
	for _, dataNow := range []time.Time{testNow, time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC), time.Date(2031, 7, 4, 12, 0, 0, 0, time.UTC)} {
		t.Run(dataNow.Format(time.DateOnly), func(t *testing.T) {
			r := newRigAt(t, dataNow)
			day := func(n int) time.Time { return dataNow.AddDate(0, 0, -n) }
			var d coverageData
			if err := json.Unmarshal([]byte(r.get("/api/coverage").Body), &d); err != nil {
				t.Fatal(err)
			}
			page := r.get("/coverage").Body

			labels, values, empty, note := chartTable(t, page, "posts-month")
			total, undated := 0, 0
			for _, v := range values {
				if len(v) != 2 {
					t.Fatalf("month row %v: want published and first-seen columns", v)
				}
				total += v[0] + v[1]
				undated += v[1]
			}
			// The fixture's indexed posts: published 60, 35 and 5 days
			// before dataNow, and one with no date first seen 2 days before.
			first, last := day(60).Format("Jan 2006"), day(2).Format("Jan 2006")
			if empty || total != d.Coverage.Indexed || undated != 1 || labels[0] != first || labels[len(labels)-1] != last {
				t.Errorf("month chart: %v %v (empty %v), total %d (%d undated), want %d posts over %s to %s",
					labels, values, empty, total, undated, d.Coverage.Indexed, first, last)
			}
			if want := fmt.Sprintf("%d posts shown: 1 of them by the date first seen, having no date of their own.", total); note != want {
				t.Errorf("month note %q, want %q", note, want)
			}

			// The request log runs from 10 days before dataNow to dataNow.
			labels, values, empty, _ = chartTable(t, page, "requests-day")
			reqs := 0
			for _, v := range values {
				reqs += v[0] + v[1]
			}
			if empty || len(labels) != 11 || labels[0] != day(10).Format("2 Jan") || labels[len(labels)-1] != day(0).Format("2 Jan") || reqs != 24 {
				t.Errorf("requests chart: %v, %d requests (empty %v), want the 11 days %s to %s, 24 requests",
					labels, reqs, empty, day(10).Format("2 Jan"), day(0).Format("2 Jan"))
			}
			if want := (coverageWindow{From: day(10).Truncate(24 * time.Hour), To: day(-1).Truncate(24 * time.Hour)}); d.Window != want {
				t.Errorf("requests window %+v, want %+v", d.Window, want)
			}
		})
	}
}

// An empty store: both charts have nothing to show, the request window
// ends with the clock's day.
func TestCoverageChartsEmpty(t *testing.T) {
	months, undated := monthSeries(nil, chartMonths)
	if len(months) != 0 || undated {
		t.Errorf("monthSeries(nil) = %v, %v", months, undated)
	}
	c := stacked("posts-month", "", "", months, []string{"c-posts"}, []string{"posts"})
	if !c.Empty {
		t.Error("an empty month chart is not marked empty")
	}
	if note := monthNote(0, nil, months); note != "" {
		t.Errorf("note %q for no posts", note)
	}
}

// The month chart spans at most chartMonths months, ending with the
// data's last month; the note says how many posts are in no bar.
func TestMonthSeriesSpan(t *testing.T) {
	m := func(y int, mo time.Month) time.Time { return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC) }
	counts := []model.MonthCount{
		{Month: m(2019, 5), Count: 7},
		{Month: m(2024, 2), Count: 3, Undated: 1},
		{Month: m(2026, 3), Count: 5, Undated: 5},
	}
	cases := []struct {
		n           int
		first, last string
		shown       int
		note        string
	}{
		{chartMonths, "Apr 2024", "Mar 2026", 5, "5 posts shown: 5 of them by the date first seen, having no date of their own; 10 more in older months (in the API); 2 more with no date at all."},
		{26, "Feb 2024", "Mar 2026", 8, "8 posts shown: 6 of them by the date first seen, having no date of their own; 7 more in older months (in the API); 2 more with no date at all."},
	}
	for _, c := range cases {
		got, undated := monthSeries(counts, c.n)
		shown := 0
		for _, s := range got {
			shown += s.Values[0] + s.Values[1]
		}
		if len(got) != c.n || !undated || got[0].Label != c.first || got[len(got)-1].Label != c.last || shown != c.shown {
			t.Errorf("monthSeries(%d): %d months %s to %s, %d posts; want %d months %s to %s, %d posts",
				c.n, len(got), got[0].Label, got[len(got)-1].Label, shown, c.n, c.first, c.last, c.shown)
		}
		if note := monthNote(17, counts, got); note != c.note {
			t.Errorf("monthNote(%d) = %q, want %q", c.n, note, c.note)
		}
	}
}

// A site's request chart ends on the request log's last day too: with the
// clock a year past the log, the site's page still shows its requests.
func TestSiteChartFollowsTheLog(t *testing.T) {
	r := newRig(t)
	r.clock.Add(365 * 24 * time.Hour)
	res := r.get("/sources/alpha.example")
	if res.Code != 200 {
		t.Fatalf("%d", res.Code)
	}
	_, values, empty, _ := chartTable(t, res.Body, "site-days")
	total := 0
	for _, row := range values {
		for _, v := range row {
			total += v
		}
	}
	if empty || total == 0 {
		t.Errorf("the site's chart is empty a year after its requests (%d counted)", total)
	}
}
