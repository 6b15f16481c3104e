package farm

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"
)

// docWriter builds a document without fmt: at SizesReal the farm writes
// megabytes of markup a second, and formatting each piece through fmt (its
// interfaces, its reflection, a temporary string per argument) was most of
// the simulated server's CPU. Each method writes what the fmt verb named
// in its comment writes, byte for byte.
//
// It appends to a byte slice rather than a strings.Builder so that a
// served document can be built in a buffer taken from writers and written
// out from there: a page's parts and the page itself no longer each
// become a fresh string of a hundred kilobytes for the collector.
type docWriter struct{ buf []byte }

// writers holds the buffers documents are built in between requests.
var writers = sync.Pool{New: func() any { return new(docWriter) }}

// maxPooled is the largest buffer put back in writers: a rare
// megabyte-sized feed page should not pin a megabyte per P for ever.
const maxPooled = 2 << 20

// getWriter is an empty docWriter from writers; putWriter returns it.
func getWriter() *docWriter {
	w := writers.Get().(*docWriter)
	w.buf = w.buf[:0]
	return w
}

func putWriter(w *docWriter) {
	if cap(w.buf) <= maxPooled {
		writers.Put(w)
	}
}

func (w *docWriter) Len() int { return len(w.buf) }

// Grow makes room for n more bytes.
func (w *docWriter) Grow(n int) {
	if cap(w.buf)-len(w.buf) < n {
		b := make([]byte, len(w.buf), 2*cap(w.buf)+n)
		copy(b, w.buf)
		w.buf = b
	}
}

func (w *docWriter) WriteString(s string)   { w.buf = append(w.buf, s...) }
func (w *docWriter) WriteByte(c byte) error { w.buf = append(w.buf, c); return nil }
func (w *docWriter) Write(p []byte)         { w.buf = append(w.buf, p...) }

// String is a copy of what was written.
func (w *docWriter) String() string { return string(w.buf) }

// str writes its arguments in order (%s).
func (w *docWriter) str(parts ...string) {
	for _, p := range parts {
		w.buf = append(w.buf, p...)
	}
}

// int writes v in decimal (%d).
func (w *docWriter) int(v int) { w.buf = strconv.AppendInt(w.buf, int64(v), 10) }

// uint writes v in decimal (%d).
func (w *docWriter) uint(v uint64) { w.buf = strconv.AppendUint(w.buf, v, 10) }

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
	w.buf = appendFixed(w.buf, v, prec)
}

