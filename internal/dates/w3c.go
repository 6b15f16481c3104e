package dates

import "time"

// W3C parses a W3C datetime (https://www.w3.org/TR/NOTE-datetime): YYYY,
// YYYY-MM, YYYY-MM-DD, or a date with a time of hh:mm, hh:mm:ss or
// hh:mm:ss.fraction and a zone (Z, ±hh:mm). Missing parts are the start of the
// period: "2026" is midnight UTC on 1 January. It is lenient where sitemaps
// commonly are — a space for the "T", no zone (UTC), ±hhmm or ±hh zones — and
// strict about ranges, so "2026-02-30" is rejected rather than moved.
func W3C(s string) (time.Time, bool) {
	s = trimSpace(s)
	p := digitReader{s: s}
	year, ok := p.number(4)
	if !ok {
		return time.Time{}, false
	}
	month, day := 1, 1
	hour, minute, sec, nsec := 0, 0, 0, 0
	offset := 0 // seconds east of UTC
	if p.take('-') {
		if month, ok = p.number(2); !ok || month < 1 || month > 12 {
			return time.Time{}, false
		}
		if p.take('-') {
			if day, ok = p.number(2); !ok || day < 1 || day > daysIn(year, month) {
				return time.Time{}, false
			}
			if p.take('T') || p.take('t') || p.take(' ') {
				if hour, minute, sec, nsec, ok = p.clock(); !ok {
					return time.Time{}, false
				}
				if offset, ok = p.zone(); !ok {
					return time.Time{}, false
				}
			}
		}
	}
	if !p.done() {
		return time.Time{}, false
	}
	// Computing in UTC and shifting avoids a time.Location per date.
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// digitReader walks a date string left to right.
type digitReader struct {
	s string
	i int
}

func (p *digitReader) done() bool { return p.i == len(p.s) }

func (p *digitReader) take(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// number reads exactly n decimal digits.
func (p *digitReader) number(n int) (int, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v := 0
	for _, c := range []byte(p.s[p.i : p.i+n]) {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

// clock reads hh:mm[:ss[.fraction]].
func (p *digitReader) clock() (hour, minute, sec, nsec int, ok bool) {
	if hour, ok = p.number(2); !ok || hour > 24 {
		return 0, 0, 0, 0, false
	}
	if !p.take(':') {
		return 0, 0, 0, 0, false
	}
	if minute, ok = p.number(2); !ok || minute > 59 {
		return 0, 0, 0, 0, false
	}
	if p.take(':') {
		if sec, ok = p.number(2); !ok || sec > 60 {
			return 0, 0, 0, 0, false
		}
		if sec == 60 {
			sec = 59 // a leap second is as good as the second before it here
		}
		if p.take('.') || p.take(',') {
			digits := 0
			for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
				if digits < 9 {
					nsec = nsec*10 + int(p.s[p.i]-'0')
					digits++
				}
				p.i++
			}
			if digits == 0 {
				return 0, 0, 0, 0, false
			}
			for ; digits < 9; digits++ {
				nsec *= 10
			}
		}
	}
	if hour == 24 && (minute != 0 || sec != 0 || nsec != 0) {
		return 0, 0, 0, 0, false
	}
	return hour, minute, sec, nsec, true
}

// zone reads Z, ±hh:mm, ±hhmm or ±hh as seconds east of UTC; no zone at all
// is UTC.
func (p *digitReader) zone() (int, bool) {
	if p.done() || p.take('Z') || p.take('z') {
		return 0, true
	}
	sign := 1
	switch {
	case p.take('+'):
	case p.take('-'):
		sign = -1
	default:
		return 0, false
	}
	h, ok := p.number(2)
	if !ok || h > 23 {
		return 0, false
	}
	m := 0
	if p.take(':') || !p.done() {
		if m, ok = p.number(2); !ok || m > 59 {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), true
}
