package postgres_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/postgres"
)

// TestServerFaults meets two faults of a real server through the store:
// a write in a read-only transaction (25006) and the administrator ending
// the store's connections (57P01, as a restart's fast stop does), after
// which a probe finds the server again and the store is healthy.
func TestServerFaults(t *testing.T) {
	ctx := context.Background()
	dsn := testDSN(t)
	b := make([]byte, 6)
	rand.Read(b)
	app := "faults_" + hex.EncodeToString(b)
	db, err := postgres.Open(ctx, dsn+"&application_name="+app)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO store_meta(name, value) VALUES ('ro', 'x')`)
	tx.Rollback()
	conn.Close()
	if fe := db.Fault(err); fe == nil || fe.Fault != store.CannotWrite {
		t.Errorf("write in a read-only transaction: %v read as %v", err, fe)
	}
	if err := db.Probe(ctx); err != nil { // the fault read is the store's health until a probe
		t.Fatal(err)
	}

	if _, _, err := db.AddSource(ctx, "https://before.example/", time.Now()); err != nil {
		t.Fatal(err)
	}
	admin, err := postgres.OpenDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var ended int
	if err := admin.QueryRowContext(ctx, `SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&ended); err != nil {
		t.Fatal(err)
	}
	if ended == 0 {
		t.Fatal("no connection of the store to end")
	}
	// Every connection the pool kept is dead: the first write on one meets
	// the termination (57P01), or the closed connection after it.
	var werr error
	for i := range 20 {
		if _, _, werr = db.AddSource(ctx, fmt.Sprintf("https://after%d.example/", i), time.Now()); werr != nil {
			break
		}
	}
	if werr != nil {
		if !errors.Is(werr, store.ErrUnavailable) {
			t.Fatalf("write on an ended connection: %v, not ErrUnavailable", werr)
		}
		if h := db.Health(); !errors.Is(h, store.ErrUnavailable) {
			t.Errorf("health after it: %v", h)
		}
	} else {
		t.Log("database/sql replaced every ended connection before it was used")
	}
	if err := db.Probe(ctx); err != nil {
		t.Fatalf("probe of a server that is up: %v", err)
	}
	if h := db.Health(); h != nil {
		t.Errorf("health after the probe: %v", h)
	}
}
