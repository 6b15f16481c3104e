package fetch

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// ErrEncoding is a Content-Encoding we did not ask for and cannot read.
var ErrEncoding = errors.New("unsupported content encoding")

// decoder wraps a response body in the decoding its Content-Encoding names.
// The compressed stream itself is limited too, so neither a bomb nor an
// endless stream of compressed padding can run past the cap.
func decoder(body io.Reader, contentEncoding string, limit int64) (io.Reader, error) {
	raw := &capReader{r: body, n: rawLimit(limit)}
	switch enc := strings.ToLower(strings.TrimSpace(contentEncoding)); enc {
	case "", "identity":
		return raw, nil
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(raw)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return z, nil
	case "br":
		return brotli.NewReader(raw), nil
	default:
		return nil, fmt.Errorf("%w: %q", ErrEncoding, enc)
	}
}

// readCapped reads r to its end after prefix (bytes already read from it),
// or fails with ErrTooLarge as soon as more than limit bytes have come out of
// it; the bytes beyond are never held. size is the body's length if known
// (an uncompressed response's Content-Length), else 0 or less: a body of
// the length declared is read into one buffer of its size, where
// io.ReadAll built it from growing chunks and copied them into a final
// one (twice the body's bytes allocated: 10.6% of the seed pass's, at
// real sizes), and a sniffed prefix is not copied once more after it.
func readCapped(r io.Reader, prefix []byte, limit, size int64) ([]byte, error) {
	if int64(len(prefix)) > limit {
		return nil, ErrTooLarge
	}
	if size <= 0 || size > limit {
		size = 0 // unknown, or refused once read: grown as it comes
	}
	// One byte over the length declared, so that the read finding the
	// end needs no growth; no more than preallocMax up front, whatever a
	// header claims.
	b := make([]byte, len(prefix), max(int64(len(prefix)), min(size, preallocMax))+1)
	copy(b, prefix)
	lr := io.LimitReader(r, limit+1-int64(len(prefix)))
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(b)) > limit {
		return nil, ErrTooLarge
	}
	return b, nil
}

// preallocMax bounds the buffer readCapped sizes from a declared length.
const preallocMax = 4 << 20

// rawLimit bounds the compressed bytes read: a little over the cap, since
// incompressible data grows slightly when compressed.
func rawLimit(limit int64) int64 { return limit + limit/16 + 64<<10 }

// capReader fails with ErrTooLarge once more than n bytes are read through it.
type capReader struct {
	r io.Reader
	n int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.n+1 {
		p = p[:c.n+1]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.n < 0 {
		return n, ErrTooLarge
	}
	return n, err
}
