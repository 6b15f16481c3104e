package web

import (
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// chart is an SVG bar chart drawn on the server: the template writes
// rectangles at these coordinates, so the page needs no script and the
// figures are in the HTML for any reader (the data table under each chart
// holds the same numbers for screen readers and copy-paste).
type chart struct {
	ID, Title, Desc string
	Width, Height   int
	Bars            []bar
	XLabels         []label
	YTicks          []tick
	Legend          []legend
	Rows            []chartRow // the data table
	Columns         []string   // headings of the data table after the first
	Empty           bool
	Note            string // what the bars leave out or count otherwise, shown under the chart
}

type bar struct {
	X, Y, W, H float64
	Class      string
	Tip        string
}

type label struct {
	X, Y   float64
	Text   string
	Anchor string
}

type tick struct {
	Y    float64
	Text string
	X2   int
}

type legend struct{ Class, Text string }

type chartRow struct {
	Label  string
	Values []string
}

type series struct {
	Label  string
	Values []int // stacked bottom to top, one per class
}

const (
	chartW, chartH             = 720, 240
	padL, padR, padT, padB     = 56, 12, 12, 32
	hbarH, hbarGap, hbarLabelW = 22, 8, 110
)

// stacked draws a vertical bar per series entry, its values stacked.
func stacked(id, title, desc string, points []series, classes, names []string) chart {
	c := chart{ID: id, Title: title, Desc: desc, Width: chartW, Height: chartH, Columns: names}
	for i, n := range names {
		c.Legend = append(c.Legend, legend{Class: classes[i], Text: n})
	}
	top := 0
	for _, p := range points {
		sum := 0
		for _, v := range p.Values {
			sum += v
		}
		top = max(top, sum)
		row := chartRow{Label: p.Label}
		for _, v := range p.Values {
			row.Values = append(row.Values, fmtNum(v))
		}
		c.Rows = append(c.Rows, row)
	}
	if len(points) == 0 || top == 0 {
		c.Empty = true
	}
	top = niceCeil(max(top, 1))
	plotW := float64(chartW - padL - padR)
	plotH := float64(chartH - padT - padB)
	steps := min(4, top) // no repeated ticks when the counts are small
	for f := 0; f <= steps; f++ {
		v := top * f / steps
		y := float64(padT) + plotH - plotH*float64(v)/float64(top)
		c.YTicks = append(c.YTicks, tick{Y: y, Text: fmtNum(v), X2: chartW - padR})
	}
	if len(points) == 0 {
		return c
	}
	slot := plotW / float64(len(points))
	w := max(slot*0.8, 1)
	every := max(1, (len(points)+7)/8) // at most about eight labels
	for i, p := range points {
		x := float64(padL) + slot*float64(i) + (slot-w)/2
		base := float64(padT) + plotH
		for j, v := range p.Values {
			if v == 0 {
				continue
			}
			h := plotH * float64(v) / float64(top)
			base -= h
			c.Bars = append(c.Bars, bar{X: x, Y: base, W: w, H: h, Class: classes[j], Tip: fmt.Sprintf("%s: %s %s", p.Label, fmtNum(v), names[j])})
		}
		if i%every == 0 {
			c.XLabels = append(c.XLabels, label{X: x + w/2, Y: float64(chartH - 10), Text: p.Label, Anchor: "middle"})
		}
	}
	return c
}

// horizontal draws one labelled bar per state.
func horizontal(id, title, desc string, counts []model.StateCount, unit string) chart {
	c := chart{ID: id, Title: title, Desc: desc, Width: chartW, Columns: []string{unit}}
	c.Height = len(counts)*(hbarH+hbarGap) + hbarGap
	top := 1
	total := 0
	for _, sc := range counts {
		top = max(top, sc.Count)
		total += sc.Count
		c.Rows = append(c.Rows, chartRow{Label: sc.State, Values: []string{fmtNum(sc.Count)}})
	}
	c.Empty = total == 0
	plotW := float64(chartW - hbarLabelW - 80)
	for i, sc := range counts {
		y := float64(hbarGap + i*(hbarH+hbarGap))
		w := plotW * float64(sc.Count) / float64(top)
		c.XLabels = append(c.XLabels, label{X: hbarLabelW - 8, Y: y + hbarH*0.7, Text: sc.State, Anchor: "end"})
		c.Bars = append(c.Bars, bar{X: hbarLabelW, Y: y, W: max(w, 0), H: hbarH, Class: "s-" + sc.State, Tip: fmt.Sprintf("%s: %s %s", sc.State, fmtNum(sc.Count), unit)})
		c.XLabels = append(c.XLabels, label{X: hbarLabelW + w + 6, Y: y + hbarH*0.7, Text: fmtNum(sc.Count), Anchor: "start"})
	}
	return c
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten, for readable ticks.
func niceCeil(n int) int {
	p := 1
	for p*10 <= n {
		p *= 10
	}
	for _, m := range []int{1, 2, 4, 5, 10} {
		if m*p >= n {
			return m * p
		}
	}
	return 10 * p
}

// monthSeries spans the months of the data: from the first month with a
// count to the last, at most n months ending with the last (older ones are
// left out: the chart shows recent history; the API has every month).
// Months with no posts are zeros. Each month stacks the posts counted by
// their published date under those counted by the date first seen;
// undated says whether any month has the latter (else one series).
func monthSeries(counts []model.MonthCount, n int) (out []series, undated bool) {
	by := map[time.Time]model.MonthCount{}
	var first, last time.Time
	for _, mc := range counts {
		if mc.Count == 0 {
			continue
		}
		m := month(mc.Month)
		by[m] = mc
		if first.IsZero() || m.Before(first) {
			first = m
		}
		if m.After(last) {
			last = m
		}
		undated = undated || mc.Undated > 0
	}
	if last.IsZero() {
		return nil, false
	}
	if oldest := last.AddDate(0, -(n - 1), 0); first.Before(oldest) {
		first = oldest
	}
	for m := first; !m.After(last); m = m.AddDate(0, 1, 0) {
		mc := by[m]
		values := []int{mc.Count}
		if undated {
			values = []int{mc.Count - mc.Undated, mc.Undated}
		}
		out = append(out, series{Label: m.Format("Jan 2006"), Values: values})
	}
	return out, undated
}

// monthNote says how the month chart's bars add up to the indexed posts:
// how many are there by the date first seen, and how many are in no bar
// (in months older than those shown, or with no date at all).
func monthNote(indexed int, counts []model.MonthCount, shown []series) string {
	total, undated := 0, 0
	for _, p := range shown {
		for _, v := range p.Values {
			total += v
		}
		if len(p.Values) > 1 {
			undated += p.Values[1]
		}
	}
	var parts []string
	if undated > 0 {
		parts = append(parts, fmt.Sprintf("%s of them by the date first seen, having no date of their own", fmtNum(undated)))
	}
	inMonths := 0
	for _, mc := range counts {
		inMonths += mc.Count
	}
	if older := inMonths - total; older > 0 {
		parts = append(parts, fmt.Sprintf("%s more in older months (in the API)", fmtNum(older)))
	}
	if none := indexed - inMonths; none > 0 {
		parts = append(parts, fmt.Sprintf("%s more with no date at all", fmtNum(none)))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s posts shown: %s.", fmtNum(total), strings.Join(parts, "; "))
}

// daySeries fills days with no requests with zeros over [from, to): 304s
// at the bottom, other requests on top.
func daySeries(days []model.RequestDay, from, to time.Time) []series {
	by := map[time.Time]model.RequestDay{}
	for _, d := range days {
		by[day(d.Day)] = d
	}
	var out []series
	for d := day(from); d.Before(to); d = d.AddDate(0, 0, 1) {
		x := by[d]
		out = append(out, series{Label: d.Format("2 Jan"), Values: []int{x.NotModified, x.Requests - x.NotModified}})
	}
	return out
}

// month is the first instant of t's UTC month.
func month(t time.Time) time.Time {
	y, mo, _ := t.UTC().Date()
	return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
}

// day is the first instant of t's UTC day.
func day(t time.Time) time.Time {
	y, mo, d := t.UTC().Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
}
