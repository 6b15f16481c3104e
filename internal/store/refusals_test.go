package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/store"
)

// noRefusals answers every site "not listed" and keeps nothing.
type noRefusals struct{ reads int }

func (n *noRefusals) Refusal(context.Context, string) (fetch.RefusalState, error) {
	n.reads++
	return fetch.RefusalState{}, nil
}

func (*noRefusals) PutRefusal(context.Context, string, fetch.RefusalState) error { return nil }

// TestRefusalsForgetWhenQuiet: the memory in front of the refusal list
// follows the sites asked in the last minute. A crawl that asked many
// sites and then went quiet lets go of them at its next request, instead
// of holding them until the memory doubles again.
func TestRefusalsForgetWhenQuiet(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	st := &noRefusals{}
	r := store.NewRefusals(st, nil).UseClock(func() time.Time { return now })
	const sites = 5000
	for i := range sites {
		r.Get(ctx, fmt.Sprintf("s%d.example", i))
		now = now.Add(time.Millisecond) // 5 s for all
	}
	if got := r.Remembered(); got < sites/2 {
		t.Fatalf("remembered %d sites of %d asked within a minute", got, sites)
	}
	// Asked again within the minute: from memory, no store read.
	reads := st.reads
	r.Get(ctx, "s4999.example")
	if st.reads != reads {
		t.Errorf("a standing read %v ago was read from the store again", time.Millisecond)
	}
	now = now.Add(2 * store.RefusalMemory)
	r.Get(ctx, "new.example")
	if got := r.Remembered(); got != 1 {
		t.Errorf("after two quiet minutes and one request the memory holds %d sites, want 1", got)
	}
}
