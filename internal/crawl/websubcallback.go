package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/push"
	"corpus.blog/corpusbot/internal/store"
)

// The callback's side of WebSub, for the public site (web.WebSubReceiver):
// the hub's verifications of intent and its deliveries, keyed by the
// callback ID at the end of /websub/callback/<id>.

// WebSubIntent answers a hub's GET on a callback (§5.3): the challenge to
// echo when the request is a subscribe or unsubscribe we asked for and
// still want (ok true); ok false (404) for anything else. A denial (§5.2)
// ends the subscription and is acknowledged.
func (c *Crawler) WebSubIntent(ctx context.Context, callback string, q url.Values) (challenge string, ok bool, err error) {
	if c.Push == nil {
		return "", false, nil
	}
	s, err := c.Push.Subscription(ctx, callback)
	if errors.Is(err, model.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	now := c.Clock.Now()
	mode, topic := q.Get("hub.mode"), q.Get("hub.topic")
	if mode == push.ModeDenied {
		if topic != s.Topic || (s.State != model.SubscriptionRequested && s.State != model.SubscriptionActive) {
			return "", false, nil
		}
		s.State, s.Error, s.NextAction = model.SubscriptionInactive, "denied by the hub: "+q.Get("hub.reason"), now.Add(inactiveRecheck)
		c.Log.Info("websub: denied", "hub", s.Hub, "topic", s.Topic, "reason", q.Get("hub.reason"))
		return "", true, c.Push.PutSubscription(ctx, s)
	}
	challenge = q.Get("hub.challenge")
	if challenge == "" || !push.AcceptsIntent(s.State, s.Topic, mode, topic) {
		return "", false, nil
	}
	if mode == push.ModeSubscribe && s.SourcePaused {
		return "", false, nil // paused since we asked: we no longer want it
	}
	switch mode {
	case push.ModeSubscribe:
		lease := push.ParseLease(q.Get("hub.lease_seconds"), c.lease())
		s.State, s.Lease, s.Verified, s.Expires = model.SubscriptionActive, lease, now, now.Add(lease)
		s.NextAction, s.Attempts, s.Error = push.RenewAt(now, lease), 0, ""
	case push.ModeUnsubscribe:
		s.State, s.NextAction, s.Expires = model.SubscriptionInactive, now.Add(inactiveRecheck), now
	}
	if err := c.Push.PutSubscription(ctx, s); err != nil {
		return "", false, err
	}
	c.Log.Info("websub: verified", "mode", mode, "hub", s.Hub, "topic", s.Topic, "lease", s.Lease)
	return challenge, true, nil
}

// WebSubDeliver takes one content distribution request (§7) whose body
// the site read (at most BODY_MAX) and says the status to answer:
//
//   - 410 Gone for a callback we do not know or no longer want (inactive,
//     unsubscribing, its source paused): §8 lets the hub end it on 410;
//   - 202 Accepted for a delivery whose X-Hub-Signature is missing or
//     wrong, its content ignored: §7.1.2, "subscribers MUST locally ignore
//     the message as invalid. Subscribers MAY still acknowledge this
//     request with a 2xx response code in order to … prevent brute-force
//     attempts of the signature" — so the answer is the same as for a
//     good one, and tells a forger nothing;
//   - 202 Accepted for a signed delivery, ingested exactly as a polled
//     body of the feed (and so for one that is not a feed: retrying would
//     not mend it);
//   - 500 (with err) when it could not be stored: the hub retries.
func (c *Crawler) WebSubDeliver(ctx context.Context, callback string, h http.Header, body []byte) (int, error) {
	if c.Push == nil {
		return http.StatusGone, nil
	}
	s, err := c.Push.Subscription(ctx, callback)
	if errors.Is(err, model.ErrNotFound) {
		return http.StatusGone, nil
	}
	if err != nil {
		return http.StatusInternalServerError, err
	}
	if s.SourcePaused || (s.State != model.SubscriptionActive && s.State != model.SubscriptionRequested) {
		return http.StatusGone, nil
	}
	if err := push.CheckSignature(s.Secret, h.Get("X-Hub-Signature"), body); err != nil {
		c.Log.Warn("websub: delivery ignored", "hub", s.Hub, "topic", s.Topic, "err", err)
		return http.StatusAccepted, nil
	}
	f, err := c.feedByID(ctx, s.SourceID, s.FeedID)
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return http.StatusGone, nil
		}
		return http.StatusInternalServerError, err
	}
	now := c.Clock.Now()
	f.Checked = now
	// The topic is the base of the body's links: the delivery's own
	// headers are not signed (§7.1.2), so they are not believed.
	parsed, err := c.ingestFeed(ctx, f, feedBody{
		Body: body, URL: s.Topic, ETag: f.ETag, LastModified: f.LastModified, pushed: true,
		save: func(ctx context.Context, posts []store.NewPost, update func(store.AddResult) store.Feed) (store.AddResult, error) {
			return c.Push.PushRead(ctx, s.Callback, now, posts, update)
		},
	}, now)
	switch {
	case err != nil && parsed != nil: // read, but not stored
		return http.StatusInternalServerError, err
	case err != nil:
		c.Log.Info("websub: delivery not a feed", "topic", s.Topic, "err", err)
	}
	// The pages a delivery made due are fetched by the run's page step,
	// not inside the hub's request: a site's pages take as long as its
	// pace says, a hub waits seconds.
	return http.StatusAccepted, nil
}

// feedByID finds one feed of a source.
func (c *Crawler) feedByID(ctx context.Context, sourceID, feedID int64) (store.Feed, error) {
	feeds, err := c.Store.SourceFeeds(ctx, sourceID)
	if err != nil {
		return store.Feed{}, err
	}
	for _, f := range feeds {
		if f.ID == feedID {
			return f, nil
		}
	}
	return store.Feed{}, fmt.Errorf("feed %d: %w", feedID, model.ErrNotFound)
}
