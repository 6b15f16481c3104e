// Package pgtest gives tests a PostgreSQL database of their own: a fresh
// schema in the server CORPUSBOT_TEST_POSTGRES names (see .ci/postgres.sh),
// dropped when the test ends. Tests skip when the variable is unset.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"corpus.blog/corpusbot/internal/store/postgres"
)

// EnvDSN names the test server.
const EnvDSN = "CORPUSBOT_TEST_POSTGRES"

// DSN makes a fresh schema for t (dropped by its cleanup) and returns a
// DSN whose connections use it; it skips t when EnvDSN is unset.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvDSN)
	if base == "" {
		t.Skip(EnvDSN + " is not set")
	}
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
