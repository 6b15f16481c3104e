package memtest

import (
	"bytes"
	"os"
	"strconv"
)

// PeakRSS runs f and returns the process's peak resident set while f ran,
// in bytes: Linux's high-water mark (VmHWM in /proc/self/status), reset to
// the resident set of the moment before f by writing 5 to
// /proc/self/clear_refs. So it is the whole process's peak, Go's heap and
// what Go does not manage (SQLite's page cache, above all) alike, but not
// an earlier peak of the same test binary. ok is false where the mark
// cannot be reset or read (not Linux, /proc not mounted): f has run all the
// same.
func PeakRSS(f func()) (peak uint64, ok bool) {
	reset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	f()
	hwm, read := statusKiB("VmHWM:")
	return hwm << 10, reset && read
}

// RSS is the process's resident set now, in bytes (VmRSS); ok is false
// where /proc/self/status cannot be read.
func RSS() (uint64, bool) {
	kib, ok := statusKiB("VmRSS:")
	return kib << 10, ok
}

// statusKiB reads one "Name:   123 kB" line of /proc/self/status.
func statusKiB(name string) (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		rest, found := bytes.CutPrefix(line, []byte(name))
		if !found {
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
		return n, err == nil
	}
	return 0, false
}
