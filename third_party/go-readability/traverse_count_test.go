package readability

import "testing"

// countTexts are strings of every shape the counters meet: empty, all
// white space, leading and trailing space, runs of it, non-ASCII white
// space (NBSP, ideographic space, NEL), invalid UTF-8, commas of several
// scripts.
var countTexts = []string{
	"", " ", "\n\t ", "a", " a", "a ", " a b  c ", "word,word, and more,",
	"\u00a0nbsp\u00a0", "全角\u3000スペース、，", "x\u0085y", "\xff\xfe bad ,", "،ok\u060c",
	"  A long paragraph, long enough to be kept as a summary: it has commas, spaces,\n and lines.  ",
	"\u2003\u2003", "end with nbsp\u00a0",
}

// TestCountStringMatchesCount: counting a string at once, or by its
// summary, leaves every counter as counting it rune by rune does, from
// every state a counter can be in.
func TestCountStringMatchesCount(t *testing.T) {
	states := []charCounter{{}, {Total: 5, seenNonSpace: true}, {Total: 5, seenNonSpace: true, lastCharWasSpace: true}, {lastCharWasSpace: true}}
	for _, s := range countTexts {
		for _, st := range states {
			want := st
			wantCommas := commaCounter{}
			for _, r := range s {
				want.Count(r)
				wantCommas.Count(r)
			}
			whole := st
			whole.CountString(s)
			var commas commaCounter
			commas.CountString(s)
			summed := st
			sum := summarize(s)
			summed.apply(sum)
			if whole != want || summed != want || commas != wantCommas || sum.commas != wantCommas.Total {
				t.Errorf("%q from %+v: rune by rune %+v (%d commas), at once %+v (%d), by summary %+v (%d)",
					s, st, want, wantCommas.Total, whole, commas.Total, summed, sum.commas)
			}
		}
	}
}

func FuzzCountString(f *testing.F) {
	for _, s := range countTexts {
		f.Add(s, 3, true, false)
	}
	f.Fuzz(func(t *testing.T, s string, total int, seen, lastSpace bool) {
		st := charCounter{Total: total, seenNonSpace: seen, lastCharWasSpace: lastSpace}
		want, whole, summed := st, st, st
		var wantCommas, commas commaCounter
		for _, r := range s {
			want.Count(r)
			wantCommas.Count(r)
		}
		whole.CountString(s)
		commas.CountString(s)
		sum := summarize(s)
		summed.apply(sum)
		if whole != want || summed != want || commas != wantCommas || sum.commas != wantCommas.Total {
			t.Errorf("%q from %+v: rune by rune %+v, at once %+v, by summary %+v", s, st, want, whole, summed)
		}
	})
}
