package memtest

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// PeakRSS sees memory touched and freed again inside f, and not a peak
// reached before it.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	const size = 64 << 20
	touch := func() {
		b := make([]byte, size)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		runtime.KeepAlive(b)
	}
	touch() // an earlier peak, which PeakRSS must not report
	debug.FreeOSMemory()
	base, ok := RSS()
	if !ok {
		t.Skip("no /proc/self/status")
	}
	quiet, ok := PeakRSS(func() {})
	if !ok {
		t.Skip("cannot reset the peak (/proc/self/clear_refs)")
	}
	if quiet > base+size/2 {
		t.Errorf("peak of an empty f %d MiB, resident before %d MiB: an earlier peak was reported", quiet>>20, base>>20)
	}
	peak, _ := PeakRSS(touch)
	if peak < base+size*3/4 {
		t.Errorf("peak %d MiB while touching %d MiB over %d MiB resident", peak>>20, size>>20, base>>20)
	}
}
