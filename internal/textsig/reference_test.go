package textsig

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The fingerprint as first written, kept as the reference the faster one
// must agree with bit for bit: stores compare new texts against
// fingerprints saved by earlier versions, so any change to what Of gives
// would hide every copy of a text fingerprinted before it.

func referenceOf(text string) Sig {
	norm, ends := referenceNormalise(text)
	if len(ends) == 0 {
		return Sig{}
	}
	sum := sha256.Sum256(norm)
	s := Sig{Hash: hex.EncodeToString(sum[:])}
	if len(ends) >= MinWords {
		s.MinHash, s.Near = referenceMinHash(norm, ends), true
	}
	return s
}

func referenceMinHash(norm []byte, ends []int) MinHash {
	var m MinHash
	for i := range m {
		m[i] = ^uint32(0)
	}
	start := 0
	for i := range max(len(ends)-shingle+1, 1) {
		end := ends[min(i+shingle, len(ends))-1]
		h := uint64(fnvOffset)
		for _, c := range norm[start:end] {
			h = (h ^ uint64(c)) * fnvPrime
		}
		for k := range m {
			if v := uint32(mix(h + uint64(k)*0x9e3779b97f4a7c15)); v < m[k] {
				m[k] = v
			}
		}
		start = ends[i] + 1
	}
	return m
}

func referenceNormalise(text string) ([]byte, []int) {
	var norm []byte
	var ends []int
	in := false
	for _, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if !in && len(norm) > 0 {
				norm = append(norm, ' ')
			}
			norm = utf8.AppendRune(norm, unicode.ToLower(r))
			in = true
			continue
		}
		if in {
			ends = append(ends, len(norm))
			in = false
		}
	}
	if in {
		ends = append(ends, len(norm))
	}
	return norm, ends
}

// referenceTexts are the fixtures (testdata: prose, many scripts and
// combining marks, broken UTF-8, control characters) and texts made from
// them: cut at every length around MinWords, repeated, and generated prose
// of many lengths.
func referenceTexts(t testing.TB) map[string]string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("fixtures: %v (%d files)", err, len(files))
	}
	texts := map[string]string{"empty": "", "space": " \t\n", "one": "word", "two": "two words", "three": "three whole words"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		texts[name] = string(b)
		texts[name+" twice"] = string(b) + string(b)
		words := strings.Fields(string(b))
		for n := range min(len(words), MinWords+4) {
			texts[name+" first "+strings.Repeat("w", n)] = strings.Join(words[:n], " ")
		}
	}
	for _, n := range []int{MinWords - 1, MinWords, MinWords + 1, 150, 1500} {
		for seed := range uint64(3) {
			texts["article "+strings.Repeat("w", n%50)+string(rune('a'+seed))] = strings.Join(article(seed+uint64(n), n), " ")
		}
	}
	return texts
}

// TestOfMatchesReference: Of gives what the reference gives, for every
// fixture, and again with its buffers reused from a longer text.
func TestOfMatchesReference(t *testing.T) {
	texts := referenceTexts(t)
	nears := 0
	for name, text := range texts {
		want := referenceOf(text)
		if got := Of(text); got != want {
			t.Errorf("%s: Of = %+v\nreference %+v", name, got, want)
		}
		if want.Near {
			nears++
		}
	}
	if nears < 10 {
		t.Errorf("only %d fixtures long enough for a MinHash", nears)
	}
}

// TestNormaliseMatchesReference: the normalised text and word count are
// the reference's, and each shingle hash is the FNV-1a of the words it
// spans as the reference cuts them.
func TestNormaliseMatchesReference(t *testing.T) {
	for name, text := range referenceTexts(t) {
		wantNorm, ends := referenceNormalise(text)
		norm, words, shingles := normalise(text, nil, nil)
		if string(norm) != string(wantNorm) || words != len(ends) {
			t.Errorf("%s: normalise = %q, %d words; reference %q, %d words", name, norm, words, wantNorm, len(ends))
			continue
		}
		if want := max(len(ends)-shingle+1, 0); len(shingles) != want {
			t.Errorf("%s: %d shingles, want %d", name, len(shingles), want)
			continue
		}
		start := 0
		for i, h := range shingles {
			want := uint64(fnvOffset)
			for _, c := range norm[start:ends[i+shingle-1]] {
				want = (want ^ uint64(c)) * fnvPrime
			}
			if h != want {
				t.Errorf("%s: shingle %d hashed %x, want %x", name, i, h, want)
				break
			}
			start = ends[i] + 1
		}
	}
}

