// Package textsig fingerprints a post's text for duplicate detection: an
// exact hash of the normalised text (the same words in the same order,
// whatever the case, spacing or punctuation between them) and a MinHash of
// its three-word shingles for near-copies (a syndicated post with a
// different footer, a cross-post with an edited sentence, a copy cut
// short). It does no I/O.
//
// Near-copies are found without comparing every pair: the MinHash is cut
// into Bands, a store indexes them, and only the texts that share a band
// with a new one are compared (locality-sensitive hashing: two texts whose
// shingles overlap by a Jaccard similarity s share a band with probability
// 1-(1-s^rows)^bands: 0.985 at s = 0.8, 0.40 at 0.5, 0.013 at 0.2). A
// 64-bit SimHash was measured first and set aside: on real articles of
// 150 to 1,500 words a changed sentence moved it by up to 12 bits, and an
// index that finds 12-bit neighbours compares every new text with a large
// share of the corpus.
package textsig

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Hashes is how many minimum hashes a MinHash keeps.
const Hashes = 32

// BandCount and bandRows cut the MinHash into bands for the index.
const (
	BandCount = 8
	bandRows  = Hashes / BandCount
)

// Threshold is the least estimated Jaccard similarity of two texts'
// shingles for them to be near-copies.
const Threshold = 0.7

// MinWords is the fewest words a text needs for a MinHash: below it a
// handful of shared phrases would make unrelated short texts look alike,
// so only the exact hash is given.
const MinWords = 40

// shingle is how many words make one feature.
const shingle = 3

// MinHash is a text's minimum hashes, one per hash function.
type MinHash [Hashes]uint32

// Sig is a text's fingerprint.
type Sig struct {
	// Hash is the hex SHA-256 of the normalised text (its words,
	// lowercased, one space apart); "" for a text with no word.
	Hash string
	// MinHash is the text's MinHash; Near is false (and MinHash zero)
	// for a text shorter than MinWords.
	MinHash MinHash
	Near    bool
}

// Of fingerprints text.
func Of(text string) Sig {
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	norm, words, shingles := normalise(text, sc.norm[:0], sc.shingles[:0])
	sc.norm, sc.shingles = norm, shingles
	if words == 0 {
		return Sig{}
	}
	sum := sha256.Sum256(norm)
	s := Sig{Hash: hex.EncodeToString(sum[:])}
	if words >= MinWords {
		s.MinHash, s.Near = minHash(shingles), true
	}
	return s
}

