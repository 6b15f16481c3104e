package web

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// TestMemDataConcurrent runs readers and writers at once; under -race it
// proves MemData's locking.
func TestMemDataConcurrent(t *testing.T) {
	m, ids := seed(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				switch (i + j) % 6 {
				case 0:
					m.PauseSite(ctx, "alpha.example", pausedByForm, testNow)
				case 1:
					m.ResumeSite(ctx, "alpha.example")
				case 2:
					m.Sites(ctx, model.SitesQuery{Limit: 2})
				case 3:
					m.Site(ctx, "alpha.example", testNow)
				case 4:
					m.Coverage(ctx)
					m.RequestsPerDay(ctx, testNow.AddDate(0, 0, -30), testNow)
				case 5:
					m.AddSource(MemSource{URL: fmt.Sprintf("https://s%d-%d.alpha.example/", i, j)})
					m.PauseSource(ctx, ids["beta"], pausedByClaim, testNow)
					m.LogRequest(MemRequest{Site: "beta.example", Outcome: "fetched", Start: testNow})
				}
			}
		})
	}
	wg.Wait()
}

func TestMemDataNotFound(t *testing.T) {
	m, _ := seed(t)
	ctx := context.Background()
	if _, err := m.Site(ctx, "nowhere.example", testNow); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Site: %v", err)
	}
	// A refused site we never held a source of, but asked: it has a page.
	m.LogRequest(MemRequest{Site: "refuser.example", Purpose: "robots", Status: 403, Outcome: "fetched", Start: testNow})
	if d, err := m.Site(ctx, "refuser.example", testNow); err != nil || !d.Refused || d.Requests.Total != 1 {
		t.Errorf("refuser: %+v %v", d, err)
	}
	for _, err := range []error{m.PauseSource(ctx, 999, "x", testNow), m.ResumeSource(ctx, 999), m.MarkClaimVerified(ctx, "x", "dns", testNow)} {
		if !errors.Is(err, model.ErrNotFound) {
			t.Errorf("want ErrNotFound, got %v", err)
		}
	}
	if _, err := m.Claim(ctx, "x"); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("Claim: %v", err)
	}
	if err := m.AddPost(MemPost{URL: "u", SourceID: 999}); !errors.Is(err, model.ErrNotFound) {
		t.Errorf("AddPost: %v", err)
	}
	c := model.Claim{ID: "a", Site: "beta.example"}
	if err := m.CreateClaim(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := m.CreateClaim(ctx, c); err == nil {
		t.Error("duplicate claim ID accepted")
	}
}

func TestRequestDaysWindow(t *testing.T) {
	m := NewMemData()
	for _, d := range []int{0, 1, 29, 30, 31} {
		m.LogRequest(MemRequest{Site: "a.example", Outcome: "fetched", Start: testNow.AddDate(0, 0, -d)})
	}
	m.LogRequest(MemRequest{Site: "a.example", Outcome: "refused", Start: testNow})
	to := day(testNow).AddDate(0, 0, 1)
	days, _ := m.RequestsPerDay(context.Background(), to.AddDate(0, 0, -30), to)
	if len(days) != 3 || !days[0].Day.Equal(day(testNow.AddDate(0, 0, -29))) || days[2].Requests != 1 {
		t.Errorf("window: %+v", days)
	}
}

// failingData fails every read, to show that a store error becomes a
// plain 500 that names nothing internal.
type failingData struct{ *MemData }

var errSecretInternal = errors.New("pq: relation secret_internal_table does not exist")

func (failingData) Coverage(context.Context) (model.Coverage, error) {
	return model.Coverage{}, errSecretInternal
}
func (failingData) Sites(context.Context, model.SitesQuery) (model.SitePage, error) {
	return model.SitePage{}, errSecretInternal
}
func (failingData) Site(context.Context, string, time.Time) (model.SiteDetail, error) {
	return model.SiteDetail{}, errSecretInternal
}
func (failingData) PauseSite(context.Context, string, string, time.Time) (model.PauseResult, error) {
	return model.PauseResult{}, errSecretInternal
}

func TestDataErrorsAreServerErrors(t *testing.T) {
	r := newRig(t, func(o *Options) { o.Data = failingData{o.Data.(*MemData)} })
	for _, p := range []string{"/", "/coverage", "/sources", "/sources/alpha.example", "/api/coverage", "/api/sources", "/api/sources/alpha.example"} {
		res := r.get(p)
		if res.Code != 500 || strings.Contains(res.Body, "secret_internal") {
			t.Errorf("%s: %d %s", p, res.Code, res.Body)
		}
	}
	if res := r.post("/opt-out", map[string][]string{"site": {"beta.example"}}); res.Code != 500 {
		t.Errorf("opt-out: %d", res.Code)
	}
	if res := r.get("/crawler"); res.Code != 200 {
		t.Errorf("the crawler page needs no data: %d", res.Code)
	}
}
