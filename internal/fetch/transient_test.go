package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

func TestTransient(t *testing.T) {
	tests := []struct {
		res  Result
		want bool
	}{
		{Result{Outcome: model.OutcomeFetched, Status: 200}, false},
		{Result{Outcome: model.OutcomeUnchanged, Status: 304}, false},
		{Result{Outcome: model.OutcomeStatus, Status: 404}, false},
		{Result{Outcome: model.OutcomeStatus, Status: 410}, false},
		{Result{Outcome: model.OutcomeStatus, Status: 403}, false},
		{Result{Outcome: model.OutcomeStatus, Status: 408}, true},
		{Result{Outcome: model.OutcomeStatus, Status: 429}, true},
		{Result{Outcome: model.OutcomeStatus, Status: 500}, true},
		{Result{Outcome: model.OutcomeStatus, Status: 503}, true},
		{Result{Outcome: model.OutcomeStatus, Status: 599}, true},
		{Result{Outcome: model.OutcomeError, Err: errors.New("read: connection reset by peer")}, true},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: %w", ErrTooManyRedirects)}, false},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: %w", ErrRedirectLoop)}, false},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("dial: %w", ErrPrivateAddress)}, false},
		{Result{Outcome: model.OutcomeDisallowed}, false},
		{Result{Outcome: model.OutcomeRefused}, false},
		{Result{Outcome: model.OutcomeOptedOut}, false},
		{Result{Outcome: model.OutcomeWaiting, Err: &WaitError{Site: "a.example"}}, false},
		{Result{Outcome: model.OutcomeTooLarge}, false},
		{Result{Outcome: model.OutcomeWrongType}, false},
	}
	for _, tt := range tests {
		if got := tt.res.Transient(); got != tt.want {
			t.Errorf("%s %d %v: Transient = %v, want %v", tt.res.Outcome, tt.res.Status, tt.res.Err, got, tt.want)
		}
	}
}

func TestResultRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := http.Header{"Retry-After": {"5"}}
	for _, tt := range []struct {
		status int
		header http.Header
		want   time.Duration
	}{
		{429, h, 5 * time.Second},
		{503, h, 5 * time.Second},
		{500, h, 0}, // Retry-After means nothing on a 500
		{429, nil, 0},
		{503, http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute},
	} {
		if got := (Result{Status: tt.status, Header: tt.header}).RetryAfter(now); got != tt.want {
			t.Errorf("%d %v: RetryAfter = %v, want %v", tt.status, tt.header, got, tt.want)
		}
	}
}

func TestRetrySchedule(t *testing.T) {
	s := RetrySchedule{Attempts: 5, Window: 72 * time.Hour}
	var waits []time.Duration
	var sum time.Duration
	for n := 1; ; n++ {
		w, ok := s.Delay(n)
		if !ok {
			if n != 5 {
				t.Fatalf("the budget ran out after %d tries, want 5", n)
			}
			break
		}
		if len(waits) > 0 && w <= waits[len(waits)-1] {
			t.Errorf("wait %d (%v) not longer than the one before (%v)", n, w, waits[len(waits)-1])
		}
		waits = append(waits, w)
		sum += w
	}
	if waits[0] != FirstRetry {
		t.Errorf("first wait %v, want %v", waits[0], FirstRetry)
	}
	if d := sum - s.Window; d < -time.Minute || d > time.Minute {
		t.Errorf("waits %v sum to %v, want the window %v", waits, sum, s.Window)
	}
	// A compressed window shrinks every wait; one try means no retry.
	if w, ok := (RetrySchedule{Attempts: 5, Window: time.Minute}).Delay(1); !ok || w != 15*time.Second {
		t.Errorf("compressed first wait = %v, %v; want 15s", w, ok)
	}
	if _, ok := (RetrySchedule{Attempts: 1, Window: time.Hour}).Delay(1); ok {
		t.Error("one attempt allowed a retry")
	}
	if w, ok := (RetrySchedule{Attempts: 3, Window: 0}).Delay(2); !ok || w != 0 {
		t.Errorf("a zero window: %v, %v; want retries at once", w, ok)
	}
}

func TestReason(t *testing.T) {
	for _, tt := range []struct {
		res  Result
		want string
	}{
		{Result{Outcome: model.OutcomeFetched}, ""},
		{Result{Outcome: model.OutcomeStatus, Status: 503}, "status 503"},
		{Result{Outcome: model.OutcomeDisallowed}, "disallowed by robots.txt"},
		{Result{Outcome: model.OutcomeDisallowed, Robots: "unreachable"}, "robots.txt unreachable"},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: %w", &net.DNSError{Err: "no such host", Name: "x"})}, "DNS failure"},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: read: %w", syscall.ECONNRESET)}, "connection reset"},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: %w", context.DeadlineExceeded)}, "timeout"},
		{Result{Outcome: model.OutcomeError, Err: fmt.Errorf("fetch x: %w", ErrPrivateAddress)}, "private address refused"},
		{Result{Outcome: model.OutcomeError, Err: errors.New("something odd")}, "no answer"},
	} {
		if got := tt.res.Reason(); got != tt.want {
			t.Errorf("%s %d %v: Reason = %q, want %q", tt.res.Outcome, tt.res.Status, tt.res.Err, got, tt.want)
		}
	}
}
