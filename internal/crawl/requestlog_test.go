package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// logStore is a store whose request log is a slice, and whose LogRequests
// waits while gate is open (a slow disk) and fails with err.
type logStore struct {
	mu      sync.Mutex
	batches [][]model.RequestRecord
	gate    chan struct{}
	err     error
	pause   time.Duration // each batch takes this long
}

func (s *logStore) LogRequests(ctx context.Context, recs []model.RequestRecord) error {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		<-gate
	}
	time.Sleep(s.pause)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.batches = append(s.batches, append([]model.RequestRecord(nil), recs...))
	return nil
}

// stored is every record stored, in order, and the largest batch.
func (s *logStore) stored() (recs []model.RequestRecord, largest int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.batches {
		recs = append(recs, b...)
		largest = max(largest, len(b))
	}
	return recs, largest
}

func rec(i int) model.RequestRecord {
	return model.RequestRecord{Site: "a.example", URL: fmt.Sprintf("https://a.example/%d", i), Purpose: model.PurposePage, Status: 200}
}

func logCrawler(st *logStore) (*Crawler, *bytes.Buffer) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&safeWriter{w: &buf}, nil))
	c := New(Config{Log: log})
	c.requestStore = st
	return c, &buf
}

type safeWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *safeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// within fails the test if fn does not return within d.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s took over %s", what, d)
	}
}

// Observe hands records over without waiting for the store; Flush waits
// until they are all stored, in order, in batches of at most logBatch.
func TestRequestLogObserveDoesNotWait(t *testing.T) {
	st := &logStore{gate: make(chan struct{})}
	c, _ := logCrawler(st)
	defer c.Close()
	const n = 1234
	within(t, 10*time.Second, "observing while the store hangs", func() {
		for i := range n {
			c.Observe(rec(i))
		}
	})
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Flush(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flush with the store hanging: %v", err)
	}
	close(st.gate)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs, largest := st.stored()
	if len(recs) != n {
		t.Fatalf("%d records stored, want %d", len(recs), n)
	}
	for i, r := range recs {
		if r.URL != rec(i).URL {
			t.Fatalf("record %d is %s", i, r.URL)
		}
	}
	if largest > logBatch {
		t.Errorf("a batch of %d records, want at most %d", largest, logBatch)
	}
}

// Records are stored within logEvery without a Flush.
func TestRequestLogWritesOnItsOwn(t *testing.T) {
	st := &logStore{}
	c, _ := logCrawler(st)
	defer c.Close()
	for i := range 3 {
		c.Observe(rec(i))
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if recs, _ := st.stored(); len(recs) == 3 {
			return
		}
	}
	t.Fatal("records not stored without a Flush")
}

// A full queue holds Observe until the writer takes a batch; when the
// store hangs, for fullWait at most: then the record is dropped, with a
// warning, and the next Flush says so.
func TestRequestLogFullDropsLoudly(t *testing.T) {
	st := &logStore{gate: make(chan struct{})}
	c, logged := logCrawler(st)
	defer c.Close()
	c.requests.batch, c.requests.buffer, c.requests.fullWait = 5, 10, 50*time.Millisecond
	within(t, 10*time.Second, "observing into a full queue", func() {
		for i := range 30 { // 5 taken by the hanging write, 10 queued, 15 dropped
			c.Observe(rec(i))
		}
	})
	if !strings.Contains(logged.String(), "request log full") {
		t.Errorf("no warning of the drop; log:\n%s", logged)
	}
	close(st.gate)
	err := c.Flush(context.Background())
	recs, _ := st.stored()
	if len(recs) == 0 || len(recs) > 20 {
		t.Errorf("%d records stored of 30 with room for 15 (and a few waiters)", len(recs))
	}
	if want := fmt.Sprintf("%d request records not stored", 30-len(recs)); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Flush after drops: %v, want %q", err, want)
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Errorf("a second Flush reports the same loss again: %v", err)
	}
}

