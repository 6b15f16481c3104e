package robots

import (
	"errors"
	"testing"
	"time"
)

func TestDecidePolicy(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	ttl := TTLs{Answer: 24 * time.Hour, Guess: 6 * time.Hour}
	body := []byte("User-agent: *\nDisallow: /private/\n")
	copyOf := func(age time.Duration) *Copy {
		return &Copy{File: Parse([]byte("User-agent: *\nDisallow: /old/\n")), FetchedAt: now.Add(-age)}
	}
	timeout := errors.New("dial tcp: i/o timeout")
	const day = 24 * time.Hour

	tests := []struct {
		name             string
		fetch            Fetch
		last             *Copy
		unreachableSince time.Duration // how long ago the failures began; 0 for none
		wantState        State
		wantTTL          time.Duration
		allowed          []string
		disallowed       []string
	}{
		{"200 parses", Fetch{Status: 200, Body: body}, nil, 0, StateParsed, ttl.Answer, []string{"/public"}, []string{"/private/x"}},
		{"204 is a 2xx too", Fetch{Status: 204}, nil, 0, StateParsed, ttl.Answer, []string{"/anything"}, nil},
		{"200 beats an old copy", Fetch{Status: 200, Body: body}, copyOf(time.Hour), 0, StateParsed, ttl.Answer, []string{"/old/x"}, []string{"/private/x"}},
		{"301 is followed", Fetch{Status: 301}, nil, 0, StateRedirect, 0, nil, []string{"/x"}},
		{"fifth redirect still followed", Fetch{Status: 302, Redirects: 4}, nil, 0, StateRedirect, 0, nil, []string{"/x"}},
		{"sixth redirect: no file", Fetch{Status: 302, Redirects: 5}, nil, 0, StateNoFile, ttl.Guess, []string{"/x"}, nil},
		{"401 refuses", Fetch{Status: 401}, nil, 0, StateRefused, ttl.Answer, []string{"/robots.txt"}, []string{"/", "/x"}},
		{"403 refuses", Fetch{Status: 403}, nil, 0, StateRefused, ttl.Answer, nil, []string{"/x"}},
		{"403 ignores a copy", Fetch{Status: 403}, copyOf(time.Hour), 0, StateRefused, ttl.Answer, nil, []string{"/x"}},
		{"404 allows all", Fetch{Status: 404}, nil, 0, StateNoFile, ttl.Guess, []string{"/x", "/private/x"}, nil},
		{"410 allows all", Fetch{Status: 410}, nil, 0, StateNoFile, ttl.Guess, []string{"/x"}, nil},
		{"451 allows all", Fetch{Status: 451}, nil, 0, StateNoFile, ttl.Guess, []string{"/x"}, nil},
		{"429 pauses like a 5xx", Fetch{Status: 429}, nil, 0, StateUnreachable, ttl.Guess, []string{"/robots.txt"}, []string{"/x"}},
		{"408 pauses like a 5xx (the server gave up waiting: try later)", Fetch{Status: 408}, nil, 0, StateUnreachable, ttl.Guess, []string{"/robots.txt"}, []string{"/x"}},
		{"500 pauses", Fetch{Status: 500}, nil, 0, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"503 pauses", Fetch{Status: 503}, nil, 0, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"timeout pauses", Fetch{Err: timeout}, nil, 0, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"error wins over a status", Fetch{Status: 200, Err: timeout, Body: body}, nil, 0, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"unknown status pauses", Fetch{Status: 600}, nil, 0, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"500 with a fresh copy obeys it", Fetch{Status: 500}, copyOf(2 * day), 2 * day, StateStaleCopy, ttl.Guess, []string{"/private/x"}, []string{"/old/x"}},
		{"copy 29 days old still obeyed", Fetch{Err: timeout}, copyOf(29 * day), 29 * day, StateStaleCopy, ttl.Guess, []string{"/x"}, []string{"/old/x"}},
		{"copy 30 days old is too old", Fetch{Err: timeout}, copyOf(30 * day), 10 * day, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"unreachable 29 days, no copy", Fetch{Status: 503}, nil, 29 * day, StateUnreachable, ttl.Guess, nil, []string{"/x"}},
		{"unreachable 30 days, no copy: as if no file", Fetch{Status: 503}, nil, 30 * day, StateAbandoned, ttl.Guess, []string{"/x"}, nil},
		{"unreachable 40 days, copy as old: as if no file", Fetch{Err: timeout}, copyOf(41 * day), 40 * day, StateAbandoned, ttl.Guess, []string{"/old/x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var since time.Time
			if tt.unreachableSince > 0 {
				since = now.Add(-tt.unreachableSince)
			}
			v := Decide(tt.fetch, tt.last, since, now, ttl)
			if v.State != tt.wantState || v.TTL != tt.wantTTL {
				t.Fatalf("got state %s ttl %v, want %s ttl %v", v.State, v.TTL, tt.wantState, tt.wantTTL)
			}
			rules := v.For("CorpusBot")
			for _, u := range tt.allowed {
				if !rules.Allowed(u) {
					t.Errorf("%s disallowed, want allowed", u)
				}
			}
			for _, u := range tt.disallowed {
				if rules.Allowed(u) {
					t.Errorf("%s allowed, want disallowed", u)
				}
			}
		})
	}
}
