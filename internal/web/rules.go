package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/config"
	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/robots"
)

// ruleGroup is one heading of the crawler page's rules.
type ruleGroup struct {
	Title string
	Rules []rule
}

// rule is one promise in plain words. Settings names the settings whose
// values the sentence states, so a reader can match it to the table below.
type rule struct {
	Text     string
	Settings []string
}

// crawlerRules states every rule the crawler follows, with the values of s
// written into the sentences: the page is produced from the same Settings
// the crawler runs with, so it cannot say one thing while the crawler does
// another.
func crawlerRules(s config.Settings) []ruleGroup {
	token := s.ProductToken()
	return []ruleGroup{
		{"Who is asking", []rule{
			{Text: fmt.Sprintf("Every request carries the user agent %q, and nothing else claims to be us. robots.txt groups are matched on its product token, %s, without regard to case.", s.UserAgent, token), Settings: []string{"USER_AGENT"}},
			{Text: "We send no cookies, fill in no forms, log in nowhere and run no JavaScript. What a logged-out visitor cannot see, we do not see either."},
		}},
		{"robots.txt", []rule{
			{Text: "We read /robots.txt (RFC 9309) before anything else on a host, and every request of every kind asks the same parsed file first: feeds, pages, sitemaps, catalogue pages, and each redirect hop against the rules of the host it lands on."},
			{Text: fmt.Sprintf("A group naming %s replaces the * group rather than adding to it. The longest matching rule wins; a tie goes to Allow. * and $ work, percent-encoding is normalised, and the query string is part of the path matched.", token)},
			{Text: fmt.Sprintf("An answer your site gave us (a file, or 401/403) is kept for %s. A guess (no file, or the site unreachable) is kept for %s, because it is a guess.", humanDuration(s.RobotsTTL), humanDuration(s.RobotsGuessTTL)), Settings: []string{"ROBOTS_TTL", "ROBOTS_GUESS_TTL"}},
			{Text: fmt.Sprintf("A robots.txt that answers 401 or 403 is a refusal: we fetch nothing. One that answers another 4xx means there are no rules. A 5xx, 429, timeout or network failure pauses crawling; a copy read in the last %s is obeyed meanwhile.", humanDuration(robots.MaxCopyAge))},
			{Text: fmt.Sprintf("A feed your robots.txt disallows is kept but not read; we check the rule again every %s and resume by ourselves when it goes.", humanDuration(s.DisallowedRecheck)), Settings: []string{"DISALLOWED_RECHECK"}},
		}},
		{"Pace", []rule{
			{Text: "A site is its registrable domain: all its subdomains share one budget. We have at most one request in flight to a site, across all our machines."},
			{Text: fmt.Sprintf("Between the end of one request and the start of the next to the same site we wait at least %s, or your Crawl-delay if it is longer — Crawl-delay is a floor under our pause, never a ceiling.", humanDuration(s.MinGap)), Settings: []string{"MIN_GAP"}},
			{Text: privateRule(s.AllowPrivate), Settings: []string{"ALLOW_PRIVATE"}},
			{Text: fmt.Sprintf("We back off on trouble: 429 and 503 with Retry-After are obeyed; errors double the pause (up to %s), slow answers lengthen it, and a success narrows it again.", humanDuration(fetch.MaxBackoff))},
			{Text: fmt.Sprintf("A site that answers %d %s times in a row and has never served us a page goes on a refusal list; we then ask once every %s, and one success takes it off.", fetch.RefusalStatus, countWord(fetch.RefusalThreshold), humanDuration(s.RefusalRecheck)), Settings: []string{"REFUSAL_RECHECK"}},
		}},
		{"What we fetch", []rule{
			{Text: "Your robots.txt's Sitemap: lines, your feeds (those your homepage declares with <link rel=\"alternate\">, and only if it declares none, a few well-known paths), and the pages your feeds and sitemaps name. No site-wide crawl, no images, scripts or styles, no comment feeds, and no links out of your posts (they are recorded as citations)."},
			feedRule(s),
			{Text: fmt.Sprintf("Once per feed, never again once finished, we walk its older pages (?paged=2, 3, … or the feed's own next link): one page at a time, %s apart (or your Crawl-delay), stopping when a page adds nothing new and after %s pages at most.", humanDuration(s.CataloguePageDelay), strconv.Itoa(s.CatalogueMaxPages)), Settings: []string{"CATALOGUE_PAGE_DELAY", "CATALOGUE_MAX_PAGES"}},
			{Text: "Every re-read is conditional (If-None-Match, If-Modified-Since with the validators your server sent, exactly as sent), so an unchanged file costs you a 304 and no body. A page is fetched at most once, and again only when your sitemap or feed says it changed."},
			{Text: fmt.Sprintf("We ask for gzip or brotli, check Content-Type before reading a body, close non-HTML pages unread, read at most %s of any response, and follow at most %d redirects.", sizeWords(s.BodyMax), fetch.MaxRedirects), Settings: []string{"BODY_MAX"}},
			{Text: fmt.Sprintf("Work that is due is started in rounds, one every %s; nothing is polled continuously.", humanDuration(s.RunInterval)), Settings: []string{"RUN_INTERVAL"}},
			{Text: "A page marked noindex (meta robots, meta " + strings.ToLower(token) + ", or X-Robots-Tag) keeps no text; nofollow keeps its links out of the citations."},
		}},
		{"Push instead of poll", []rule{
			pushRule(s),
			{Text: "Tell us a page changed with IndexNow (POST or GET /indexnow on this site): for a site we hold, we fetch your key file once from the submitting host, then each URL you submit is re-read conditionally — no feed or sitemap read needed. Hosts we do not crawl are answered 422 and never contacted."},
		}},
		{"What we keep and show", []rule{
			{Text: "Article text is kept privately to compute the figures on this site. It is never shown, served or republished. What is public is metadata: titles, links, dates, counts and citations."},
		}},
	}
}

