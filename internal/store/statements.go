package store

import (
	"context"
	"database/sql"
	"sync"
)

// Prepared statements, kept. A query sent as text is parsed and planned by
// SQLite on every call — about a third of the one writer's time once the
// writes are grouped (BenchmarkWrites' profile). With
// Dialect.CacheStatements each query text is prepared once per pool and
// kept while the DB is open; a transaction runs it through Tx.StmtContext,
// which uses the connection's own copy (the writer pool has one
// connection, so it is prepared once in all). PostgreSQL's driver keeps a
// statement cache of its own.

// statements holds the prepared statements of one DB, by pool and text.
type statements struct {
	mu sync.Mutex
	m  map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	pool *sql.DB
	q    string
}

// statement is q prepared for c, or nil when statements are not kept (or
// q does not prepare, in which case the direct call reports the error).
// A statement of a transaction ends with it: nothing to close.
func (c conn) statement(ctx context.Context, q string) *sql.Stmt {
	if !c.db.dialect.CacheStatements || c.pool == nil {
		return nil
	}
	st := &c.db.stmts
	k := stmtKey{c.pool, q}
	st.mu.Lock()
	s, ok := st.m[k]
	st.mu.Unlock()
	if !ok {
		var err error
		// Prepared outside any caller's context: it outlives the call.
		s, err = c.pool.PrepareContext(context.WithoutCancel(ctx), c.db.rebind(q))
		if err != nil {
			return nil
		}
		st.mu.Lock()
		if old, raced := st.m[k]; raced {
			s.Close()
			s = old
		} else {
			if st.m == nil {
				st.m = make(map[stmtKey]*sql.Stmt)
			}
			st.m[k] = s
		}
		st.mu.Unlock()
	}
	if c.tx != nil {
		return c.tx.StmtContext(c.ctx(ctx), s)
	}
	return s
}

// close closes every kept statement, before the pools close.
func (st *statements) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k, s := range st.m {
		s.Close()
		delete(st.m, k)
	}
}
