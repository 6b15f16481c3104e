package postgres

import (
	"context"
	"fmt"

	"corpus.blog/corpusbot/internal/store"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// OpenTraced is Open with every statement the store sends shown to
// tracer, so that a test can ask the planner about the store's own
// queries (plans_test.go) rather than copies of them.
func OpenTraced(ctx context.Context, dsn string, tracer pgx.QueryTracer) (*DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse dsn: %w", err)
	}
	cfg.Tracer = tracer
	db := stdlib.OpenDB(*cfg)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return &DB{DB: store.New(db, db, dialect, "", 0, nil), db: db}, nil
}