// scratch is Of's working memory, kept between calls: the normalised text
// is as long as the text (a real page's 5–50 KB) and its shingles' hashes
// 8 bytes a word; they were 6.5% of the bytes the seed's pass allocated.
type scratch struct {
	norm     []byte
	shingles []uint64
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// Similarity estimates the Jaccard similarity of two texts' shingles: the
// share of their minimum hashes that agree.
func Similarity(a, b MinHash) float64 {
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	return float64(same) / Hashes
}

// Near reports whether two MinHashes are of near-copies.
func Near(a, b MinHash) bool { return Similarity(a, b) >= Threshold }

// Bands are the MinHash's index keys: each band's rows hashed together,
// with the band's position in the top byte so that all bands can share
// one index.
func (m MinHash) Bands() [BandCount]int64 {
	var out [BandCount]int64
	for b := range BandCount {
		h := uint64(fnvOffset)
		for _, v := range m[b*bandRows : (b+1)*bandRows] {
			h = (h ^ uint64(v)) * fnvPrime
		}
		out[b] = int64(uint64(b)<<56 | mix(h)>>8)
	}
	return out
}

// Bytes is m as 128 bytes (little-endian), for a store; FromBytes reads it
// back (false for bytes of another length).
func (m MinHash) Bytes() []byte {
	out := make([]byte, 4*Hashes)
	for i, v := range m {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// FromBytes is Bytes' inverse.
func FromBytes(b []byte) (MinHash, bool) {
	var m MinHash
	if len(b) != 4*Hashes {
		return m, false
	}
	for i := range m {
		m[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return m, true
}

// minHashScalar is minHash in Go, where AVX-512 is not to be had (see
// minhash_amd64.go): for each of Hashes hash functions, the least hash of
// any shingle, given the shingles' FNV-1a hashes: function k's hash of a
// shingle hashed h is the low half of mix(h + k·0x9e3779b97f4a7c15).
//
// One function at a time over all the shingles, so that the running
// minimum stays in a register and each shingle's hash is independent of
// the last one's (the processor overlaps them), rather than all 32
// minimums loaded and stored again for every shingle: 4–5 times faster,
// the same values. Two, four or eight functions a pass (their minimums in
// registers too) measured no faster (BenchmarkMinHash, 47–54 us either
// way): each hash is two 64-bit multiplies and a dozen other instructions
// whatever the order, and four chains at once spill registers.
func minHashScalar(shingles []uint64) MinHash {
	var m MinHash
	for k := range m {
		step := uint64(k) * 0x9e3779b97f4a7c15
		least := ^uint32(0)
		for _, h := range shingles {
			least = min(least, uint32(mix(h+step)))
		}
		m[k] = least
	}
	return m
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// mix spreads FNV's low-entropy high bits (splitmix64's finaliser), so
// that every bit of the SimHash is as likely set as not.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// normalise is text's words, lowercased (runs of letters, digits and
// combining marks), one space apart, how many words there are, and the
// FNV-1a hash of each run of shingle words of the normalised text (its
// bytes, the spaces between the words included), in order. It appends to
// norm and shingles (given empty, for their capacity).
//
// The shingles are hashed as the words are written, in the same pass: one
// running hash per shingle under way (one starts at each word and ends
// shingle words later), each byte folded into all of them.
func normalise(text string, norm []byte, shingles []uint64) ([]byte, int, []uint64) {
	norm = slices.Grow(norm, len(text))
	shingles = slices.Grow(shingles, len(text)/4)
	// The running hashes, in registers: the one begun at word w is
	// h[w%shingle], rotated so that h0 is always the oldest (the one the
	// current word ends) and h2 the newest.
	var h0, h1, h2 uint64
	words := 0
	in := false
	for i := 0; i < len(text); {
		if c := asciiWordByte[text[i]]; c != 0 {
			// An ASCII letter or digit, most bytes of most texts: the
			// word's run of them in a loop of its own, lowercased by the
			// table, without the Unicode tables or the tests below.
			if !in {
				h0, h1, h2 = beginWord(&norm, h1, h2)
				words++
				in = true
			}
			for {
				norm = append(norm, c)
				h0 = (h0 ^ uint64(c)) * fnvPrime
				h1 = (h1 ^ uint64(c)) * fnvPrime
				h2 = (h2 ^ uint64(c)) * fnvPrime
				if i++; i == len(text) {
					break
				}
				if c = asciiWordByte[text[i]]; c == 0 {
					break
				}
			}
			continue
		}
		if text[i] < utf8.RuneSelf {
			i++ // ASCII, not of a word
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			i += size
			if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
				if !in {
					h0, h1, h2 = beginWord(&norm, h1, h2)
					words++
					in = true
				}
				from := len(norm)
				norm = utf8.AppendRune(norm, unicode.ToLower(r))
				for _, c := range norm[from:] {
					h0 = (h0 ^ uint64(c)) * fnvPrime
					h1 = (h1 ^ uint64(c)) * fnvPrime
					h2 = (h2 ^ uint64(c)) * fnvPrime
				}
				continue
			}
		}
		if in {
			if words >= shingle {
				shingles = append(shingles, h0) // began shingle-1 words ago
			}
			in = false
		}
	}
	if in && words >= shingle {
		shingles = append(shingles, h0)
	}
	return norm, words, shingles
}

// asciiWordByte is, for each byte, its lower case if it is an ASCII letter
// or digit (what unicode.IsLetter, IsDigit and ToLower make of it), else
// 0. Built once, never changed.
var asciiWordByte = func() (t [256]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// beginWord writes the space before a word that is not the text's first
// (folded into the shingles under way) and starts the word's shingle: it
// gives the running hashes rotated, the oldest dropped (it ended with the
// last word) and a new one begun.
func beginWord(norm *[]byte, h1, h2 uint64) (uint64, uint64, uint64) {
	if len(*norm) > 0 {
		*norm = append(*norm, ' ')
		h1 = (h1 ^ ' ') * fnvPrime
		h2 = (h2 ^ ' ') * fnvPrime
	}
	return h1, h2, fnvOffset
}
