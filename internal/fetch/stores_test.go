package fetch_test

import (
	"context"
	"sync"
	"time"

	"corpus.blog/corpusbot/internal/fetch"
	"corpus.blog/corpusbot/internal/model"
)

// robotsStore is a fetch.RobotsStore in memory, as a store.DB would keep
// it: records by origin and the origins' standing. It counts its reads and
// notes every write made under a context already ended (a database would
// fail it).
type robotsStore struct {
	mu       sync.Mutex
	rows     map[string]model.RobotsRecord
	standing map[string]model.Origin
	reads    int
	dead     []string
}

func newRobotsStore() *robotsStore {
	return &robotsStore{rows: map[string]model.RobotsRecord{}, standing: map[string]model.Origin{}}
}

func (s *robotsStore) Robots(_ context.Context, origin string) (model.RobotsRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	r, ok := s.rows[origin]
	if !ok {
		return model.RobotsRecord{}, model.ErrNotFound
	}
	return r, nil
}

func (s *robotsStore) PutRobots(ctx context.Context, r model.RobotsRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		s.dead = append(s.dead, r.Origin)
	}
	s.rows[r.Origin] = r
	return nil
}

func (s *robotsStore) UpdateOriginStanding(_ context.Context, o model.Origin) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.standing[o.Origin] = o
	return nil
}

func (s *robotsStore) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

// stored is the entry the store holds for origin, as a new process reads
// it.
func (s *robotsStore) stored(origin string) (fetch.RobotsEntry, bool) {
	return fetch.NewRobotsCache(s, fetch.RobotsCacheOptions{}).Get(context.Background(), origin)
}

// refusalStore is a fetch.RefusalStore in memory; it counts its reads and
// notes the writes made under a context already ended.
type refusalStore struct {
	mu    sync.Mutex
	rows  map[string]model.RefusalState
	reads int
	dead  []string
}

func newRefusalStore() *refusalStore { return &refusalStore{rows: map[string]model.RefusalState{}} }

func (s *refusalStore) Refusal(_ context.Context, site string) (model.RefusalState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	return s.rows[site], nil
}

func (s *refusalStore) PutRefusal(ctx context.Context, site string, st model.RefusalState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		s.dead = append(s.dead, site)
	}
	s.rows[site] = st
	return nil
}

func (s *refusalStore) stored(site string) model.RefusalState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows[site]
}

// robotsHolds is fetch.RobotsHolds in memory, as a cluster's database
// keeps them: one holder per origin, until its hold expires.
type robotsHolds struct {
	mu    sync.Mutex
	holds map[string]robotsHoldRow
}

type robotsHoldRow struct {
	holder  string
	expires time.Time
}

func (h *robotsHolds) HoldRobotsRefresh(_ context.Context, origin, holder string, now, until time.Time) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.holds == nil {
		h.holds = map[string]robotsHoldRow{}
	}
	if r, ok := h.holds[origin]; ok && r.holder != holder && now.Before(r.expires) {
		return false, nil
	}
	h.holds[origin] = robotsHoldRow{holder, until}
	return true, nil
}

func (h *robotsHolds) ReleaseRobotsRefresh(_ context.Context, origin, holder string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r, ok := h.holds[origin]; ok && r.holder == holder {
		delete(h.holds, origin)
	}
	return nil
}

func (h *robotsHolds) row(origin string) (robotsHoldRow, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.holds[origin]
	return r, ok
}
