package fetch

import "sync"

// robotsLRU holds the robots entries of at most a fixed number of origins,
// letting go of the one used longest ago: the memory of a RobotsCache,
// where a forgotten origin costs a read of its store. Safe for concurrent
// use.
type robotsLRU struct {
	mu   sync.Mutex
	max  int // 0: no bound
	m    map[string]*robotsNode
	used robotsNode // sentinel of a ring: used.next is the newest, used.prev the oldest
}

type robotsNode struct {
	origin     string
	entry      RobotsEntry
	prev, next *robotsNode
}

// newRobotsLRU returns an empty memory of at most size origins (0 or less:
// every origin).
func newRobotsLRU(size int) *robotsLRU {
	r := &robotsLRU{max: max(size, 0), m: make(map[string]*robotsNode)}
	r.used.prev, r.used.next = &r.used, &r.used
	return r
}

// get returns the entry for origin and marks it used.
func (r *robotsLRU) get(origin string) (RobotsEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.m[origin]
	if !ok {
		return RobotsEntry{}, false
	}
	r.front(n)
	return n.entry, true
}

// put stores the entry for origin, letting go of the oldest origin if the
// memory is full.
func (r *robotsLRU) put(origin string, e RobotsEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.m[origin]; ok {
		n.entry = e
		r.front(n)
		return
	}
	if r.max > 0 && len(r.m) >= r.max {
		old := r.used.prev
		r.unlink(old)
		delete(r.m, old.origin)
	}
	n := &robotsNode{origin: origin, entry: e}
	r.m[origin] = n
	r.front(n)
}

// len is how many origins the memory holds.
func (r *robotsLRU) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// front moves n (linked or not) to the newest place.
func (r *robotsLRU) front(n *robotsNode) {
	if n.next != nil {
		r.unlink(n)
	}
	n.prev, n.next = &r.used, r.used.next
	r.used.next.prev = n
	r.used.next = n
}

func (r *robotsLRU) unlink(n *robotsNode) {
	n.prev.next, n.next.prev = n.next, n.prev
	n.prev, n.next = nil, nil
}
