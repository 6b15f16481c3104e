package demo

import (
	"math/rand/v2"
	"strings"

	"corpus.blog/corpusbot/internal/simweb/farm"
)

// prose is n words of deterministic text for seed, in sentences.
func prose(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	sentence := 0
	for i := 0; i < n; i++ {
		w := farm.Words[r.IntN(len(farm.Words))]
		if sentence == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		sentence++
		if sentence > 6 && r.IntN(8) == 0 || i == n-1 {
			b.WriteString(". ")
			sentence = 0
		} else {
			b.WriteByte(' ')
		}
	}
	return strings.TrimSpace(b.String())
}

// paragraphs is the body of a post: count paragraphs of about 60 words.
func paragraphs(seed uint64, count int) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = prose(seed*31+uint64(i), 50+int(seed>>3+uint64(i)*7)%25)
	}
	return out
}

// title is a post's title from its seed.
func title(seed uint64) string {
	t := prose(seed^0x7177, 5)
	return strings.TrimSuffix(t, ".")
}
