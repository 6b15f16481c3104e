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
// it; the bytes beyond are never held.
func readCapped(r io.Reader, prefix []byte, limit int64) ([]byte, error) {
	if int64(len(prefix)) > limit {
		return nil, ErrTooLarge
	}
	rest, err := io.ReadAll(io.LimitReader(r, limit+1-int64(len(prefix))))
	if err != nil {
		return nil, err
	}
	if int64(len(prefix)+len(rest)) > limit {
		return nil, ErrTooLarge
	}
	if len(prefix) == 0 {
		return rest, nil
	}
	return append(prefix[:len(prefix):len(prefix)], rest...), nil
}

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
