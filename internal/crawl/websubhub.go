package crawl

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/push"
	"corpus.blog/corpusbot/internal/store"
)

// pushCheckout is how long a subscription handed to a worker stays out of
// other workers' batches: a hub request takes seconds.
const pushCheckout = 10 * time.Minute

// inactiveRecheck is how often a subscription that is inactive (its
// source paused, or the hub denied it) is looked at again: a resumed
// source subscribes again within a week; a denying hub is asked once a
// week.
const inactiveRecheck = 7 * 24 * time.Hour

// PushSubscriptions is the websub job: up to limit subscriptions whose
// time has come are requested, renewed (ahead of their lease's end,
// push.RenewAt), retried, or — for a paused or opted-out source —
// unsubscribed. They are worked one after the other: a few requests to
// hubs, after a round's sites, each through the fetcher's lease on the
// hub's site like any request.
func (c *Crawler) PushSubscriptions(ctx context.Context, limit int) (int, error) {
	if !c.pushEnabled() {
		return 0, nil
	}
	now := c.Clock.Now()
	subs, err := c.Push.SubscriptionsDue(ctx, now, now.Add(pushCheckout), limit)
	if err != nil || len(subs) == 0 {
		return 0, err
	}
	var errs []error
	// A hub that asks for a longer wait than the horizon is left to a
	// later round, as a site is.
	hctx := fetch.WithWaitHorizon(ctx, Horizon)
	for _, s := range subs {
		if ctx.Err() != nil {
			break
		}
		if err := c.workSubscription(hctx, s); err != nil && ctx.Err() == nil {
			c.Log.Warn("subscription not moved on", "hub", s.Hub, "topic", s.Topic, "err", err)
			errs = append(errs, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return len(subs), err
	}
	return len(subs), errors.Join(errs...)
}

// workSubscription moves one subscription on.
func (c *Crawler) workSubscription(ctx context.Context, s store.Subscription) error {
	now := c.Clock.Now()
	if s.SourcePaused {
		switch s.State {
		case model.SubscriptionActive, model.SubscriptionRequested:
			return c.requestHub(ctx, s, push.ModeUnsubscribe)
		case model.SubscriptionUnsubscribing:
			if now.Before(s.Requested.Add(push.VerifyTimeout)) {
				s.NextAction = s.Requested.Add(push.VerifyTimeout)
				return c.Push.PutSubscription(ctx, s)
			}
			// The hub never confirmed: drop it on our side; its
			// deliveries are answered 410 Gone.
		}
		s.State, s.NextAction = model.SubscriptionInactive, now.Add(inactiveRecheck)
		return c.Push.PutSubscription(ctx, s)
	}
	switch s.State {
	case model.SubscriptionRequested:
		if at := s.Requested.Add(push.VerifyTimeout); now.Before(at) {
			s.NextAction = at
			return c.Push.PutSubscription(ctx, s)
		}
	case model.SubscriptionActive:
		if at := push.RenewAt(s.Verified, s.Lease); now.Before(at) {
			s.NextAction = at
			return c.Push.PutSubscription(ctx, s)
		}
	}
	// wanted, inactive with its source resumed, a verification that
	// never came, a lease to renew, an unsubscription the source's
	// resumption made moot: subscribe.
	return c.requestHub(ctx, s, push.ModeSubscribe)
}

// requestHub sends one subscribe or unsubscribe request (§5.1). The
// subscription is stored as requested before the request leaves, since
// a hub may verify intent before it answers.
func (c *Crawler) requestHub(ctx context.Context, s store.Subscription, mode string) error {
	now := c.Clock.Now()
	before := s
	s.Requested, s.NextAction = now, now.Add(push.VerifyTimeout)
	switch {
	case mode == push.ModeUnsubscribe:
		s.State = model.SubscriptionUnsubscribing
	case s.State != model.SubscriptionActive:
		// A renewal stays active: deliveries go on while it is verified.
		s.State = model.SubscriptionRequested
	}
	if err := c.Push.PutSubscription(ctx, s); err != nil {
		return err
	}
	form := url.Values{
		"hub.mode":     {mode},
		"hub.topic":    {s.Topic},
		"hub.callback": {c.callbackURL(s)},
	}
	if mode == push.ModeSubscribe {
		form.Set("hub.secret", s.Secret)
		form.Set("hub.lease_seconds", strconv.FormatInt(int64(c.lease()/time.Second), 10))
	}
	res := c.fetch(ctx, fetch.Request{URL: s.Hub, Purpose: model.PurposeWebSub, Form: form})
	if ctx.Err() != nil {
		return ctx.Err() // left as requested: it is due again after VerifyTimeout
	}
	if res.Outcome == model.OutcomeFetched {
		c.Log.Info("websub: request accepted", "mode", mode, "hub", s.Hub, "topic", s.Topic, "status", res.Status)
		return nil // the verification of intent, not this answer, makes it active
	}
	// Refused: read it again, as a verification may have landed meanwhile.
	cur, err := c.Push.Subscription(ctx, s.Callback)
	if err != nil {
		return err
	}
	if cur.State != s.State || !cur.Requested.Equal(s.Requested) {
		return nil
	}
	cur.Attempts++
	cur.Error = errText(res)
	cur.NextAction = now.Add(push.Retry(cur.Attempts))
	switch {
	case mode == push.ModeUnsubscribe:
		// We cannot tell the hub (it failed, or its site opted out too):
		// our side drops it and answers its deliveries 410 Gone.
		cur.State, cur.NextAction = model.SubscriptionInactive, now.Add(inactiveRecheck)
	case before.State == model.SubscriptionActive:
		cur.State = model.SubscriptionActive // the old lease still runs
	default:
		cur.State = model.SubscriptionWanted
	}
	c.Log.Info("websub: request failed", "mode", mode, "hub", s.Hub, "topic", s.Topic, "err", cur.Error)
	// Recorded, like a feed that could not be read: not a job failure.
	return c.Push.PutSubscription(ctx, cur)
}

// lease is the hub.lease_seconds asked for.
func (c *Crawler) lease() time.Duration {
	if c.Settings.PushLease > 0 {
		return c.Settings.PushLease
	}
	return push.DefaultLease
}

// batch is how many items one call of a batch job takes at a time.
const batch = 1000

// pushDue makes the WebSub requests that are due, a batch at a time, up to
// a hundred batches.
func (c *Crawler) pushDue(ctx context.Context) error {
	for range 100 {
		n, err := c.PushSubscriptions(ctx, batch)
		if err != nil || n < batch || ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// callbackURL is a subscription's hub.callback.
func (c *Crawler) callbackURL(s store.Subscription) string {
	return strings.TrimRight(c.CallbackBase, "/") + "/websub/callback/" + s.Callback
}