// FuzzOfMatchesReference: on any input, Of is the reference.
func FuzzOfMatchesReference(f *testing.F) {
	for _, text := range referenceTexts(f) {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Of(s), referenceOf(s); got != want {
			t.Fatalf("Of(%q) = %+v\nreference %+v", s, got, want)
		}
	})
}

// BenchmarkOfReference is BenchmarkOf's text through the reference, for
// the difference in one run.
func BenchmarkOfReference(b *testing.B) {
	text := strings.Join(article(1, 1500), " ")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		referenceOf(text)
	}
}

// referenceShingleMinHash is minHash as first written, one shingle at a
// time with every function's minimum updated for it: what the faster
// minHash must give for any shingles.
func referenceShingleMinHash(shingles []uint64) MinHash {
	var m MinHash
	for k := range m {
		m[k] = ^uint32(0)
	}
	for _, h := range shingles {
		for k := range m {
			if v := uint32(mix(h + uint64(k)*0x9e3779b97f4a7c15)); v < m[k] {
				m[k] = v
			}
		}
	}
	return m
}

// shinglesOf reads b as little-endian shingle hashes (a short tail
// ignored), for fuzzing minHash with any hashes, not only FNV's.
func shinglesOf(b []byte) []uint64 {
	shingles := make([]uint64, 0, len(b)/8)
	for ; len(b) >= 8; b = b[8:] {
		shingles = append(shingles, binary.LittleEndian.Uint64(b))
	}
	return shingles
}

// TestMinHashMatchesReference: minHash is the reference on random
// shingles of every count from none to a long post's, and on hashes
// chosen to land on the functions' edges (zero, all ones, near the
// steps that set them apart).
func TestMinHashMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		if n > 100 {
			n = n * 7 % 3000
		}
		shingles := make([]uint64, n)
		for i := range shingles {
			shingles[i] = rng.Uint64()
		}
		want := referenceShingleMinHash(shingles)
		if got := minHash(shingles); got != want {
			t.Fatalf("%d random shingles: minHash = %x\nreference %x", n, got, want)
		}
		if got := minHashScalar(shingles); got != want {
			t.Fatalf("%d random shingles: minHashScalar = %x\nreference %x", n, got, want)
		}
	}
	step := uint64(0x9e3779b97f4a7c15) // what tells the functions apart
	edges := []uint64{0, 1, ^uint64(0), 1 << 63, -step, -(2 * step), -(31 * step), step}
	if got, want := minHash(edges), referenceShingleMinHash(edges); got != want || minHashScalar(edges) != want {
		t.Fatalf("edge shingles: minHash = %x, minHashScalar = %x\nreference %x", got, minHashScalar(edges), want)
	}
}

// FuzzMinHashMatchesReference: on any shingle hashes, minHash (with
// AVX-512 where the processor has it) and minHashScalar are the
// reference.
func FuzzMinHashMatchesReference(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 8))
	f.Add([]byte("0123456789abcdef0123456789abcdef01234567"))
	f.Fuzz(func(t *testing.T, b []byte) {
		shingles := shinglesOf(b)
		want := referenceShingleMinHash(shingles)
		if got := minHash(shingles); got != want {
			t.Fatalf("minHash(%x) = %x\nreference %x", shingles, got, want)
		}
		if got := minHashScalar(shingles); got != want {
			t.Fatalf("minHashScalar(%x) = %x\nreference %x", shingles, got, want)
		}
	})
}
