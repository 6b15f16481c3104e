package sitemap

import (
	"bytes"
	"testing"

	"corpus.blog/corpusbot/internal/memtest"
)

var peakHeap = memtest.PeakHeap

// readStreamed reads r to the end, sampling the heap every 256 entries.
func readStreamed(t testing.TB, c corpus, sample func()) Summary {
	n := 0
	sum, err := Read(c.reader(), Options{}, func(Entry) error {
		if n++; n%256 == 0 {
			sample()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

const heapBudget = 16 << 20

// TestPeakHeap holds Read to constant memory: the 10 MB sitemaps, plain and
// gzipped, the 50 MB worst case and a decompression bomb are each read with
// the heap never above 16 MB. The input is generated as it is read (or held
// compressed, a few hundred kilobytes), so what is measured is the reader.
func TestPeakHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 120 MB")
	}
	for _, c := range corpora {
		t.Run(c.name, func(t *testing.T) {
			var sum Summary
			peak := peakHeap(func(sample func()) { sum = readStreamed(t, c, sample) })
			if sum.URLs != c.n || !sum.Whole() {
				t.Fatalf("read %+v", sum)
			}
			t.Logf("%s: %d bytes, peak heap %.1f MiB", c.name, sum.Bytes, float64(peak)/(1<<20))
			if peak > heapBudget {
				t.Fatalf("peak heap %d bytes, over %d", peak, heapBudget)
			}
		})
	}
	t.Run("gzip-bomb", func(t *testing.T) {
		bomb := gzipBomb(64 << 20)
		var sum Summary
		peak := peakHeap(func(sample func()) {
			sum, _ = Read(bytes.NewReader(bomb), Options{}, func(Entry) error { sample(); return nil })
		})
		t.Logf("bomb: %d bytes of gzip inflating to 64 MiB, cut at %d, peak heap %.1f MiB", len(bomb), sum.Bytes, float64(peak)/(1<<20))
		if !sum.Truncated || peak > heapBudget {
			t.Fatalf("%+v, peak heap %d", sum, peak)
		}
	})
}

// TestWorstCaseFits checks the worst-case corpus is what it claims: 50,000
// entries just under the 50 MB limit.
func TestWorstCaseFits(t *testing.T) {
	for _, c := range corpora {
		size := c.size()
		if c.name == "worst-50MB" && (size > DefaultMaxBytes || size < 49_000_000) {
			t.Fatalf("%s is %d bytes", c.name, size)
		}
		if c.name != "worst-50MB" && (size < 9_500_000 || size > 10_500_000) {
			t.Fatalf("%s is %d bytes", c.name, size)
		}
	}
}
