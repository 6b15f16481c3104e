package farm

import (
	"math/rand/v2"
	"strconv"
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
	for range 1_000_000 {
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
