package demo

import (
	"math/rand/v2"
	"strings"
)

// words is the vocabulary of the generated posts: varied enough that the
// pages compress about as well as real prose, not a thousandfold.
var words = strings.Fields(`the a of and to in is that it for on with as was by this be are from at or an
have not but which one all were they their there been has more when will would can who out about so up if
what some into its time only new other could very after two may first also any these like than then now
crawler feed sitemap page server request blog post archive robots budget polite cache header date index
garden kettle river lantern orchard meadow copper harbour thistle bramble willow cedar granite pebble
morning evening winter summer autumn spring journey letter market village bridge window library notebook
quietly slowly briefly clearly simply gently nearly rarely often always never perhaps maybe indeed
build measure compare write read walk fetch parse store change publish remove update notice wonder`)

// prose is n words of deterministic text for seed, in sentences.
func prose(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	sentence := 0
	for i := 0; i < n; i++ {
		w := words[r.IntN(len(words))]
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