// appendFixed is strconv.AppendFloat(dst, v, 'f', prec, 64) for the
// farm's CSS and tag-cloud sizes (0 ≤ v < 10⁹, prec of 1 or 2), rounding
// v·10^prec to an integer unless it falls too near a half to tell how
// the exact decimal value rounds; other values, and those, go through
// strconv.
func appendFixed(dst []byte, v float64, prec int) []byte {
	var scale float64
	switch prec {
	case 1:
		scale = 10
	case 2:
		scale = 100
	default:
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	x := v * scale // off from the exact product by far less than 1e-6
	if !(v >= 0 && x < 1e11) {
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	fl := math.Floor(x)
	frac := x - fl
	if math.Abs(frac-0.5) < 1e-6 {
		return strconv.AppendFloat(dst, v, 'f', prec, 64)
	}
	k := uint64(fl)
	if frac > 0.5 {
		k++
	}
	dst = strconv.AppendUint(dst, k/uint64(scale), 10)
	dst = append(dst, '.')
	frac10 := k % uint64(scale)
	if prec == 2 {
		dst = append(dst, byte('0'+frac10/10))
		frac10 %= 10
	}
	return append(dst, byte('0'+frac10))
}

// quote writes s as a Go string literal (%q).
func (w *docWriter) quote(s string) { w.buf = appendQuote(w.buf, s) }

// appendQuote is strconv.AppendQuote, without its rune-by-rune escaping
// for what the farm quotes nearly always: words, titles, URLs and times,
// printable ASCII with no quote or backslash, which quote as themselves.
func appendQuote[T string | []byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return strconv.AppendQuote(dst, string(s))
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// time writes t in layout (t.Format(layout)).
func (w *docWriter) time(t time.Time, layout string) { w.buf = t.AppendFormat(w.buf, layout) }

// prose writes prose(seed, n, sentences).
func (w *docWriter) prose(seed uint64, n int, sentences bool) {
	w.buf = appendProse(w.buf, seed, n, sentences)
}

// rng draws what a *rand.Rand over a PCG draws, number for number, but
// calls the PCG directly rather than through the rand.Source interface,
// and costs no allocation: the farm draws a few numbers per word of text
// it serves.
type rng struct{ pcg rand.PCG }

// newRNG is rand.New(rand.NewPCG(seed1, seed2)), as an rng.
func newRNG(seed1, seed2 uint64) rng {
	var r rng
	r.pcg.Seed(seed1, seed2)
	return r
}

// IntN is rand.Rand.IntN: its uint64n, for a 64-bit int.
func (r *rng) IntN(n int) int {
	if n <= 0 {
		panic("invalid argument to IntN")
	}
	if strconv.IntSize == 32 {
		// rand.Rand draws 32-bit bounds differently there: let it.
		return rand.New(&r.pcg).IntN(n)
	}
	un := uint64(n)
	if un&(un-1) == 0 {
		return int(r.pcg.Uint64() & (un - 1))
	}
	hi, lo := bits.Mul64(r.pcg.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.pcg.Uint64(), un)
		}
	}
	return int(hi)
}

// Float64 is rand.Rand.Float64.
func (r *rng) Float64() float64 { return float64(r.pcg.Uint64()<<11>>11) / (1 << 53) }

// below is IntN(int(n)) for an n that is not a power of two, with
// thresh = -n % n worked out beforehand: the draw of a word, inlined.
func (r *rng) below(n, thresh uint64) uint64 {
	if strconv.IntSize == 32 {
		return uint64(rand.New(&r.pcg).IntN(int(n)))
	}
	// IntN redraws while the low half is under thresh, which is under n,
	// after checking it against n first to spare the division: here the
	// division is done.
	for {
		hi, lo := bits.Mul64(r.pcg.Uint64(), n)
		if lo >= thresh {
			return hi
		}
	}
}

// proseWord is a word of Words in a fixed-size array, which appendProse
// copies whole, as two moves, instead of calling memmove for a few bytes.
type proseWord struct {
	b [16]byte
	n int
}

// proseWords and capitalWords are Words as proseWords, the latter with
// their first letters upper-cased, for the first word of a sentence;
// wordsN and wordsThresh are how below draws one of them.
var (
	proseWords, capitalWords = wordTables()
	wordsN                   = uint64(len(Words))
	wordsThresh              = -wordsN % wordsN
)

// sentenceN and sentenceThresh are how below draws IntN(9).
const sentenceN, sentenceThresh = 9, (1<<64 - 9) % 9

func wordTables() (lower, capital []proseWord) {
	if n := uint64(len(Words)); n&(n-1) == 0 {
		panic("farm: IntN masks for a power of two; below does not")
	}
	lower = make([]proseWord, len(Words))
	capital = make([]proseWord, len(Words))
	for i, w := range Words {
		if len(w) > len(lower[i].b) {
			panic("farm: word too long for proseWord: " + w)
		}
		// Prose is then printable ASCII without quotes or backslashes,
		// which %q leaves as it is (the theme state relies on it).
		for _, c := range []byte(w) {
			if c < 'a' || c > 'z' {
				panic("farm: a word not in lowercase ASCII: " + w)
			}
		}
		lower[i].n = copy(lower[i].b[:], w)
		capital[i] = lower[i]
		capital[i].b[0] = w[0] - 'a' + 'A'
	}
	return lower, capital
}

// appendProse appends n words of deterministic text for seed to dst (see
// prose).
func appendProse(dst []byte, seed uint64, n int, sentences bool) []byte {
	// Room for n words and their separators, and for a whole proseWord
	// written at the end.
	dst = slices.Grow(dst, n*(len(proseWord{}.b)+2))
	l := len(dst)
	dst = dst[:cap(dst)]
	r := newRNG(seed, 0x5eed)
	start := true
	for i := range n {
		k := r.below(wordsN, wordsThresh)
		w := &proseWords[k]
		if start {
			w = &capitalWords[k]
			start = false
		}
		*(*[16]byte)(dst[l:]) = w.b
		l += w.n
		switch {
		case i == n-1:
			if sentences {
				dst[l] = '.'
				l++
			}
		case sentences && r.below(sentenceN, sentenceThresh) == 0:
			dst[l], dst[l+1] = '.', ' '
			l += 2
			start = true
		default:
			dst[l] = ' '
			l++
		}
	}
	return dst[:l]
}
