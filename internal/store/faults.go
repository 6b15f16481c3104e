package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"sync/atomic"
	"syscall"
	"time"
)

// Faults of the store itself. A crawler that fetches what it cannot record
// wastes the sites' bandwidth and its own, and one that gives up on a
// database restarting for a few seconds strands its work: so an error of
// the database is told apart from an error of a query, as one of two
// faults, and the store keeps its health (Health), which the fetcher reads
// before every request and the crawler before every site it takes.
//
//   - CannotWrite: the database cannot store a write — its disk is full,
//     it is read-only, corrupt, or its file cannot be opened or written (an
//     I/O error). It does not pass by itself; the operator frees space or
//     repairs it.
//   - Unavailable: the database cannot be reached now — a connection
//     refused or lost, the server shutting down or starting up, a lock held
//     past the busy timeout. It says "try later".
//
// What each backend's errors mean is its own (Dialect.Fault); what a
// connection's failure means in database/sql is here (generic). A fault,
// once met, stays the store's health until Probe stores a write again:
// a full disk that lets a small write through after a checkpoint is still
// full for the next page.

// The faults' sentinels, for errors.Is: a write's error that is one of
// the store's faults wraps one of them (a *FaultError), and so does a
// query's that its caller did not scan itself; for the rest (a row's Scan),
// DB.Fault reads the error.
var (
	ErrCannotWrite = errors.New("store cannot write")
	ErrUnavailable = errors.New("store unavailable")
)

// Fault is what an error says of the store; the worse fault is the larger.
type Fault uint8

// The faults.
const (
	NoFault     Fault = iota // not a fault of the store: a query's own error, a cancelled context
	Unavailable              // try later
	CannotWrite              // stop writing until the operator acts
)

// String is the fault in the words of its sentinel ("store cannot write").
func (f Fault) String() string {
	if e := f.sentinel(); e != nil {
		return e.Error()
	}
	return "no fault"
}

// sentinel is the error errors.Is finds for f.
func (f Fault) sentinel() error {
	switch f {
	case CannotWrite:
		return ErrCannotWrite
	case Unavailable:
		return ErrUnavailable
	}
	return nil
}

// FaultError is an error of the store that is one of its faults. Its text is
// the error's own, unchanged; errors.Is finds both the fault's sentinel and
// everything in the error's chain.
type FaultError struct {
	Fault Fault
	Err   error  // the error as the store met it
	Cause error  // the part of Err that says what the fault is (the driver's error)
	Where string // the database it is of: a file, or host:port/name ("" unknown)
	At    time.Time
}

func (e *FaultError) Error() string { return e.Err.Error() }

func (e *FaultError) Unwrap() []error { return []error{e.Fault.sentinel(), e.Err} }

// Reason is the fault in a few words for one line: the driver's own
// message and the database it is of ("database or disk is full (13)
// (./corpusbot.db)").
func (e *FaultError) Reason() string {
	msg := e.Err.Error()
	if e.Cause != nil {
		msg = e.Cause.Error()
	}
	if e.Where != "" {
		msg += " (" + e.Where + ")"
	}
	return msg
}

// health is a DB's standing: the fault last met until a probe clears it,
// and the writes that failed because of a fault, by fault.
type health struct {
	fault    atomic.Pointer[FaultError] // nil: healthy
	failed   [CannotWrite + 1]atomic.Int64
	where    atomic.Pointer[string]
	observer atomic.Pointer[func(*FaultError)]
	// probed is when a probe last began (UnixNano), probing whether one is
	// under way (Health's own, healLater).
	probed  atomic.Int64
	probing atomic.Bool
}

// healEvery is how often a store whose fault nobody waits out probes
// itself (healLater).
const healEvery = 5 * time.Second

// SetWhere names the database in the faults' messages: a file's path, or
// a server's host:port/database (never its credentials). Call it before use.
func (d *DB) SetWhere(where string) { d.health.where.Store(&where) }

func (d *DB) where() string {
	if w := d.health.where.Load(); w != nil {
		return *w
	}
	return ""
}

// Health is nil while the store can record what it is asked to, else the
// fault it last met (a *FaultError wrapping ErrCannotWrite or
// ErrUnavailable), until a Probe succeeds. It is one atomic load while the
// store is healthy: the fetcher asks it before every request.
func (d *DB) Health() error {
	f := d.health.fault.Load()
	if f == nil {
		return nil
	}
	d.healLater(f)
	return f
}

// healLater starts a probe in the background when the fault f is older
// than healEvery and no probe has begun for as long: the crawler probes a
// store it waits for itself, but a process that only reads its health
// (the public site, whose claim reads go through the same fetcher) must
// not stay shut out once the database records again.
func (d *DB) healLater(f *FaultError) {
	now := time.Now()
	if now.Sub(f.At) < healEvery || now.UnixNano()-d.health.probed.Load() < int64(healEvery) ||
		!d.health.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer d.health.probing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), healEvery)
		defer cancel()
		d.Probe(ctx) // its failure is noted; nobody waits for it
	}()
}

// FailedWrites counts the writes that failed with fault f since the store
// opened: for CannotWrite, those the database could not store.
func (d *DB) FailedWrites(f Fault) int64 { return d.health.failed[f].Load() }

// SetFaultObserver makes every write that fails with one of the store's
// faults tell fn (the crawler counts them as its round's errors); nil stops
// it. fn runs on the writer's goroutine: it must be quick.
func (d *DB) SetFaultObserver(fn func(*FaultError)) {
	if fn == nil {
		d.health.observer.Store(nil)
		return
	}
	d.health.observer.Store(&fn)
}

