package fetch

import (
	"context"
	"net"
	"testing"
	"time"
)

// A connection the transport closes (the site hung up, a read failed) just
// as the crawler's visit to the site ends: Close waits for the record's
// lock while VisitDone holds it and closes the same connection. Both must
// finish. (With a sync.Once in Close, each waited for the other for ever: a
// 100,000-site benchmark hung on its second day with every site's
// goroutine queued behind the record's lock.)
func TestCloseRacingVisitDoneFinishes(t *testing.T) {
	const site = "a.example"
	r := &siteConns{}
	ours, theirs := net.Pipe()
	defer theirs.Close()
	c := r.track(withSite(context.Background(), site), site+":80", ours)

	r.mu.Lock() // VisitDone has the lock ...
	closed := make(chan struct{})
	go func() {
		c.Close() // ... when the transport closes the connection
		close(closed)
	}()
	time.Sleep(20 * time.Millisecond) // Close is waiting for the lock by now
	finished := make(chan struct{})
	go func() {
		r.closeIdleLocked(site)
		r.mu.Unlock()
		close(finished)
	}()
	for _, ch := range []chan struct{}{closed, finished} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("Close and VisitDone wait for each other")
		}
	}
	if len(r.sites) != 0 {
		t.Errorf("after its only connection closed, %d sites are still recorded", len(r.sites))
	}
}

// Many rounds of the same race, scheduled as it comes: none may hang, and
// nothing is left recorded.
func TestCloseRacingVisitDoneMany(t *testing.T) {
	const site = "a.example"
	r := &siteConns{}
	ctx := withSite(context.Background(), site)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 5000 {
			ours, theirs := net.Pipe()
			c := r.track(ctx, site+":80", ours)
			closed := make(chan struct{})
			go func() {
				c.Close()
				close(closed)
			}()
			r.closeIdle(site)
			<-closed
			theirs.Close()
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Close and closeIdle deadlocked")
	}
	if len(r.sites) != 0 {
		t.Errorf("after every connection closed, %d sites are still recorded", len(r.sites))
	}
}
