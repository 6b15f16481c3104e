package extract

import (
	"slices"
	"strings"
	"testing"
)

// textRuneByRune is textBuilder.text as it was, a rune at a time through
// range: the oracle for its ASCII fast path.
func (t *textBuilder) textRuneByRune(s string) {
	start := -1
	for i, r := range s {
		if isSpace(r) {
			if start >= 0 {
				t.word(s[start:i])
				start = -1
			}
			t.space = true
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		t.word(s[start:])
	}
}

// metaLineSlow is metaLine as it was, splitting every line with a dash
// in it: the oracle for its tighter first check.
func metaLineSlow(lower string) bool {
	if len(lower) > 300 || !strings.ContainsAny(lower, "-–|•·\x00") {
		return false
	}
	parts := strings.FieldsFunc(metaSeparators.Replace(lower), func(r rune) bool { return r == 0 })
	if len(parts) < 2 {
		return false
	}
	meta := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if dateLike(p) {
			meta++
			continue
		}
		for _, l := range metaLabels {
			if startsWord(p, l) && len(p) > len(l) {
				meta++
				break
			}
		}
	}
	return meta >= 2 && meta*3 >= len(parts)*2
}

var fastTexts = []string{
	"", " ", "one", " two  words ", "tab\tand\nnewline\r\n", "nbsp\u00a0here", "ideo\u3000space",
	"bad\xffbyte \xe2\x80", "日本語 の テキスト", "05/10/2018 - Publicado por: Clarissa Borba - Categoria: Saúde",
	"well-known word", "a – b | c • d · e", "x\x00y", "by jane doe | 12 march 2024",
}

func checkFast(t *testing.T, s string) {
	t.Helper()
	var fast, slow textBuilder
	fast.inLink, slow.inLink = 1, 1
	fast.text(s)
	slow.textRuneByRune(s)
	if !slices.Equal(fast.block, slow.block) || fast.space != slow.space || fast.linked != slow.linked {
		t.Fatalf("text(%q): block %q space %v linked %d, want %q %v %d", s, fast.block, fast.space, fast.linked, slow.block, slow.space, slow.linked)
	}
	if got, want := metaLine(s), metaLineSlow(s); got != want {
		t.Fatalf("metaLine(%q) = %v, want %v", s, got, want)
	}
}

// TestFastPaths: text's ASCII path and metaLine's tighter first check
// change nothing.
func TestFastPaths(t *testing.T) {
	for _, s := range fastTexts {
		checkFast(t, s)
	}
}

func FuzzFastPaths(f *testing.F) {
	for _, s := range fastTexts {
		f.Add(s)
	}
	f.Fuzz(checkFast)
}
