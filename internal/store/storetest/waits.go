package storetest

import (
	"slices"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/store"
)

// testWaits: a site's stored wait (fetch.Waits) survives, leaves the site
// out of the due sites while it reaches past the frontier's horizon, is
// listed among the waiting sites, and is gone once deleted or rested long.
func testWaits(t *testing.T, s *store.DB) {
	sources(t, s, 3) // s000.example … s002.example, never discovered: due
	day := model.SiteWait{Site: "s001.example", Gap: 0, End: T0, Until: T0.Add(24 * time.Hour), Next: T0.Add(24 * time.Hour)}
	soon := model.SiteWait{Site: "s002.example", Gap: 8 * time.Second, End: T0, Next: T0.Add(8 * time.Second)}
	must(t, s.SaveWait(bg, day))
	must(t, s.SaveWait(bg, soon))

	got, err := s.LoadWaits(bg, T0)
	must(t, err)
	if len(got) != 2 || got[0] != day || got[1] != soon {
		t.Fatalf("LoadWaits = %+v, want %+v and %+v", got, day, soon)
	}

	q := siteQuery("r0", 0)
	q.WaitBefore = T0.Add(30 * time.Second)
	due, err := s.DueSites(bg, q, 10)
	must(t, err)
	var names []string
	for _, d := range due {
		names = append(names, d.Site)
	}
	if !slices.Equal(names, []string{"s000.example", "s002.example"}) {
		t.Errorf("due sites with a 30 s horizon: %v, want s000 and s002 (s001 waits a day)", names)
	}
	if n, err := s.CountDueSites(bg, q); err != nil || n != 2 {
		t.Errorf("CountDueSites = %d, %v; want 2", n, err)
	}
	q.WaitBefore = T0
	waiting, err := s.WaitingSites(bg, q, 10)
	must(t, err)
	if want := []store.WaitingSite{{Site: soon.Site, Until: soon.Next}, {Site: day.Site, Until: day.Next}}; !slices.EqualFunc(waiting, want,
		func(a, b store.WaitingSite) bool { return a.Site == b.Site && a.Until.Equal(b.Until) }) {
		t.Errorf("WaitingSites = %+v, want %+v", waiting, want)
	}
	// Finished for the round: not listed for that round.
	got1, err := s.CheckOutSites(bg, "r1", []string{day.Site})
	must(t, err)
	if len(got1) != 1 {
		t.Fatalf("check out %s: %v", day.Site, got1)
	}
	must(t, s.CheckInSite(bg, day.Site, "r1", time.Time{}, time.Time{}))
	q.Round = "r1"
	waiting, err = s.WaitingSites(bg, q, 10)
	must(t, err)
	if len(waiting) != 1 || waiting[0].Site != soon.Site {
		t.Errorf("WaitingSites in the round that finished %s = %+v", day.Site, waiting)
	}

	// A zero wait deletes; a wait long rested is pruned on load.
	must(t, s.SaveWait(bg, model.SiteWait{Site: day.Site}))
	got, err = s.LoadWaits(bg, T0.Add(time.Hour)) // 3 h on, less the fetcher's 2 h rest
	must(t, err)
	if len(got) != 0 {
		t.Errorf("after deleting one and resting the other 3 h: %+v", got)
	}
	q = siteQuery("", 0)
	q.WaitBefore = T0.Add(30 * time.Second)
	if n, err := s.CountDueSites(bg, q); err != nil || n != 3 {
		t.Errorf("CountDueSites after the waits went = %d, %v; want 3", n, err)
	}
}
