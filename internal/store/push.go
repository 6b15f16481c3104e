package store

import (
	"context"
	"time"
)

// Subscription is the crawler's WebSub subscription to one feed's hub
// (package push has the states and the protocol's rules).
type Subscription struct {
	// Callback is the subscription's key and the last part of its
	// callback URL (/websub/callback/<Callback>): random, so that no one
	// can guess which callback belongs to which feed.
	Callback string
	FeedID   int64
	SourceID int64
	Hub      string
	Topic    string
	Secret   string // hub.secret: the HMAC key of every delivery
	State    string // one of model.SubscriptionStates
	Lease    time.Duration
	// Requested is when the last (un)subscribe request was sent; Verified
	// when the hub last confirmed one; Expires when the lease ends.
	Requested  time.Time
	Verified   time.Time
	Expires    time.Time
	NextAction time.Time // when the state machine acts next (request, renew, retry)
	Attempts   int       // failed requests in a row
	Error      string
	Deliveries int
	Delivered  time.Time // last delivery ingested
	// SourcePaused is read, never written: the source's pause, for
	// unsubscription.
	SourcePaused bool
}

// Push is what WebSub and IndexNow need of the store, beside Store.
// *store.DB implements both.
type Push interface {
	// WantSubscription records that feed s.FeedID declares s.Hub and
	// s.Topic. A feed with no subscription gets s (in state wanted, with
	// s's Callback and Secret); one whose hub or topic changed is reset
	// to wanted under the new ones; one that has them already is left
	// alone. It returns what is stored.
	WantSubscription(ctx context.Context, s Subscription) (Subscription, error)
	// Subscription returns the subscription with that callback, or
	// ErrNotFound.
	Subscription(ctx context.Context, callback string) (Subscription, error)
	// FeedSubscription returns the feed's subscription, or ErrNotFound.
	FeedSubscription(ctx context.Context, feedID int64) (Subscription, error)
	// PutSubscription stores s's state (every field but the keys, feed,
	// source and counts) and gives back its checkout.
	PutSubscription(ctx context.Context, s Subscription) error
	// SubscriptionsDue lists subscriptions whose NextAction is not after
	// now, and those of paused sources still wanted, requested or active,
	// and checks them out until checkoutUntil (or the next PutSubscription), so
	// that another worker does not take them meanwhile.
	SubscriptionsDue(ctx context.Context, now, checkoutUntil time.Time, limit int) ([]Subscription, error)
	// PushRead is FeedRead for a delivery: the posts are added and the
	// feed's read standing (state, error, last read, title, history, next
	// due) stored in one transaction, leaving its validators, catalogue
	// walk and check out as they are — a delivery is no poll.
	PushRead(ctx context.Context, callback string, now time.Time, posts []NewPost, update func(AddResult) Feed) (AddResult, error)

	// IndexNowHolds reports whether a source that is not paused is on
	// the site (registrable domain) of host.
	IndexNowHolds(ctx context.Context, host string) (bool, error)
	// IndexNowDue makes each URL owe a conditional page fetch: a known
	// post becomes due (its validators kept), an unknown one is added as
	// a pending post of the source of its site (the one on the same host
	// if any). URLs of no held source are skipped. It returns how many
	// posts were made due; now is the FirstSeen of those it adds.
	IndexNowDue(ctx context.Context, now time.Time, urls []string) (int, error)

	// Deliveries counts sources with an active feed by how new posts
	// reach us: pushed (every active feed has an active subscription),
	// polled (none has), both (some have).
	Deliveries(ctx context.Context) (pushed, polled, both int, err error)
	// SiteDelivery is that word ("pushed", "polled", "both") for each
	// source of site with an active feed, by source ID.
	SiteDelivery(ctx context.Context, site string) (map[int64]string, error)
}
