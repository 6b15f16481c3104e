package dates

import (
	"testing"
	"time"
)

func utc(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

func TestW3C(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026", utc(2026, 1, 1, 0, 0, 0, 0), true},
		{"2026-07", utc(2026, 7, 1, 0, 0, 0, 0), true},
		{"2026-07-16", utc(2026, 7, 16, 0, 0, 0, 0), true},
		{"2026-07-16T19:20+01:00", utc(2026, 7, 16, 18, 20, 0, 0), true},
		{"2026-07-16T19:20:30+01:00", utc(2026, 7, 16, 18, 20, 30, 0), true},
		{"2026-07-16T19:20:30.45+01:00", utc(2026, 7, 16, 18, 20, 30, 450000000), true},
		{"2026-07-16T19:20:30.123456789123Z", utc(2026, 7, 16, 19, 20, 30, 123456789), true},
		{"2026-07-16T19:20:30Z", utc(2026, 7, 16, 19, 20, 30, 0), true},
		{"2026-07-16T19:20:30-05:30", utc(2026, 7, 17, 0, 50, 30, 0), true},
		{"  2026-07-16T19:20:30z \n", utc(2026, 7, 16, 19, 20, 30, 0), true},
		{"2026-07-16 19:20:30", utc(2026, 7, 16, 19, 20, 30, 0), true},
		{"2026-07-16T19:20:30+0100", utc(2026, 7, 16, 18, 20, 30, 0), true},
		{"2026-07-16T19:20:30+01", utc(2026, 7, 16, 18, 20, 30, 0), true},
		{"2026-07-16T24:00:00Z", utc(2026, 7, 17, 0, 0, 0, 0), true},
		{"2016-12-31T23:59:60Z", utc(2016, 12, 31, 23, 59, 59, 0), true},
		{"2024-02-29", utc(2024, 2, 29, 0, 0, 0, 0), true},
		{"2026-02-29", time.Time{}, false},
		{"2026-13-01", time.Time{}, false},
		{"2026-00", time.Time{}, false},
		{"2026-07-16T25:00Z", time.Time{}, false},
		{"2026-07-16T19Z", time.Time{}, false},
		{"2026-07-16T19:20:30.Z", time.Time{}, false},
		{"2026-07-16T19:20:30 PST", time.Time{}, false},
		{"26-07-16", time.Time{}, false},
		{"2026/07/16", time.Time{}, false},
		{"", time.Time{}, false},
		{"yesterday", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := W3C(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) || (ok && got.Location() != time.UTC) {
			t.Errorf("W3C(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		// RFC 822 / 1123 as RSS has them.
		{"Mon, 02 Jan 2006 15:04:05 -0700", utc(2006, 1, 2, 22, 4, 5, 0), true},
		{"Mon, 2 Jan 2006 15:04:05 +0000", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"Mon, 02 Jan 2006 15:04:05 GMT", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"02 Jan 2006 15:04:05 UT", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"Mon, 02 Jan 2006 15:04 EST", utc(2006, 1, 2, 20, 4, 0, 0), true},
		{"Mon, 02 Jan 2006 15:04:05 EDT", utc(2006, 1, 2, 19, 4, 5, 0), true},
		{"Tue, 10 Jun 2003 04:00:00 PDT", utc(2003, 6, 10, 11, 0, 0, 0), true},
		{"Wed, 02 Oct 2002 08:00:00 PST", utc(2002, 10, 2, 16, 0, 0, 0), true},
		{"02 Jan 06 15:04 -0700", utc(2006, 1, 2, 22, 4, 0, 0), true},
		{"Sat, 07 Sep 02 00:00:01 GMT", utc(2002, 9, 7, 0, 0, 1, 0), true},
		{"Thu, 01 Jan 70 00:00:00 +0000", utc(1970, 1, 1, 0, 0, 0, 0), true},
		{"Mon, 02 Jan 2006 15:04:05", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"Monday, 02-Jan-06 15:04:05 MST", utc(2006, 1, 2, 22, 4, 5, 0), true},
		{"Mon, 02-Jan-2006 15:04:05 GMT", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"Monday, 2 January 2006 15:04:05 +02:00", utc(2006, 1, 2, 13, 4, 5, 0), true},
		{"Mon, 02 Jan 2006 15:04:05 +0000 (UTC)", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"Mon,  2 Jan 2006  15:04:05  +0530", utc(2006, 1, 2, 9, 34, 5, 0), true},
		{"Tue, 4 Sept 2018 10:00:00 IST", utc(2018, 9, 4, 4, 30, 0, 0), true},
		{"Fri, 13 Mar 2026 09:00:00 CET", utc(2026, 3, 13, 8, 0, 0, 0), true},
		{"Fri, 13 Mar 2026 09:00:00 A", utc(2026, 3, 13, 9, 0, 0, 0), true},
		{"Tue, 10 Jun 2003 04:00:00 GMT+2", utc(2003, 6, 10, 2, 0, 0, 0), true},
		{"Tue, 10 Jun 2003 04:00:00 GMT+0200", utc(2003, 6, 10, 2, 0, 0, 0), true},
		{"Tue, 10 Jun 2003 04:00:00 UTC-05:00", utc(2003, 6, 10, 9, 0, 0, 0), true},
		{"Tue, 10 Jun 2003 04:00:00 GMT -0500", utc(2003, 6, 10, 9, 0, 0, 0), true},
		// The bare North American zones, read as feedparser's table reads them.
		{"Mon, 26 January 2004 16:31:00 AT", utc(2004, 1, 26, 20, 31, 0, 0), true},
		{"Mon, 26 January 2004 16:31:00 ET", utc(2004, 1, 26, 21, 31, 0, 0), true},
		{"Mon, 26 January 2004 16:31:00 CT", utc(2004, 1, 26, 22, 31, 0, 0), true},
		{"Mon, 26 January 2004 16:31:00 MT", utc(2004, 1, 26, 23, 31, 0, 0), true},
		{"Mon, 26 January 2004 16:31:00 PT", utc(2004, 1, 27, 0, 31, 0, 0), true},
		{"Mon, 26 January 2004 at 16:31:00 AT", utc(2004, 1, 26, 20, 31, 0, 0), true},
		// The tz database's fixed zones, with POSIX's inverted signs.
		{"Wed, 19 Aug 2009 18:28:00 Etc/GMT", utc(2009, 8, 19, 18, 28, 0, 0), true},
		{"Wed, 19 Aug 2009 18:28:00 Etc/GMT+5", utc(2009, 8, 19, 23, 28, 0, 0), true},
		{"Wed, 19 Aug 2009 18:28:00 Etc/GMT-2", utc(2009, 8, 19, 16, 28, 0, 0), true},
		// Other languages' names, as localised publishing tools write them.
		{"Di, 03 Jun 2025 09:39:21 +0200", utc(2025, 6, 3, 7, 39, 21, 0), true},
		{"mar., 03 juin 2025 09:39:21 +0200", utc(2025, 6, 3, 7, 39, 21, 0), true},
		{"mar., 03 mars 2025 09:39:21 +0200", utc(2025, 3, 3, 7, 39, 21, 0), true},
		{"3 mar 2025", utc(2025, 3, 3, 0, 0, 0, 0), true},
		{"Mittwoch, 1. Oktober 2025 10:00", utc(2025, 10, 1, 10, 0, 0, 0), true},
		{"mié, 01 oct 2025 10:00:00 +0000", utc(2025, 10, 1, 10, 0, 0, 0), true},
		{"1 févr. 2025", utc(2025, 2, 1, 0, 0, 0, 0), true},
		{"15 mrt 2025", utc(2025, 3, 15, 0, 0, 0, 0), true},
		// Numeric forms.
		{"2006/01/02 15:04:05", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"20060102T150405Z", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"20060102T150405+0100", utc(2006, 1, 2, 14, 4, 5, 0), true},
		{"1136214245", utc(2006, 1, 2, 15, 4, 5, 0), true},
		// Unix date(1) and other English forms.
		{"Mon Jan  2 15:04:05 MST 2006", utc(2006, 1, 2, 22, 4, 5, 0), true},
		{"Jan 2, 2006 3:04 PM", utc(2006, 1, 2, 15, 4, 0, 0), true},
		{"January 2, 2006 at 12:30am", utc(2006, 1, 2, 0, 30, 0, 0), true},
		{"2 January 2006", utc(2006, 1, 2, 0, 0, 0, 0), true},
		// ISO 8601 and its variants.
		{"2006-01-02T15:04:05Z", utc(2006, 1, 2, 15, 4, 5, 0), true},
		{"2006-01-02T15:04:05.999-07:00", utc(2006, 1, 2, 22, 4, 5, 999000000), true},
		{"2006-01-02 15:04:05 -0700", utc(2006, 1, 2, 22, 4, 5, 0), true},
		{"2006-01-02 15:04:05 EST", utc(2006, 1, 2, 20, 4, 5, 0), true},
		{"2006-01-02T15:04:05 PST", utc(2006, 1, 2, 23, 4, 5, 0), true},
		{"2006-01-02", utc(2006, 1, 2, 0, 0, 0, 0), true},
		{"20060102", utc(2006, 1, 2, 0, 0, 0, 0), true},
		// Not dates.
		{"", time.Time{}, false},
		{"soon", time.Time{}, false},
		{"Mon, 31 Feb 2006 10:00:00 GMT", time.Time{}, false},
		{"Mon, 02 Foo 2006 15:04:05 GMT", time.Time{}, false},
		{"Mon, 02 Jan 2006 25:04:05 GMT", time.Time{}, false},
		{"Mon, 02 Jan 2006 15:04:05 XYZT", time.Time{}, false},
		{"13:00 PM Jan 2 2006", time.Time{}, false},
		{"02 Jan", time.Time{}, false},
		{"Mon, 26 January 2004 16:31:00 AT EST", time.Time{}, false},
		{"Wed, 19 Aug 2009 18:28:00 Etc/Mars", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := Parse(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) || (ok && got.Location() != time.UTC) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Mon, 02 Jan 2006 15:04:05 -0700", "2026-07-16T19:20:30.45+01:00", "Jan 2, 2006 3:04 PM", "(x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := Parse(s); ok && got.Location() != time.UTC {
			t.Fatalf("Parse(%q) not in UTC: %v", s, got)
		}
		if got, ok := W3C(s); ok {
			if got.Location() != time.UTC {
				t.Fatalf("W3C(%q) not in UTC: %v", s, got)
			}
			if again, ok2 := Parse(s); !ok2 || !again.Equal(got) {
				t.Fatalf("W3C accepts %q as %v but Parse gives %v %v", s, got, again, ok2)
			}
		}
	})
}
