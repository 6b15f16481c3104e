package fetch_test

import (
	"fmt"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// The memory in front of the refusal list follows the sites asked in the
// last minute. A crawl that asked many sites and then went quiet lets go
// of them at its next request, instead of holding them until the memory
// doubles again.
func TestRefusalsForgetWhenQuiet(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	st := newRefusalStore()
	r := fetch.NewRefusals(st, func() time.Time { return now }, nil)
	const sites = 5000
	for i := range sites {
		r.Get(bg, fmt.Sprintf("s%d.example", i))
		now = now.Add(time.Millisecond) // 5 s for all
	}
	if got := r.Remembered(); got < sites/2 {
		t.Fatalf("remembered %d sites of %d asked within a minute", got, sites)
	}
	// Asked again within the minute: from memory, no store read.
	reads := st.reads
	r.Get(bg, "s4999.example")
	if st.reads != reads {
		t.Errorf("a state read %v ago was read from the store again", time.Millisecond)
	}
	now = now.Add(2 * fetch.RefusalMemory)
	r.Get(bg, "new.example")
	if got := r.Remembered(); got != 1 {
		t.Errorf("after two quiet minutes and one request the memory holds %d sites, want 1", got)
	}
}

// What this process puts it knows at once; what another worker puts in
// the store is seen once the state read is RefusalMemory old.
func TestRefusalsSeeOtherWorkersWithinAMinute(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	st := newRefusalStore()
	clock := func() time.Time { return now }
	a, b := fetch.NewRefusals(st, clock, nil), fetch.NewRefusals(st, clock, nil)
	listed := model.RefusalState{Consecutive403: 3, Refused: true, LastAsked: now}
	if got := b.Get(bg, "a.example"); got != (model.RefusalState{}) {
		t.Fatalf("before any answer: %+v", got)
	}
	a.Put(bg, "a.example", listed)
	if got := a.Get(bg, "a.example"); got != listed {
		t.Errorf("the writer's own state: %+v, want %+v", got, listed)
	}
	if got := st.stored("a.example"); got != listed {
		t.Errorf("stored %+v, want %+v", got, listed)
	}
	now = now.Add(fetch.RefusalMemory - time.Second)
	if got := b.Get(bg, "a.example"); got != (model.RefusalState{}) {
		t.Errorf("within the minute, the other worker has %+v, want its memory", got)
	}
	now = now.Add(time.Second)
	if got := b.Get(bg, "a.example"); got != listed {
		t.Errorf("after the minute, the other worker has %+v, want %+v", got, listed)
	}
}

// Without a store the list is the only copy: it never forgets a site.
func TestRefusalsWithoutStoreKeepEverySite(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	r := fetch.NewRefusals(nil, func() time.Time { return now }, nil)
	listed := model.RefusalState{Consecutive403: 3, Refused: true, LastAsked: now}
	r.Put(bg, "a.example", listed)
	for i := range 3000 {
		r.Put(bg, fmt.Sprintf("s%d.example", i), model.RefusalState{Served: true})
	}
	now = now.Add(24 * time.Hour)
	r.Put(bg, "late.example", model.RefusalState{Served: true})
	if got := r.Get(bg, "a.example"); got != listed {
		t.Errorf("a day on: %+v, want %+v", got, listed)
	}
	if got := r.Remembered(); got != 3002 {
		t.Errorf("%d sites remembered, want 3002", got)
	}
}