// Fault is err as a *FaultError when it is one of the store's faults (and
// the store's health now says so), nil when it is not. It classifies
// errors met outside the store's own paths: a query's row scanned by its
// caller, the PostgreSQL lease's statements, a fetch declined by the
// store's health.
func (d *DB) Fault(err error) *FaultError {
	var fe *FaultError
	if errors.As(d.noted(err), &fe) {
		return fe
	}
	return nil
}

// noted is err, as a *FaultError when it is one of the store's faults,
// which is then the store's health. Every query the store makes passes its
// error through here (db.go).
func (d *DB) noted(err error) error {
	if err == nil {
		return nil
	}
	var fe *FaultError
	if errors.As(err, &fe) {
		d.setHealth(fe.bare())
		return err
	}
	f, cause := d.classify(err)
	if f == NoFault {
		return err
	}
	fe = &FaultError{Fault: f, Err: err, Cause: cause, Where: d.where(), At: time.Now()}
	d.setHealth(fe.bare())
	return fe
}

// bare is e as the store's health keeps it: its cause alone, without what
// the caller that met it had wrapped around it (a URL, a site, another
// site's opt-out check), since every later caller reads it.
func (e *FaultError) bare() *FaultError {
	if e.Cause == nil {
		return e
	}
	return &FaultError{Fault: e.Fault, Err: e.Cause, Cause: e.Cause, Where: e.Where, At: e.At}
}

// failedWrite is the error of one write (DB.tx, DB.txAlone, d.w's
// ExecContext) noted, and counted and told when it is a fault.
func (d *DB) failedWrite(err error) error {
	err = d.noted(err)
	var fe *FaultError
	if errors.As(err, &fe) {
		d.health.failed[fe.Fault].Add(1)
		if fn := d.health.observer.Load(); fn != nil {
			(*fn)(fe)
		}
	}
	return err
}

// setHealth makes fe the store's health unless a worse fault is already.
// The store says nothing of it itself: whoever acts on its health (the
// crawler) tells the operator, in the operator's log.
func (d *DB) setHealth(fe *FaultError) {
	for {
		cur := d.health.fault.Load()
		if cur != nil && cur.Fault >= fe.Fault {
			return
		}
		if d.health.fault.CompareAndSwap(cur, fe) {
			return
		}
	}
}

// classify says which fault err is, and the error that says so.
func (d *DB) classify(err error) (Fault, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return NoFault, nil // the caller's end, not the database's
	}
	if d.dialect.Fault != nil {
		if f, cause := d.dialect.Fault(err); f != NoFault {
			return f, cause
		}
	}
	return genericFault(err)
}

// genericFault is what database/sql and the network say of err, whatever
// the backend: a connection that broke or could not be made is "try later".
func genericFault(err error) (Fault, error) {
	for _, e := range []error{driver.ErrBadConn, sql.ErrConnDone, syscall.ECONNREFUSED, syscall.ECONNRESET,
		syscall.ECONNABORTED, syscall.EPIPE} {
		if errors.Is(err, e) {
			return Unavailable, e
		}
	}
	return NoFault, nil
}

// The probe's rows of store_meta: two slots, the one written and the one
// the last probe left; probeBytes is the room a probe needs.
const (
	probeSlotA = "write_probe a"
	probeSlotB = "write_probe b"
	probeBytes = 256 << 10
)

// Probe asks whether the store answers and has room for the crawl's
// writes now: a query, then one write, committed, of probeBytes of new
// data. A write this size is what a page save or a sitemap read may need:
// a small one is not enough, since a write that failed on a full disk
// leaves behind it the room it had taken (a SQLite WAL's frames past its
// end), in which a few small writes still fit — on a tmpfs, five small
// upserts went through after the first failure and then none
// (faults_test.go in store/sqlite). The probe's row goes into the slot the
// last probe left free and the last probe's row is deleted after it, in
// the same transaction, so that its room is taken anew each time, not
// from the pages it freed itself; the database keeps one probe row and at
// most its size of free pages. On success the store is healthy again
// (unless another fault was met meanwhile); on failure it returns the
// error, noted.
func (d *DB) Probe(ctx context.Context) error {
	d.health.probed.Store(time.Now().UnixNano())
	before := d.health.fault.Load()
	if err := d.Ping(ctx); err != nil {
		return d.noted(err)
	}
	fill := make([]byte, probeBytes/2)
	rand.Read(fill) // incompressible: PostgreSQL compresses long values
	value := time.Now().UTC().Format(time.RFC3339Nano) + " " + hex.EncodeToString(fill)
	// Not through d.tx: a probe that fails is not one of the crawl's
	// writes lost (FailedWrites, the fault observer), however often it is
	// asked during an outage; its error is noted all the same.
	err := d.noted(d.tx0(ctx, func(tx conn) error {
		var last string
		err := tx.QueryRowContext(ctx, `SELECT name FROM store_meta WHERE name IN ($1, $2) ORDER BY name LIMIT 1`, probeSlotA, probeSlotB).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		slot := probeSlotA
		if last == probeSlotA {
			slot = probeSlotB
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ($1, $2)
			ON CONFLICT(name) DO UPDATE SET value = excluded.value`, slot, value); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM store_meta WHERE name IN ($1, $2) AND name <> $3`, probeSlotA, probeSlotB, slot)
		return err
	}))
	if err != nil {
		return err
	}
	if before != nil {
		d.health.fault.CompareAndSwap(before, nil)
	}
	return nil
}
