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
