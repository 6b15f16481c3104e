package readability

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// upstreamTextSimilarity is textSimilarity as go-readability v2.1.3 wrote
// it, through a regular expression and joined strings: the oracle.
func upstreamTextSimilarity(textA, textB string) float64 {
	rxTokenize := regexp.MustCompile(`(?i)\W+`)
	tokensA := rxTokenize.Split(strings.ToLower(textA), -1)
	tokensA = strFilter(tokensA, func(s string) bool { return s != "" })
	mapTokensA := sliceToMap(tokensA...)

	tokensB := rxTokenize.Split(strings.ToLower(textB), -1)
	tokensB = strFilter(tokensB, func(s string) bool { return s != "" })
	uniqueTokensB := strFilter(tokensB, func(s string) bool {
		_, existInA := mapTokensA[s]
		return !existInA
	})

	mergedB := strings.Join(tokensB, " ")
	mergedUniqueB := strings.Join(uniqueTokensB, " ")
	distanceB := float64(charCount(mergedUniqueB)) / float64(charCount(mergedB))

	return 1 - distanceB
}

var similarityTexts = []string{
	"", " ", "--", "A long post about crawling", "a long post about crawling – Bench Blog",
	"Crawling, a long post", "post_about crawling 2026", "ſome Kelvin \u212a text", "x\xffy bad\xfe",
	"日本語のタイトル", "Émile Zola: J'accuse", "İstanbul IS big", strings.Repeat("many words here ", 40),
}

func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

// TestTextSimilarityMatchesUpstream: the tokens found without the regexp,
// and the lengths counted without joining them, give the same similarity,
// to the bit.
func TestTextSimilarityMatchesUpstream(t *testing.T) {
	var ps Parser
	for _, a := range similarityTexts {
		for _, b := range similarityTexts {
			if got, want := ps.textSimilarity(a, b), upstreamTextSimilarity(a, b); !sameFloat(got, want) {
				t.Errorf("textSimilarity(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

func FuzzTextSimilarity(f *testing.F) {
	for i, a := range similarityTexts {
		f.Add(a, similarityTexts[(i+1)%len(similarityTexts)])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var ps Parser
		if got, want := ps.textSimilarity(a, b), upstreamTextSimilarity(a, b); !sameFloat(got, want) {
			t.Errorf("textSimilarity(%q, %q) = %v, want %v", a, b, got, want)
		}
	})
}

// TestScoreFormat: a content score is written as fmt's %.4f writes it.
func TestScoreFormat(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1.23456789, -5.00005, 0.00005, 1e300, 5e-324, math.Inf(1), math.Inf(-1), math.NaN()} {
		var ps Parser
		n := &html.Node{Type: html.ElementNode, Data: "div"}
		ps.setContentScore(n, v)
		if got, want := n.Attr[0].Val, fmt.Sprintf("%.4f", v); got != want {
			t.Errorf("score %v written %q, want %q", v, got, want)
		}
	}
}

// TestShareFolds: of the letters of "share", only s has a case fold
// outside ASCII, ſ, which mayHoldShare looks for.
func TestShareFolds(t *testing.T) {
	for _, r := range "share" {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf && f != 'ſ' {
				t.Errorf("%c folds to %c, which mayHoldShare does not look for", r, f)
			}
		}
	}
}

var shareTexts = []string{"", " ", "share", "post-share", "ShareDaddy", "sharing", "SHARE_buttons", "ſhare", "shar e", "xshare", "share_", "nothing here"}

func checkShare(t *testing.T, class, id string) {
	t.Helper()
	want := rxShareElements.MatchString(class + " " + id)
	if want && !mayHoldShare(class) && !mayHoldShare(id) {
		t.Fatalf("rxShareElements matches %q %q, mayHoldShare says it cannot", class, id)
	}
}

// TestMayHoldShare: wherever rxShareElements matches, mayHoldShare says
// it may.
func TestMayHoldShare(t *testing.T) {
	for _, a := range shareTexts {
		for _, b := range shareTexts {
			checkShare(t, a, b)
		}
	}
}

func FuzzMayHoldShare(f *testing.F) {
	for i, s := range shareTexts {
		f.Add(s, shareTexts[(i+3)%len(shareTexts)])
	}
	f.Fuzz(checkShare)
}
