package crawl

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"time"

	"corpus.blog/corpusbot/feed"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/push"
	"corpus.blog/corpusbot/internal/store"
)

// WebSub, the crawler's side. A poll that finds a hub (noticeHub) records
// a wanted subscription; the websub job (PushSubscriptions) sends the
// requests; the public site's callback (WebSubIntent, WebSubDeliver) takes
// the hub's verifications and deliveries. A delivery is ingested exactly
// as a polled body (ingestFeed), and while a feed's subscription is
// active its polls are stretched to PUSH_SAFETY_POLL (stretch): the hub
// does the work, one poll a week catches a hub that failed silently.

// pushEnabled reports whether subscriptions are made at all.
func (c *Crawler) pushEnabled() bool { return c.Push != nil && c.CallbackBase != "" }

// noticeHub records the hub a polled feed declares (its Link header or
// its own links), so that the websub job subscribes to it.
func (c *Crawler) noticeHub(ctx context.Context, f store.Feed, parsed *feed.Feed, res fetch.Result) {
	if !c.pushEnabled() {
		return
	}
	hub, topic := push.Discover(res.Header.Values("Link"), parsed.Hub, parsed.Self, res.FinalURL)
	if hub == "" {
		return // a hub dropped from the feed: the subscription lapses with its lease
	}
	if !strings.HasPrefix(hub, "https://") {
		// hub.secret "SHOULD only be specified when the request was made
		// over HTTPS" (§5.1), and without a secret no delivery could be
		// told from a forgery: a plain-http hub is not subscribed to.
		c.Log.Debug("websub: hub not over https, not subscribed", "feed", f.URL, "hub", hub)
		return
	}
	old, err := c.Push.FeedSubscription(ctx, f.ID)
	if err == nil && old.Hub == hub && old.Topic == topic {
		return
	}
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		c.Log.Warn("websub: subscription not read", "feed", f.URL, "err", err)
		c.progress.Load().failure(reasonNotRecorded, 1)
		return
	}
	_, err = c.Push.WantSubscription(ctx, store.Subscription{
		Callback: rand.Text(), Secret: rand.Text() + rand.Text(),
		FeedID: f.ID, SourceID: f.SourceID, Hub: hub, Topic: topic,
		State: model.SubscriptionWanted, NextAction: c.Clock.Now(),
	})
	if err != nil {
		c.Log.Warn("websub: hub not recorded", "feed", f.URL, "hub", hub, "err", err)
		c.progress.Load().failure(reasonNotRecorded, 1)
		return
	}
	c.Log.Info("websub: hub found", "feed", f.URL, "hub", hub, "topic", topic)
}

// pushedUntil is when the feed's active subscription's lease ends; zero
// when it has none (or it lapsed): only a pushed feed's polls stretch.
func (c *Crawler) pushedUntil(ctx context.Context, feedID int64, now time.Time) time.Time {
	if c.Push == nil {
		return time.Time{}
	}
	s, err := c.Push.FeedSubscription(ctx, feedID)
	if err != nil || s.State != model.SubscriptionActive || !now.Before(s.Expires) || s.SourcePaused {
		return time.Time{}
	}
	return s.Expires
}

// stretch moves the next poll of a feed pushed until `until` out to the
// safety poll, but not past the lease's end: a subscription that is not
// renewed in time gives the feed back to its schedule.
func (c *Crawler) stretch(f *store.Feed, now, until time.Time) {
	if until.IsZero() {
		return
	}
	safety := now.Add(c.Settings.PushSafetyPoll)
	if until.Before(safety) {
		safety = until
	}
	if safety.After(f.NextDue) {
		f.NextDue = safety
	}
}
