package web

import (
	"strings"
	"testing"

	"corpus.blog/corpusbot/internal/config"
)

// The crawler page states the schedule and the push rules the settings
// give, so it cannot promise what this instance does not do.
func TestRulesFollowScheduleAndPush(t *testing.T) {
	text := func(s config.Settings) string {
		var b strings.Builder
		for _, g := range crawlerRules(s) {
			for _, r := range g.Rules {
				b.WriteString(r.Text + "\n")
			}
		}
		return b.String()
	}
	s := config.Defaults()
	for _, want := range []string{"as often as it publishes", "never less than once every 1 week", "300 feed reads an hour", "does not subscribe to WebSub hubs"} {
		if !strings.Contains(text(s), want) {
			t.Errorf("defaults: no %q", want)
		}
	}
	s.FeedSchedule, s.PublicURL = config.ScheduleFixed, "https://corpus.blog"
	got := text(s)
	for _, want := range []string{"A feed is read when its last read is older than 1 day", "callback on https://corpus.blog", "once every 1 week in case the hub goes quiet"} {
		if !strings.Contains(got, want) {
			t.Errorf("fixed, public: no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "as often as it publishes") {
		t.Error("fixed schedule described as adaptive")
	}
}
