package sitemap

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

// BenchmarkRead compares Read with the plain way of reading the same
// sitemaps, an encoding/xml Token loop doing the same work (refRead), on the
// corpora of gen_test.go. Names are BenchmarkRead/<corpus>/lib=<lib>, so that
//
//	benchstat -col /lib old.txt
//
// puts the two side by side. MB/s counts uncompressed bytes. peak-heap-MiB
// is measured once per corpus on a streamed copy of the input (outside the
// timed loop, which reads from memory), so it is the reader's own heap.
func BenchmarkRead(b *testing.B) {
	for _, c := range corpora {
		// The peaks are measured before the input is generated in memory,
		// which would otherwise let the collector run late.
		ourPeak := peakHeap(func(sample func()) { readStreamed(b, c, sample) })
		refPeak := peakHeap(func(sample func()) {
			n := 0
			refRead(openRef(b, c, c.reader()), func(Entry) {
				if n++; n%256 == 0 {
					sample()
				}
			})
		})
		data, size := c.bytes(), c.size()
		b.Run(c.name+"/lib=corpusbot", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if _, err := Read(bytes.NewReader(data), Options{}, func(Entry) error { n++; return nil }); err != nil || n != c.n {
					b.Fatalf("%d entries, %v", n, err)
				}
			}
			b.ReportMetric(float64(ourPeak)/(1<<20), "peak-heap-MiB")
		})
		b.Run(c.name+"/lib=encoding-xml", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if _, err := refRead(openRef(b, c, bytes.NewReader(data)), func(Entry) { n++ }); err != nil || n != c.n {
					b.Fatalf("%d entries, %v", n, err)
				}
			}
			b.ReportMetric(float64(refPeak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// openRef undoes gzip for refRead, which, like encoding/xml, does not.
func openRef(b *testing.B, c corpus, r io.Reader) io.Reader {
	if !c.gzip {
		return r
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		b.Fatal(err)
	}
	return zr
}
