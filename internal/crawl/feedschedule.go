package crawl

import (
	"context"
	"fmt"
	"math"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/schedule"
	"corpus.blog/corpusbot/internal/store"
)

// The feed schedule (FEED_SCHEDULE). Each successful poll records what the
// feed showed in its History and sets its NextDue from the strategy in
// force; FeedsDue then offers the most overdue feeds first. The fixed
// strategy is the seed's rotation (NextDue = poll + FEED_INTERVAL). The
// adaptive one spreads the same number of polls by each feed's observed
// publishing rate (package schedule explains why √rate), recalibrated at
// the start of every round from all active feeds' histories; on a cluster
// each worker calibrates on the same data and reaches the same numbers.

// strategy is the schedule in force.
func (c *Crawler) strategy() schedule.Strategy {
	c.schedMu.Lock()
	defer c.schedMu.Unlock()
	// FEED_INTERVAL 0 (a simulation) is "always due", on either schedule.
	if c.sched == nil || c.Settings.FeedInterval == 0 {
		return schedule.Fixed{Interval: c.Settings.FeedInterval}
	}
	return c.sched
}

// calibrate fits the adaptive schedule to the feeds now held, at most
// once an hour (a round of `run` or an `articles fetch` each take one);
// with the fixed schedule it does nothing.
func (c *Crawler) calibrate(ctx context.Context) error {
	if c.Settings.FeedSchedule != config.ScheduleAdaptive {
		return nil
	}
	now := c.Clock.Now()
	c.schedMu.Lock()
	fresh := c.sched != nil && now.Sub(c.calibrated) < time.Hour && now.Sub(c.calibrated) >= 0
	c.schedMu.Unlock()
	if fresh {
		return nil
	}
	hs, err := c.Store.FeedHistories(ctx)
	if err != nil {
		return fmt.Errorf("calibrate the schedule: %w", err)
	}
	rates := make([]float64, 0, len(hs))
	for _, text := range hs {
		var h schedule.History
		if h.UnmarshalText([]byte(text)) != nil {
			h = schedule.History{} // an unreadable history is a feed not yet watched
		}
		rates = append(rates, h.Rate())
	}
	a := c.policy().CalibrateTo(rates, plannedPolls(len(rates), c.Settings))
	c.schedMu.Lock()
	c.sched, c.calibrated = a, now
	c.schedMu.Unlock()
	c.Log.Info("schedule calibrated", "feeds", len(rates), "polls_per_hour", plannedPolls(len(rates), c.Settings),
		"ceiling", a.Ceiling, "saturated", a.Saturated)
	return nil
}

// policy is the default policy under FEED_MAX_INTERVAL. A ceiling under
// the floor (FEED_MAX_INTERVAL 0, say, in a simulation) is the floor: every
// feed at the shortest interval, rather than a ceiling of 0 that would
// divide by zero in Calibrate's fair share and pass for saturation.
func (c *Crawler) policy() schedule.Policy {
	p := schedule.DefaultPolicy()
	// A FEED_INTERVAL compressed under the hour (a simulation) compresses
	// the floor with it.
	if c.Settings.FeedInterval > 0 {
		p.Floor = min(p.Floor, c.Settings.FeedInterval)
	}
	p.Ceiling = max(c.Settings.FeedMaxInterval, p.Floor)
	return p
}

// plannedPolls is the adaptive schedule's budget, in polls an hour: what
// the fixed rotation would spend on these feeds (one poll each per
// FEED_INTERVAL), never more than FEED_BUDGET. Adaptive polling moves
// polls from quiet feeds to busy ones; it does not add any. FEED_INTERVAL
// 0 is "always due": the rotation would spend all of FEED_BUDGET (and
// nothing on no feeds, where 0/0 would be NaN).
func plannedPolls(feeds int, s config.Settings) float64 {
	if feeds == 0 {
		return 0
	}
	if s.FeedInterval <= 0 {
		return float64(s.FeedBudget)
	}
	perHour := float64(feeds) * float64(time.Hour) / float64(s.FeedInterval)
	return math.Min(perHour, float64(s.FeedBudget))
}

// feedBudget is how many feeds one round of `run` may read: FEED_BUDGET
// an hour, for the round's RUN_INTERVAL.
func (c *Crawler) feedBudget() int {
	hours := max(c.Settings.RunInterval.Hours(), 1)
	return int(math.Ceil(float64(c.Settings.FeedBudget) * hours))
}

// observe records one successful poll of f in its History and sets its
// NextDue. newDates are the publication dates of the entries not held
// before (zero when undated); all are the dates of every entry on the page,
// read when the feed has no history yet: the first page is its past.
func (c *Crawler) observe(f *store.Feed, now time.Time, newDates, all []time.Time) {
	var h schedule.History
	if h.UnmarshalText([]byte(f.History)) != nil {
		h = schedule.History{}
	}
	first := h.LastPoll.IsZero()
	switch {
	case first:
		h.Observe(now, all)
	case len(all) >= fullPage && len(newDates) == len(all):
		// Every entry new: more may have scrolled off unseen.
		h.ObserveOverflow(now, newDates)
	default:
		h.Observe(now, newDates)
	}
	if text, err := h.MarshalText(); err == nil {
		f.History = string(text)
	}
	f.NextDue = c.strategy().NextDue(now, &h)
	if first {
		// The schedule in force was calibrated without this feed: its
		// second read is the fixed rotation's, by when it is counted.
		f.NextDue = now.Add(c.Settings.FeedInterval)
	}
}

// fullPage is the size of a feed page that may have overflowed: WordPress
// serves ten entries.
const fullPage = 10
