package farm

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAppendFixed compares appendFixed with strconv over the ranges the
// farm formats, exact halves and values just beside them included.
func TestAppendFixed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(v float64, prec int) {
		if got, want := string(appendFixed(nil, v, prec)), strconv.FormatFloat(v, 'f', prec, 64); got != want {
			t.Fatalf("appendFixed(%v, %d) = %s, want %s", v, prec, got, want)
		}
	}
	for range 200_000 {
		for _, prec := range []int{1, 2} {
			check(r.Float64()*3, prec)
			check(1+r.Float64()*2, prec)
			check(8+r.Float64()*14, prec)
		}
	}
	for i := range 4000 {
		for _, prec := range []int{1, 2} {
			v := float64(i) / 200 // every half of a hundredth up to 20
			check(v, prec)
			check(v+1e-15, prec)
			check(v-1e-15, prec)
			check(v+1e-9, prec)
			check(v-1e-9, prec)
		}
	}
	check(-1.25, 1)
	check(1e12, 2)
	check(0, 1)
	check(2.5, 0)
}

// TestRNGDrawsAsRand checks rng against the rand.Rand it stands for,
// over bounds small and large, powers of two included.
func TestRNGDrawsAsRand(t *testing.T) {
	for seed := range uint64(50) {
		want := rand.New(rand.NewPCG(seed, 0x5eed))
		got := newRNG(seed, 0x5eed)
		for i := range 2000 {
			switch n := []int{1, 2, 9, 64, 139, 500, 5000, 1 << 20, 1<<62 + 1}[(i/3)%9]; i % 3 {
			case 0:
				if g, w := got.IntN(n), want.IntN(n); g != w {
					t.Fatalf("seed %d draw %d: IntN(%d) = %d, want %d", seed, i, n, g, w)
				}
			case 1:
				if g, w := got.Float64(), want.Float64(); g != w {
					t.Fatalf("seed %d draw %d: Float64() = %v, want %v", seed, i, g, w)
				}
			default:
				if n&(n-1) == 0 {
					continue // below takes no power of two
				}
				un := uint64(n)
				if g, w := got.below(un, -un%un), want.IntN(n); int(g) != w {
					t.Fatalf("seed %d draw %d: below(%d) = %d, want %d", seed, i, n, g, w)
				}
			}
		}
	}
}

// TestAppendJSONString compares appendJSONString with json.Marshal.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `<p class="x">a & b</p>` + "\n", `back\slash`, "tab\there", "\x00\x1f\x7f",
		"caf\u00e9", "line\u2028sep", "bad\xffutf8", "<![CDATA[x]]>", strings.Repeat("<a>\n", 100),
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got[len("prefix"):], want)
		}
		if got := appendJSONString(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("appendJSONString([]byte(%q)) = %s, want %s", s, got, want)
		}
	}
}

// TestAppendQuote compares appendQuote with strconv.Quote.
func TestAppendQuote(t *testing.T) {
	for _, s := range []string{"", "word", "Two words.", `q"uote`, `b\s`, "tab\t", "caf\u00e9", "\xff", "~ !"} {
		if got, want := string(appendQuote(nil, s)), strconv.Quote(s); got != want {
			t.Errorf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestHashOfIsFNV1a checks hashOf against hash/fnv.
func TestHashOfIsFNV1a(t *testing.T) {
	for _, c := range []struct {
		seed  uint64
		parts []string
	}{{0, nil}, {1, []string{""}}, {0xdeadbeefcafe, []string{"furniture", "/2026/03/01/a-b-c-1/"}}, {^uint64(0), []string{"x", "", "y"}}} {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], c.seed)
		h.Write(b[:])
		for _, p := range c.parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
		if got, want := hashOf(c.seed, c.parts...), h.Sum64(); got != want {
			t.Errorf("hashOf(%#x, %q) = %#x, want %#x", c.seed, c.parts, got, want)
		}
	}
}