func privateRule(allow bool) string {
	if allow {
		return "This instance may connect to loopback, private and link-local addresses: it crawls a private network or a test bed, not the public web."
	}
	return "We never connect to loopback, private, link-local or unspecified addresses, even when a public name resolves to one."
}

// humanDuration writes a duration as people say it: "1 second", "24 hours",
// "7 days", "1 hour 30 minutes".
func humanDuration(d time.Duration) string {
	if d < time.Second {
		return plural(int(d/time.Millisecond), "millisecond")
	}
	units := []struct {
		d    time.Duration
		name string
	}{{7 * 24 * time.Hour, "week"}, {24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	// Whole weeks only when exact: "10 days" reads better than "1 week 3 days".
	var parts []string
	for _, u := range units {
		if u.name == "week" && d%u.d != 0 {
			continue
		}
		if n := d / u.d; n > 0 {
			parts = append(parts, plural(int(n), u.name))
			d -= n * u.d
		}
		if len(parts) == 2 {
			break
		}
	}
	return strings.Join(parts, " ")
}

// countWord writes a small count as a word ("three"), a larger one in
// digits.
func countWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return strconv.Itoa(n)
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// sizeWords writes a byte count as the settings do (5 MB is 5,000,000 bytes).
func sizeWords(n int64) string {
	switch {
	case n%1_000_000 == 0:
		return strconv.FormatInt(n/1_000_000, 10) + " MB"
	case n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + " kB"
	}
	return fmtNum(int(n)) + " bytes"
}

// feedRule says how often feeds and sitemaps are read, under the schedule
// in force.
func feedRule(s config.Settings) rule {
	sitemaps := fmt.Sprintf("a sitemap when its last read is older than %s, and a sitemap an index lists when the index says it changed, or at least once every %s "+
		"(conditionally: an unchanged one costs the site a 304). Only page one of a feed is read on each visit.", humanDuration(s.SitemapInterval), humanDuration(s.SitemapRecheck))
	if s.FeedSchedule == config.ScheduleFixed {
		return rule{Text: fmt.Sprintf("A feed is read when its last read is older than %s; %s", humanDuration(s.FeedInterval), sitemaps),
			Settings: []string{"FEED_SCHEDULE", "FEED_INTERVAL", "SITEMAP_INTERVAL", "SITEMAP_RECHECK"}}
	}
	return rule{Text: fmt.Sprintf("A feed is read as often as it publishes: a blog that posts every day more often than one that posts every month, "+
		"on average once every %s and never less than once every %s, and never more than %d feed reads an hour in all; %s",
		humanDuration(s.FeedInterval), humanDuration(s.FeedMaxInterval), s.FeedBudget, sitemaps),
		Settings: []string{"FEED_SCHEDULE", "FEED_INTERVAL", "FEED_MAX_INTERVAL", "FEED_BUDGET", "SITEMAP_INTERVAL", "SITEMAP_RECHECK"}}
}

// pushRule says when feeds are pushed by WebSub instead of polled.
func pushRule(s config.Settings) rule {
	if s.PublicURL == "" {
		return rule{Text: "This instance does not subscribe to WebSub hubs: it has no public address for them to call back, so every feed is polled.",
			Settings: []string{"PUBLIC_URL"}}
	}
	return rule{Text: fmt.Sprintf("When your feed names a WebSub hub, we subscribe with a callback on %s and a secret, check the signature of every delivery, "+
		"and read a pushed feed only once every %s in case the hub goes quiet. A hub's endpoint is an API we are a client of, not a page: robots.txt does not govern it, "+
		"but the pace between requests and the opt-out do. Pausing or opting out unsubscribes.", s.PublicURL, humanDuration(s.PushSafetyPoll)),
		Settings: []string{"PUBLIC_URL", "PUSH_SAFETY_POLL", "PUSH_LEASE"}}
}
