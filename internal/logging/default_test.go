package logging

import (
	"log/slog"
	"testing"
)

func TestOrDefault(t *testing.T) {
	if got := OrDefault(nil); got != slog.Default() {
		t.Errorf("OrDefault(nil) = %p, want slog.Default() %p", got, slog.Default())
	}
	given := slog.New(slog.DiscardHandler)
	if got := OrDefault(given); got != given {
		t.Errorf("OrDefault(given) = %p, want the logger given %p", got, given)
	}
}
