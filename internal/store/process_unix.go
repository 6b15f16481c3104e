//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the ID pid: signal 0 is sent
// to nobody and only says whether the process exists (EPERM: it does, as
// another user's).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
