package fetch

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A stop (SIGINT: the caller's context ends) begins no new request, but
// what is already under way is let finish: a request already sent is read
// to its end, and what an answer had teaches (robots.txt's file and
// validators, the refusal list) is recorded. Cut off instead, the site
// would have served its answer for nothing, and the next run would ask
// again without the validators that make a re-read cost a 304.

// StopGrace is how long a request already sent when its caller stops may
// go on to finish, and how long recording what an answer taught may take
// after the stop: a hung site or store holds a stop no longer.
const StopGrace = 5 * time.Second

// Outlive is a context with the values of ctx that ends grace after ctx
// ends, or when the returned cancel is called (which the caller must do,
// to let go of its timer): for work that must finish once begun, yet not
// hold a stop for ever. Its cause, when the grace runs out, wraps ctx's.
func Outlive(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var (
		mu    sync.Mutex
		timer *time.Timer
		over  bool
	)
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if over {
			return
		}
		timer = time.AfterFunc(grace, func() {
			cancel(fmt.Errorf("given up %v after the stop: %w", grace, context.Cause(ctx)))
		})
	})
	return out, func() {
		stop()
		mu.Lock()
		over = true
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(context.Canceled)
	}
}
