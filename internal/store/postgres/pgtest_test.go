package postgres_test

import (
	"context"
	"testing"

	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/postgres/pgtest"
)

// testDSN is a fresh schema for t; see pgtest.
func testDSN(t testing.TB) string {
	t.Helper()
	return pgtest.DSN(t)
}

func open(t testing.TB, dsn string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openErr(dsn string) (*postgres.DB, error) { return postgres.Open(context.Background(), dsn) }
