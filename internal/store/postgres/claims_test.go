package postgres_test

import (
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestClaimSuite(t *testing.T) {
	storetest.RunClaimSuite(t, func(t *testing.T) storetest.Claimers {
		dsn := testDSN(t)
		var mu sync.Mutex
		now := storetest.T0
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		a, b := open(t, dsn), open(t, dsn)
		a.SetClaims("worker-a", storetest.ClaimTTL, clock)
		b.SetClaims("worker-b", storetest.ClaimTTL, clock)
		return storetest.Claimers{A: a, B: b, Advance: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }}
	})
}
