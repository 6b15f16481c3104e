package simweb

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Status answers code with a short body and the given header pairs
// ("Retry-After", "120", ...).
func Status(code int, header ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprintf(w, "%d %s\n", code, http.StatusText(code))
	})
}

// TooMany answers 429 with Retry-After: retryAfter.
func TooMany(retryAfter string) http.Handler {
	return Status(http.StatusTooManyRequests, "Retry-After", retryAfter)
}

// Unavailable answers 503 with Retry-After: retryAfter.
func Unavailable(retryAfter string) http.Handler {
	return Status(http.StatusServiceUnavailable, "Retry-After", retryAfter)
}

// Slow waits d before handing the request to next: real time, ended early
// if the client goes away, or, when sleep is given, simulated time (pass a
// func advancing the shared Clock).
func Slow(d time.Duration, sleep func(time.Duration), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sleep != nil {
			sleep(d)
		} else {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Drip sends a 200 contentType body one byte every interval, for total
// bytes, or until the client goes away: a server a fetcher must cut off.
func Drip(contentType string, interval time.Duration, total int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		fl, _ := w.(http.Flusher)
		t := time.NewTicker(interval)
		defer t.Stop()
		for i := 0; i < total; i++ {
			if _, err := w.Write([]byte{'<'}); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
	})
}

// Reset drops the connection with a TCP reset before any response.
func Reset() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		c, _, err := hj.Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST, not FIN
		}
		_ = c.Close()
	})
}

// Redirect answers code with Location: to (absolute, or relative to the
// request).
func Redirect(code int, to string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", to)
		w.WriteHeader(code)
	})
}

// Huge sends n bytes of contentType, with no Content-Length, so that only a
// cap on the bytes read stops it.
func Huge(contentType string, n int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		chunk := bytes.Repeat([]byte("<p>lorem ipsum</p>\n"), 3450) // ~64 KiB
		for n > 0 {
			b := chunk[:min(int64(len(chunk)), n)]
			if _, err := w.Write(b); err != nil {
				return
			}
			n -= int64(len(b))
		}
	})
}

// GzipBomb sends a small gzip stream (Content-Encoding: gzip) that
// decompresses to about n bytes of contentType: one member of a MiB of zeros
// (after an XML declaration), repeated, since concatenated gzip members read
// as one stream.
func GzipBomb(contentType string, n int64) http.Handler {
	const block = 1 << 20
	member := func(head string) []byte {
		var buf bytes.Buffer
		z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zeros := make([]byte, block)
		copy(zeros, head)
		_, _ = z.Write(zeros)
		_ = z.Close()
		return buf.Bytes()
	}
	bomb := member(`<?xml version="1.0"?><urlset>`)
	rest := member("")
	for left := n - block; left > 0; left -= block {
		bomb = append(bomb, rest...)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(bomb)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(bomb)
	})
}

// HTMLPage is a minimal HTML document, what many sites serve for every path.
const HTMLPage = "<!DOCTYPE html>\n<html><head><title>Not here</title></head><body><p>Nothing to see.</p></body></html>\n"

// SetCookie wraps next so that every response tries to set a cookie, to
// show that the fetcher never sends one back.
func SetCookie(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Set-Cookie", "session=s3cr3t; Path=/")
		next.ServeHTTP(w, r)
	})
}
