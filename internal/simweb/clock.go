package simweb

import (
	"context"
	"sync"
	"time"
)

// Clock is simulated time for the fetcher and the recorder together: Sleep
// returns at once, having moved the clock forward, so tests of back-off,
// TTLs and the refusal list run simulated days in milliseconds. It satisfies
// fetch.Clock. Time only moves forward, and a sleeper wakes at no earlier a
// time than it asked for, however many sleep at once.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts simulated time at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now is the simulated time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep moves the clock to at least now+d and returns.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.now.Add(d); t.After(c.now) {
		c.now = t
	}
	return nil
}
