package dates

import (
	"strings"
	"time"
)

// Parse reads a date as feeds write it and returns it in UTC. It tries the
// W3C/RFC 3339 form first, then reads the string as a list of parts in any
// order — a day name, a day, a month name, a year, a time, AM/PM, a zone —
// which covers RFC 822 and 1123 with and without day names, two-digit years,
// Unix date(1) output, "Jan 2, 2006 3:04 PM" and ISO dates with a named zone.
func Parse(s string) (time.Time, bool) {
	s = trimSpace(s)
	if t, ok := W3C(s); ok {
		return t, true
	}
	if len(s) == 10 && isDigits(s) {
		// Seconds since 1970, as some JSON and home-grown feeds give them:
		// ten digits cover 2001 to 2286.
		return time.Unix(int64(atoi(s)), 0).UTC(), true
	}
	return parseParts(s)
}

// parts collects what parseParts has found; -1 means not yet seen.
type parts struct {
	year, month, day         int
	hour, minute, sec, nsec  int
	offset                   int // seconds east of UTC
	haveTime, haveZone, isPM bool
	haveAMPM                 bool
	monthMayBeDay            bool // the month came from a word that is also a day name
	zoneIsUTCName            bool // the zone so far is "GMT" or "UTC", which an offset may follow
}

func parseParts(s string) (time.Time, bool) {
	p := parts{year: -1, month: -1, day: -1}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' || r == '\r' })
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.HasPrefix(f, "(") {
			// A trailing comment such as "(UTC)" or "(Pacific Standard Time)".
			for ; i < len(fields) && !strings.HasSuffix(fields[i], ")"); i++ {
			}
			continue
		}
		if !p.take(f) {
			return time.Time{}, false
		}
	}
	if p.year < 0 || p.month < 0 || p.day < 0 || p.day > daysIn(p.year, p.month) {
		return time.Time{}, false
	}
	if p.haveAMPM {
		if p.hour < 1 || p.hour > 12 {
			return time.Time{}, false
		}
		p.hour %= 12
		if p.isPM {
			p.hour += 12
		}
	}
	t := time.Date(p.year, time.Month(p.month), p.day, p.hour, p.minute, p.sec, p.nsec, time.UTC)
	return t.Add(-time.Duration(p.offset) * time.Second), true
}

