package postgres_test

import (
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestCheckoutSuite(t *testing.T) {
	storetest.RunCheckoutSuite(t, func(t *testing.T) storetest.CheckoutPair {
		dsn := testDSN(t)
		var mu sync.Mutex
		now := storetest.T0
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		a, b := open(t, dsn), open(t, dsn)
		a.SetCheckouts("worker-a", storetest.CheckoutTTL, clock)
		b.SetCheckouts("worker-b", storetest.CheckoutTTL, clock)
		return storetest.CheckoutPair{A: a.DB, B: b.DB, Advance: func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }}
	})
}