// A store slower than the fetchers keeps the queue full, but one that
// writes loses nothing: every Observe gets in with the next batch taken.
func TestRequestLogSlowStoreLosesNothing(t *testing.T) {
	st := &logStore{pause: 5 * time.Millisecond}
	c, logged := logCrawler(st)
	defer c.Close()
	c.requests.batch, c.requests.buffer, c.requests.fullWait = 5, 10, 100*time.Millisecond
	const fetchers, each = 64, 20
	var wg sync.WaitGroup
	for f := range fetchers {
		wg.Go(func() {
			for i := range each {
				c.Observe(rec(f*each + i))
			}
		})
	}
	wg.Wait()
	if err := c.Flush(context.Background()); err != nil {
		t.Fatalf("%v; log:\n%s", err, logged)
	}
	if recs, _ := st.stored(); len(recs) != fetchers*each {
		t.Errorf("%d records stored, want %d", len(recs), fetchers*each)
	}
}

// A batch the store refuses is reported, by a warning and by Flush.
func TestRequestLogFailedWrite(t *testing.T) {
	st := &logStore{err: errors.New("disk full")}
	c, logged := logCrawler(st)
	defer c.Close()
	c.Observe(rec(1))
	err := c.Flush(context.Background())
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush after a failed write: %v", err)
	}
	if !strings.Contains(logged.String(), "request log write failed") {
		t.Errorf("no warning; log:\n%s", logged)
	}
}

// Close stores what is queued; a record observed afterwards is stored
// before Observe returns.
func TestRequestLogClose(t *testing.T) {
	st := &logStore{}
	c, _ := logCrawler(st)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatalf("Flush of nothing: %v", err)
	}
	for i := range 7 {
		c.Observe(rec(i))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if recs, _ := st.stored(); len(recs) != 7 {
		t.Fatalf("%d records stored by Close, want 7", len(recs))
	}
	c.Observe(rec(7))
	if recs, _ := st.stored(); len(recs) != 8 {
		t.Fatalf("a record observed after Close not stored at once")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Errorf("Flush after Close: %v", err)
	}
}

// A batch the store fails with one of its faults (a database restarting)
// is kept and written once the store records again: nothing is lost, in
// order; meanwhile a Flush says at once what waits, rather than wait for
// the store. A batch still failing when the log closes is lost, and said.
func TestRequestLogKeepsRecordsThroughAnOutage(t *testing.T) {
	st := &logStore{err: &store.FaultError{Fault: store.Unavailable, Err: errors.New("connection refused")}}
	c, logs := logCrawler(st)
	for i := range 10 {
		c.Observe(rec(i))
	}
	var err error
	within(t, 5*time.Second, "a flush during the outage", func() { err = c.Flush(context.Background()) })
	if !errors.Is(err, store.ErrUnavailable) || !strings.Contains(err.Error(), "10 request records waiting for the store") {
		t.Fatalf("flush during the outage: %v", err)
	}
	for i := 10; i < 20; i++ {
		c.Observe(rec(i))
	}
	st.mu.Lock()
	st.err = nil
	st.mu.Unlock()
	if err := c.Flush(context.Background()); err != nil {
		t.Fatalf("flush once the store is back: %v", err)
	}
	recs, _ := st.stored()
	if len(recs) != 20 {
		t.Fatalf("%d records stored, want 20", len(recs))
	}
	for i, r := range recs {
		if r.URL != rec(i).URL {
			t.Fatalf("record %d is %s", i, r.URL)
		}
	}
	if !strings.Contains(logs.String(), "records are kept") || !strings.Contains(logs.String(), "request log writes again") {
		t.Errorf("the outage is not told:\n%s", logs.String())
	}
	st.mu.Lock()
	st.err = &store.FaultError{Fault: store.CannotWrite, Err: errors.New("disk full")}
	st.mu.Unlock()
	c.Observe(rec(20))
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "1 request records not stored") {
		t.Errorf("close with a batch the store still fails: %v", err)
	}
}
