package textsig

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestMeasureReal measures the near-copy threshold on real articles, given
// TEXTSIG_GT, a JSON object of {"id": {"articleBody": "..."}} (the Zyte
// article-extraction benchmark's ground-truth.json has this shape): each
// text of 150 words or more against four edited copies of itself (a
// syndication footer, a byline header, a changed sentence, the last tenth
// cut), and every pair of different texts. It logs the similarities, the
// band candidates and the recall and false pairs at several thresholds
// (BENCHMARKS.md, duplicates).
func TestMeasureReal(t *testing.T) {
	path := os.Getenv("TEXTSIG_GT")
	if path == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(path)
	var gt map[string]struct{ ArticleBody string }
	json.Unmarshal(b, &gt)
	var texts []string
	for _, v := range gt {
		if len(strings.Fields(v.ArticleBody)) >= 150 {
			texts = append(texts, v.ArticleBody)
		}
	}
	sort.Strings(texts)
	r := rand.New(rand.NewPCG(1, 2))
	edits := map[string]func(string) string{
		"footer": func(s string) string {
			return s + "\n\nThis post first appeared on Example Blog. Republished with permission."
		},
		"header": func(s string) string { return "By Jane Doe, for Example News. " + s },
		"sentence": func(s string) string {
			w := strings.Fields(s)
			i := r.IntN(len(w) - 12)
			copy(w[i:], strings.Fields("and here is a sentence the editor changed for the republished copy"))
			return strings.Join(w, " ")
		},
		"truncated": func(s string) string {
			w := strings.Fields(s)
			return strings.Join(w[:len(w)*9/10], " ") + " Read more at the source."
		},
	}
	hist := map[string][]float64{}
	for _, s := range texts {
		a := Of(s)
		for name, e := range edits {
			o := Of(e(s)).MinHash
			if !shareBandM(a.MinHash, o) {
				t.Logf("%s: no band shared (similarity %.2f)", name, Similarity(a.MinHash, o))
			}
			hist[name] = append(hist[name], Similarity(a.MinHash, o))
		}
	}
	var unrel []float64
	cand := 0
	sigs := make([]MinHash, len(texts))
	for i := range texts {
		sigs[i] = Of(texts[i]).MinHash
	}
	for i := range texts {
		for j := i + 1; j < len(texts); j++ {
			unrel = append(unrel, Similarity(sigs[i], sigs[j]))
			if shareBandM(sigs[i], sigs[j]) {
				cand++
			}
		}
	}
	for name, h := range hist {
		sort.Float64s(h)
		t.Logf("%-10s n=%d min=%.2f p1=%.2f p10=%.2f p50=%.2f", name, len(h), h[0], h[len(h)/100], h[len(h)/10], h[len(h)/2])
	}
	sort.Float64s(unrel)
	t.Logf("unrelated n=%d max=%.3f p99.9=%.3f p99=%.3f p50=%.3f band candidates=%d", len(unrel), unrel[len(unrel)-1], unrel[len(unrel)*999/1000], unrel[len(unrel)*99/100], unrel[len(unrel)/2], cand)
	for _, k := range []float64{0.5, 0.6, 0.7, 0.8, 0.9} {
		miss, fp := 0, 0
		tot := 0
		for _, h := range hist {
			for _, d := range h {
				tot++
				if d < k {
					miss++
				}
			}
		}
		for _, d := range unrel {
			if d >= k {
				fp++
			}
		}
		t.Logf("k=%.1f recall=%.3f false pairs=%d of %d", k, 1-float64(miss)/float64(tot), fp, len(unrel))
	}
}

func shareBandM(a, b MinHash) bool {
	ba, bb := a.Bands(), b.Bands()
	for i := range ba {
		if ba[i] == bb[i] {
			return true
		}
	}
	return false
}
