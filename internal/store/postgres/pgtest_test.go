package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"corpus.blog/corpusbot/internal/store/postgres"
)

// envDSN names the test database; tests skip when it is unset. See
// .ci/postgres.sh.
const envDSN = "CORPUSBOT_TEST_POSTGRES"

// testDSN makes a fresh schema for t (dropped by its cleanup) and returns a
// DSN whose connections use it.
func testDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(envDSN)
	if base == "" {
		t.Skip(envDSN + " is not set")
	}
	return newSchema(t, base)
}

func newSchema(t testing.TB, base string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	admin, err := postgres.OpenDB(base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
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
