// Package memtest measures how far the heap rises while a piece of code
// runs, for the benchmarks' peak-memory figures (package sitemap and
// package feed report them beside the libraries they are compared with).
package memtest

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// HeapBytes is the heap occupied by objects, live or not yet swept: what
// runtime.MemStats calls HeapAlloc, read without stopping the world.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// PeakHeap runs f and returns how far the heap rose above where it stood
// (after a collection) before f: the highest heap seen while f ran, sampled
// every 100µs by a goroutine and at every call of the sample function f is
// given (for its own inner loop), less the heap before.
func PeakHeap(f func(sample func())) uint64 {
	runtime.GC()
	base := HeapBytes()
	var peak atomic.Uint64
	note := func() {
		for h := HeapBytes(); ; {
			p := peak.Load()
			if h <= p || peak.CompareAndSwap(p, h) {
				return
			}
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			note()
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f(note)
	close(stop)
	<-done
	note()
	return peak.Load() - min(base, peak.Load())
}
