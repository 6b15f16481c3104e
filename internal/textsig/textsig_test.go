package textsig

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// article is n words of pseudo-prose drawn from a small vocabulary with a
// fixed seed: the same seed, the same text.
func article(seed uint64, n int) []string {
	vocab := strings.Fields(`the a of to in and is that for it as was with be by on not he this are or his from at which
		but have an they you were her she there been one all we their has would when if so no what up out more time about
		some them could into than other then like its only over new also after most two our these way may any first garden
		river winter market music letter station window morning engine history kitchen paper village summer bridge`)
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		out[i] = vocab[r.IntN(len(vocab))]
	}
	return out
}

func TestHashNormalises(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"Hello, world.", "hello world", true},
		{"Hello,\n\n  World!", "HELLO — world", true},
		{"Ça va? Très bien.", "ça va très bien", true},
		{"Hello world", "Hello, other world", false},
		{"one two", "two one", false},
	} {
		ha, hb := Of(tc.a).Hash, Of(tc.b).Hash
		if (ha == hb) != tc.same {
			t.Errorf("Of(%q).Hash == Of(%q).Hash: %v, want %v", tc.a, tc.b, ha == hb, tc.same)
		}
	}
	if s := Of("  ,.; "); s.Hash != "" || s.Near {
		t.Errorf("a text with no word: %+v", s)
	}
	if s := Of(strings.Join(article(1, MinWords-1), " ")); s.Hash == "" || s.Near {
		t.Errorf("a text under MinWords: %+v, want a hash and no SimHash", s)
	}
}

// Near-copies (a syndication footer, a sentence edited) are near and
// share a band; different texts of the same vocabulary are not.
func TestNearCopies(t *testing.T) {
	base := article(1, 400)
	text := strings.Join(base, " ")
	edited := append([]string(nil), base...)
	copy(edited[200:], strings.Fields("an entirely different sentence sits here now"))
	near := map[string]string{
		"footer":    text + " This post first appeared on the author's own blog.",
		"edited":    strings.Join(edited, " "),
		"header":    "Reposted with permission. " + text,
		"spacing":   strings.ReplaceAll(text, " the ", "  The\n"),
		"truncated": strings.Join(base[:360], " ") + " Read more.",
	}
	orig := Of(text)
	for name, other := range near {
		s := Of(other)
		if !Near(orig.MinHash, s.MinHash) {
			t.Errorf("%s: similarity %.2f, want at least %.2f", name, Similarity(orig.MinHash, s.MinHash), Threshold)
		}
		if !shareBand(orig.MinHash, s.MinHash) {
			t.Errorf("%s: no band shared", name)
		}
	}
	for seed := uint64(2); seed < 50; seed++ {
		s := Of(strings.Join(article(seed, 400), " "))
		if Near(orig.MinHash, s.MinHash) || shareBand(orig.MinHash, s.MinHash) {
			t.Errorf("unrelated text %d is a candidate (similarity %.2f)", seed, Similarity(orig.MinHash, s.MinHash))
		}
	}
}

func shareBand(a, b MinHash) bool {
	ba, bb := a.Bands(), b.Bands()
	for i := range ba {
		if ba[i] == bb[i] {
			return true
		}
	}
	return false
}

func TestBytesRoundTrip(t *testing.T) {
	m := Of(strings.Join(article(5, 100), " ")).MinHash
	back, ok := FromBytes(m.Bytes())
	if !ok || back != m {
		t.Fatalf("FromBytes(Bytes()) = %v, %v", back, ok)
	}
	if _, ok := FromBytes([]byte{1, 2, 3}); ok {
		t.Fatal("FromBytes took 3 bytes")
	}
	for i, b := range m.Bands() {
		if int(uint64(b)>>56) != i {
			t.Errorf("band %d carries position %d", i, uint64(b)>>56)
		}
	}
}

func FuzzOf(f *testing.F) {
	f.Add("Hello, world.")
	f.Add(strings.Repeat("word ", 100))
	f.Add("\xff\xfe broken \x00 utf-8")
	f.Fuzz(func(t *testing.T, s string) {
		a, b := Of(s), Of(strings.ToUpper(s))
		if a.Near && a.Hash == "" {
			t.Fatal("a SimHash without a hash")
		}
		_ = b
	})
}

func BenchmarkOf(b *testing.B) {
	text := strings.Join(article(1, 1500), " ") // a long post, about 8 KB
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Of(text)
	}
}

// BenchmarkMinHash is BenchmarkOf's MinHash alone, from the shingles'
// hashes: two thirds of Of's time.
func BenchmarkMinHash(b *testing.B) {
	_, _, shingles := normalise(strings.Join(article(1, 1500), " "), nil, nil)
	for b.Loop() {
		minHash(shingles)
	}
}

func ExampleOf() {
	a := Of("Hello, World! " + strings.Repeat("Some words of a post. ", 20))
	b := Of("hello world " + strings.Repeat("some words of a post ", 20))
	fmt.Println(a.Hash == b.Hash, a.Near)
	// Output: true true
}

// TestNormaliseASCIIFastPath: normalise's ASCII branch keeps exactly the
// characters, and lowercases them exactly as, the Unicode tables do.
func TestNormaliseASCIIFastPath(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
		in := "x " + string(r) + " y"
		want := "x y"
		if word {
			want = "x " + string(unicode.ToLower(r)) + " y"
		}
		norm, words, _ := normalise(in, nil, nil)
		if string(norm) != want {
			t.Errorf("normalise(%q) = %q, want %q", in, norm, want)
		}
		if n := len(strings.Fields(want)); words != n {
			t.Errorf("normalise(%q): %d words, want %d", in, words, n)
		}
	}
	// Reused buffers give what fresh ones give.
	a, _, ha := normalise("Ünïcode, MIXED and ascii 42", nil, nil)
	b, _, hb := normalise("Ünïcode, MIXED and ascii 42", []byte("junk")[:0], []uint64{7}[:0])
	if string(a) != string(b) || string(a) != "ünïcode mixed and ascii 42" || !slices.Equal(ha, hb) {
		t.Errorf("normalise: %q %x and %q %x", a, ha, b, hb)
	}
}
