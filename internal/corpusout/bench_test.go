package corpusout

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// benchPosts is the corpus the benchmarks write: 100k posts of about 4 KB
// of text each, with dates and a few citations. The texts share one backing
// string, so the input itself holds little memory and the peak heap is the
// writer's.
func benchPosts() []Post {
	const n = 100_000
	base := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit; ünïcödé — 日本語. ", 400)
	posts := make([]Post, n)
	for i := range posts {
		off := (i * 37) % 2000
		text := base[off : off+4000]
		posts[i] = Post{
			URL: fmt.Sprintf("https://blog%d.example.com/2026/%02d/post-%d", i%5000, 1+i%12, i), Source: fmt.Sprintf("https://blog%d.example.com/", i%5000),
			Site: fmt.Sprintf("https://blog%d.example.com", i%5000), Title: fmt.Sprintf("Post number %d", i),
			Published: "2026-01-02T03:04:05Z", Lastmod: "2026-01-03T03:04:05Z", FirstSeen: "2026-01-04T03:04:05Z",
			State: "indexed", TextFrom: "page", TextBytes: len(text), Text: text,
			Citations: []string{"https://cited.example.org/a", fmt.Sprintf("https://cited.example.org/%d", i%100)},
		}
	}
	return posts
}

// BenchmarkWrite writes the 100k posts to io.Discard with each writer:
// JSON lines, and Parquet with zstd (NewParquet's) and with snappy (the
// other codec a user would pick). peak-heap-MiB is the highest HeapInuse
// sampled every 1000 posts above the heap before writing, so it is the
// writer's own. Names are BenchmarkWrite/format=<f> for benchstat -col
// /format.
func BenchmarkWrite(b *testing.B) {
	posts := benchPosts()
	var textBytes int64
	for _, p := range posts {
		textBytes += int64(len(p.Text))
	}
	for _, c := range []struct {
		name string
		open func(io.Writer) (postWriter, func() error)
	}{
		{"jsonl", func(w io.Writer) (postWriter, func() error) { return NewJSONLines(w), func() error { return nil } }},
		{"parquet-zstd", parquetOpener(&parquet.Zstd)},
		{"parquet-snappy", parquetOpener(&parquet.Snappy)},
	} {
		b.Run("format="+c.name, func(b *testing.B) {
			b.SetBytes(textBytes)
			b.ReportAllocs()
			var peak uint64
			var ms runtime.MemStats
			for b.Loop() {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before := ms.HeapInuse
				out := &countingWriter{}
				w, closeFn := c.open(out)
				for i, p := range posts {
					if err := w.Write(p); err != nil {
						b.Fatal(err)
					}
					if i%1000 == 999 {
						runtime.ReadMemStats(&ms)
						if ms.HeapInuse > before && ms.HeapInuse-before > peak {
							peak = ms.HeapInuse - before
						}
					}
				}
				if err := closeFn(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(out.n)/float64(textBytes), "out/text")
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// postWriter is what both writers do.
type postWriter interface{ Write(Post) error }

func parquetOpener(codec compress.Codec) func(io.Writer) (postWriter, func() error) {
	return func(w io.Writer) (postWriter, func() error) {
		pw, err := newParquet(w, codec)
		if err != nil {
			panic(err)
		}
		return pw, pw.Close
	}
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }
