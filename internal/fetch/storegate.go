package fetch

import (
	"context"
	"errors"
	"fmt"
)

// The store gate. Everything a request brings back is recorded — the
// request log, the site's back-off and next permitted request, the item's
// answer — so a request the store cannot record is pure waste, for the
// site and for us: none is sent while the store says it cannot write or
// cannot be reached (StoreHealth), nor when the opt-out check, which asks
// the store, fails. The gate is checked before the lease, so that a site
// does not wait its turn for nothing, and again under it, right before the
// request, so that a fault met by another site while this one waited
// holds too. A request kept back so is a failure of our own (ours.go): no
// record, nothing stored as the site's answer, not a fault that says "try
// later" of the item (no try is counted); the caller gets ErrStoreDown,
// which carries the store's own error, and waits for the store before it
// asks again.

// StoreHealth is the store's health as the fetcher reads it: nil while it
// can record what it is asked to, else why not (*store.DB's Health). It
// is asked twice before every request, so it must be cheap.
type StoreHealth interface{ Health() error }

// ErrStoreDown fails a request that was not sent because the store could
// not record it, or could not say whether the site's owner opted out
// (then with ErrOptOutCheck too).
var (
	ErrStoreDown   = errors.New("the store cannot record it: not sent")
	ErrOptOutCheck = errors.New("opt-out check failed")
)

// storeDown is the error that keeps a from being sent now for the store's
// sake, nil when the store can record it.
func (f *Fetcher) storeDown(a *attempt) error {
	if f.store == nil {
		return nil
	}
	if err := f.store.Health(); err != nil {
		return fmt.Errorf("fetch %s: %w: %w", a.shown, ErrStoreDown, err)
	}
	return nil
}

// withheld is why a must not be sent beyond the store's health: nil when
// it may be, ErrOptedOut when the site's owner opted out, and an
// ErrStoreDown that says the opt-out check failed when the store could
// not answer it (nothing is sent on doubt, and the doubt is the store's,
// not an opt-out). A claim is never withheld for an opt-out: the owner
// asked for that read, to prove control and perhaps resume the site.
func (f *Fetcher) withheld(ctx context.Context, a *attempt) error {
	if f.optedOut == nil || a.claim {
		return nil
	}
	out, err := f.optedOut(ctx, a.site)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w: %w", ErrStoreDown, ErrOptOutCheck, err)
	case out:
		return ErrOptedOut
	}
	return nil
}
