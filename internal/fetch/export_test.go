package fetch

// Counts of the per-site state held in memory, for the tests of forgetting.

// BackoffSites is how many sites have a back-off in memory.
func (f *Fetcher) BackoffSites() int { return f.backoffs.len() }

// ForgottenEnds is how many last ends of forgotten sites the lease keeps.
func (l *LocalLease) ForgottenEnds() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ends) + len(l.oldEnds)
}

// TransportsBuilt is how many http.Transports the fetcher has used.
func (f *Fetcher) TransportsBuilt() int {
	ts := f.client.Transport.(*transports)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.built
}

// SiteConnsOpen is how many connections the fetcher has recorded as open,
// and for how many sites it holds an entry.
func (f *Fetcher) SiteConnsOpen() (conns, sites int) {
	f.conns.mu.Lock()
	defer f.conns.mu.Unlock()
	for _, s := range f.conns.sites {
		conns += len(s.conns)
	}
	return conns, len(f.conns.sites)
}

// Remembered is how many sites' states the refusal list's memory holds.
func (r *Refusals) Remembered() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.mem)
}

// Held is how many origins the robots cache's memory holds.
func (c *RobotsCache) Held() int { return c.mem.len() }

// BodyBudgetUsed is the bytes of the body budget held now (0 unbounded).
func (f *Fetcher) BodyBudgetUsed() int64 {
	if f.bodies == nil {
		return 0
	}
	f.bodies.mu.Lock()
	defer f.bodies.mu.Unlock()
	return f.bodies.used
}
