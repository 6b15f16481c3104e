package demo

import (
	"time"
)

// Report is what a demo run measured, on the server side unless said
// otherwise.
type Report struct {
	Blogs      int
	Posts      int // live posts on day 1
	Allowed    int // of which robots.txt lets CorpusBot (and so the baseline) fetch
	DB         string
	Days       []Day
	Violations []string // politeness breaches by the real crawler, as the servers saw them
	Findings   Findings
	Elapsed    time.Duration // wall time of the whole run
}

// Day is one simulated day for both crawlers.
type Day struct {
	N                      int
	New, Modified, Removed int // changes before the day's crawl; day 1: every post is new
	// Changed is the new and modified posts robots.txt lets a crawler
	// fetch: the denominator of every "per post" figure.
	Changed         int
	Bot, Naive      Tally
	BotNotSent      map[string]int // requests the fetcher declined, by reason
	NaiveWalk       NaiveDay
	BotSeen         int            // of Changed, picked up by corpusbot (stored with the new date, text read or carried by the feed)
	NaiveSeen       int            // of Changed, whose page the naive crawler fetched
	BotRemovalsSeen int            // removed posts corpusbot marked removed
	BotMissed       map[string]int // of Changed, by host, the posts corpusbot did not pick up
	// BotDisallowedRequested is corpusbot's requests for URLs robots.txt
	// disallows it, by the blogs' own rules: must be 0.
	BotDisallowedRequested int
}

// BotPerPost is corpusbot's requests per new-or-modified post.
func (d Day) BotPerPost() float64 { return per(d.Bot.Total.Requests, d.Changed) }

// NaivePerPost is the naive crawler's requests per new-or-modified post.
func (d Day) NaivePerPost() float64 { return per(d.Naive.Total.Requests, d.Changed) }

// BotPagesPerPost is corpusbot's post-page requests per new-or-modified post.
func (d Day) BotPagesPerPost() float64 { return per(d.Bot.ByKind[KindPost].Requests, d.Changed) }

// NaivePagesPerPost is the naive crawler's post-page requests per
// new-or-modified post.
func (d Day) NaivePagesPerPost() float64 { return per(d.Naive.ByKind[KindPost].Requests, d.Changed) }

// FewerRequests is the fraction of the naive crawler's requests corpusbot
// did without (negative: it made more).
func (d Day) FewerRequests() float64 {
	return 1 - float64(d.Bot.Total.Requests)/float64(max(1, d.Naive.Total.Requests))
}

// FewerBytes is the same for the bytes sent.
func (d Day) FewerBytes() float64 {
	return 1 - float64(d.Bot.Total.Bytes)/float64(max(1, d.Naive.Total.Bytes))
}

func per(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}