// take files one part of the date, or reports that it is not a date part.
func (p *parts) take(f string) bool {
	if n := len(f) - 1; n > 0 && f[n] == '.' && isDigits(f[:n]) {
		f = f[:n] // the German ordinal day, "1. Oktober"
	}
	switch {
	case isDigits(f) && len(f) == 4 && p.year < 0:
		p.year = atoi(f)
	case isDigits(f) && len(f) <= 2 && p.day < 0:
		p.day = atoi(f)
	case isDigits(f) && len(f) == 2 && p.year < 0:
		p.year = twoDigitYear(atoi(f))
	case len(f) == 10 && f[4] == '/' && f[7] == '/' && p.year < 0:
		// 2006/01/02, as some publishing tools write it.
		return p.take(f[:4] + "-" + f[5:7] + "-" + f[8:])
	case len(f) >= 15 && isDigits(f[:8]) && f[8] == 'T' && isDigits(f[9:15]) && p.year < 0:
		// ISO 8601's basic format: 20060102T150405Z.
		if !p.take(f[:8]) {
			return false
		}
		return p.takeClock(f[9:11] + ":" + f[11:13] + ":" + f[13:15] + f[15:])
	case isDigits(f) && len(f) == 8 && p.year < 0 && p.month < 0:
		// 20060102, as some feeds write a date-only value.
		p.year, p.month, p.day = atoi(f[:4]), atoi(f[4:6]), atoi(f[6:])
		return p.month >= 1 && p.month <= 12 && p.day >= 1
	case len(f) >= 8 && f[4] == '-' && isDigits(f[:4]) && p.year < 0:
		// An ISO date, perhaps with its time joined by "T".
		date, clock, hasClock := strings.Cut(f, "T")
		t, ok := W3C(date)
		if !ok {
			return false
		}
		p.year, p.month, p.day = t.Year(), int(t.Month()), t.Day()
		if hasClock {
			return p.takeClock(clock)
		}
	case strings.Count(f, "-") == 2 && f[0] >= '0' && f[0] <= '9':
		// RFC 850's "02-Jan-06", the form of old HTTP dates.
		for _, part := range strings.Split(f, "-") {
			if part == "" || !p.take(part) {
				return false
			}
		}
	case strings.IndexByte(f, ':') > 0 && f[0] >= '0' && f[0] <= '9' && !p.haveTime:
		return p.takeClock(f)
	case (f[0] == '+' || f[0] == '-') && len(f) > 1 && (!p.haveZone || p.zoneIsUTCName):
		// "GMT +0200" gives the offset after the name.
		off, ok := numericZone(f[1:])
		if !ok {
			return false
		}
		if f[0] == '-' {
			off = -off
		}
		p.offset, p.haveZone, p.zoneIsUTCName = off, true, false
	default:
		word := strings.ToLower(strings.TrimSuffix(f, "."))
		month, isMonth, isDay := names(word)
		if isMonth && (p.month < 0 || p.monthMayBeDay && !isDay) {
			// A second month word shows that an ambiguous first one was a day.
			p.month, p.monthMayBeDay = month, isDay
		} else if isDay {
			// Day names say nothing the date does not.
		} else if word == "am" || word == "pm" {
			p.haveAMPM, p.isPM = true, word == "pm"
		} else if off, ok := zoneOffset(word); ok && !p.haveZone {
			p.offset, p.haveZone = off, true
			p.zoneIsUTCName = word == "gmt" || word == "utc" || word == "ut"
		} else if word == "at" && p.haveTime && !p.haveZone {
			// After the clock, AT is Atlantic Time; before it, the word
			// of "Jan 2, 2006 at 3:04 PM".
			p.offset, p.haveZone = -4*3600, true
		} else if word == "t" || word == "at" {
			// "2006-01-02 T 15:04" and "Jan 2, 2006 at 3:04 PM".
		} else {
			return false
		}
	}
	return true
}

// takeClock reads hh:mm[:ss[.frac]] with an optional zone glued on
// ("15:04:05Z", "15:04:05+02:00", "3:04PM").
func (p *parts) takeClock(f string) bool {
	end := 0
	for end < len(f) && (f[end] >= '0' && f[end] <= '9' || f[end] == ':' || f[end] == '.' || f[end] == ',') {
		end++
	}
	clock, rest := f[:end], f[end:]
	if len(clock) >= 2 && clock[1] == ':' {
		clock = "0" + clock // "3:04" as written in "3:04 PM"
	}
	r := digitReader{s: clock}
	var ok bool
	if p.hour, p.minute, p.sec, p.nsec, ok = r.clock(); !ok || !r.done() {
		return false
	}
	p.haveTime = true
	if rest == "" {
		return true
	}
	return p.take(rest)
}

// numericZone reads hhmm, hh:mm or hh as seconds.
func numericZone(s string) (int, bool) {
	s = strings.Replace(s, ":", "", 1)
	if len(s) == 1 || len(s) == 3 {
		s = "0" + s // "GMT+2", "+530"
	}
	if !isDigits(s) || (len(s) != 4 && len(s) != 2) {
		return 0, false
	}
	h, m := atoi(s[:2]), 0
	if len(s) == 4 {
		m = atoi(s[2:])
	}
	if h > 23 || m > 59 {
		return 0, false
	}
	return h*3600 + m*60, true
}

// twoDigitYear follows RFC 5322 §4.3: 00–49 are 2000–2049, 50–99 are 1950–1999.
func twoDigitYear(y int) int {
	if y < 50 {
		return 2000 + y
	}
	return 1900 + y
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	v := 0
	for i := 0; i < len(s); i++ {
		v = v*10 + int(s[i]-'0')
	}
	return v
}
