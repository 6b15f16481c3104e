package farm

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// docWriter builds a document without fmt: at SizesReal the farm writes
// megabytes of markup a second, and formatting each piece through fmt (its
// interfaces, its reflection, a temporary string per argument) was most of
// the simulated server's CPU. Each method writes what the fmt verb named
// in its comment writes, byte for byte.
type docWriter struct{ strings.Builder }

// str writes its arguments in order (%s).
func (w *docWriter) str(parts ...string) {
	for _, p := range parts {
		w.WriteString(p)
	}
}

// int writes v in decimal (%d).
func (w *docWriter) int(v int) {
	var buf [24]byte
	w.Write(strconv.AppendInt(buf[:0], int64(v), 10))
}

// hex writes v in lowercase hexadecimal, zero-padded to width digits
// (%x, %06x).
func (w *docWriter) hex(v uint64, width int) {
	var buf [24]byte
	b := strconv.AppendUint(buf[:0], v, 16)
	for range width - len(b) {
		w.WriteByte('0')
	}
	w.Write(b)
}

// zeroPad writes v in decimal, zero-padded to width digits (%02d), v ≥ 0.
func (w *docWriter) zeroPad(v, width int) {
	var buf [24]byte
	b := strconv.AppendInt(buf[:0], int64(v), 10)
	for range width - len(b) {
		w.WriteByte('0')
	}
	w.Write(b)
}

// float writes v with prec decimals (%.2f, %.1f).
func (w *docWriter) float(v float64, prec int) {
	var buf [32]byte
	w.Write(strconv.AppendFloat(buf[:0], v, 'f', prec, 64))
}

// quote writes s as a Go string literal (%q).
func (w *docWriter) quote(s string) {
	var buf [128]byte
	w.Write(strconv.AppendQuote(buf[:0], s))
}

// time writes t in layout (t.Format(layout)).
func (w *docWriter) time(t time.Time, layout string) {
	var buf [64]byte
	w.Write(t.AppendFormat(buf[:0], layout))
}

// prose writes prose(seed, n, sentences).
func (w *docWriter) prose(seed uint64, n int, sentences bool) {
	writeProse(&w.Builder, seed, n, sentences)
}

// writeProse writes n words of deterministic text for seed to b (see prose).
func writeProse(b *strings.Builder, seed uint64, n int, sentences bool) {
	src := rand.NewPCG(seed, 0x5eed)
	r := rand.New(src)
	start := true
	for i := range n {
		w := Words[r.IntN(len(Words))]
		if start {
			// Every word is lowercase ASCII: strings.ToUpper of its first
			// letter, without the string it allocates.
			b.WriteByte(w[0] - 'a' + 'A')
			w = w[1:]
			start = false
		}
		b.WriteString(w)
		switch {
		case i == n-1:
			if sentences {
				b.WriteByte('.')
			}
		case sentences && r.IntN(9) == 0:
			b.WriteString(". ")
			start = true
		default:
			b.WriteByte(' ')
		}
	}
}
