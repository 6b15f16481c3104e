package fetch

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadCapped: whatever length a response declares, right, short, long
// or none, readCapped gives the body read after its prefix, and refuses
// one longer than the limit.
func TestReadCapped(t *testing.T) {
	body := strings.Repeat("0123456789", 1000) // 10,000 bytes
	for _, size := range []int64{-1, 0, 1, 500, 9_999, 10_000, 10_001, 1 << 40} {
		for _, pre := range []int{0, 512} {
			for _, limit := range []int64{10_000, 9_999, 1 << 20} {
				r := iotest.HalfReader(strings.NewReader(body[pre:]))
				got, err := readCapped(r, []byte(body[:pre]), limit, size)
				if limit < int64(len(body)) {
					if !errors.Is(err, ErrTooLarge) {
						t.Errorf("size %d, prefix %d, limit %d: %v, want ErrTooLarge", size, pre, limit, err)
					}
					continue
				}
				if err != nil || !bytes.Equal(got, []byte(body)) {
					t.Errorf("size %d, prefix %d, limit %d: %d bytes, %v", size, pre, limit, len(got), err)
				}
			}
		}
	}
}
