package store

import (
	"sync/atomic"
	"time"
)

// The operations a write is timed as (SetWriteObserver).
const (
	WriteTx      = "tx"       // a write of several statements (DB.tx)
	WriteExec    = "exec"     // a write of one statement
	WriteTxAlone = "tx_alone" // a write too big to share a transaction (DB.txAlone)
)

// WriteOps lists the operations a write observer is told of.
func WriteOps() []string { return []string{WriteTx, WriteExec, WriteTxAlone} }

// WriteObserver is told how long each write took, from its call until it
// was committed (or failed): with the group commit, its wait for the batch
// and the batch's commit included, which is what a crawler's site waits.
type WriteObserver func(op string, took time.Duration)

// writeTimer holds the DB's WriteObserver, if any.
type writeTimer struct{ fn atomic.Pointer[WriteObserver] }

// SetWriteObserver makes every write report its time to fn (the metrics'
// store write latency); nil stops it. The store knows nothing of metrics:
// the caller wires them.
func (db *DB) SetWriteObserver(fn WriteObserver) {
	if fn == nil {
		db.writeTime.fn.Store(nil)
		return
	}
	db.writeTime.fn.Store(&fn)
}

// timed reports op's time since start to the observer, if any.
func (t *writeTimer) timed(op string, start time.Time) {
	if fn := t.fn.Load(); fn != nil {
		(*fn)(op, time.Since(start))
	}
}
