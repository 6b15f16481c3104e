package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/store"
)

// limitPages caps the database of the writer pool w at its size now
// (PRAGMA max_page_count, a setting of each connection, so on both of the
// pool's), or lifts the cap: capped, SQLite answers a write that needs a
// new page as it answers one on a full disk, with SQLITE_FULL.
func limitPages(t *testing.T, w *sql.DB, lift bool) {
	t.Helper()
	ctx := context.Background()
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 2 { // the writer pool's two connections (open.go)
		c, err := w.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		pages := int64(4294967294)
		if !lift {
			if err := c.QueryRowContext(ctx, `SELECT page_count FROM pragma_page_count()`).Scan(&pages); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFaultClassification produces each SQLite error for real and checks
// the fault the dialect reads in it.
func TestFaultClassification(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	raw := func(t *testing.T, dsn string) *sql.DB {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	base := filepath.Join(dir, "base.db")
	{
		db := raw(t, "file:"+base)
		if _, err := db.ExecContext(ctx, `CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT UNIQUE)`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO t(v) VALUES ('a')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		err  func(t *testing.T) error
		want store.Fault
		code string // in the error's text
	}{
		{"full", func(t *testing.T) error {
			db := raw(t, "file:"+base+"?_pragma=max_page_count(2)")
			db.SetMaxOpenConns(1)
			_, err := db.ExecContext(ctx, `INSERT INTO t(v) VALUES (?)`, strings.Repeat("x", 64<<10))
			return err
		}, store.CannotWrite, "(13)"},
		{"read-only", func(t *testing.T) error {
			db := raw(t, "file:"+base+"?mode=ro")
			_, err := db.ExecContext(ctx, `INSERT INTO t(v) VALUES ('b')`)
			return err
		}, store.CannotWrite, "(8)"},
		{"not a database", func(t *testing.T) error {
			db := raw(t, "file:"+garbage)
			_, err := db.ExecContext(ctx, `CREATE TABLE u (k INTEGER)`)
			return err
		}, store.CannotWrite, "(26)"},
		{"cannot open", func(t *testing.T) error {
			db := raw(t, "file:"+filepath.Join(dir, "no", "such", "dir", "x.db"))
			_, err := db.ExecContext(ctx, `CREATE TABLE u (k INTEGER)`)
			return err
		}, store.CannotWrite, "(14)"},
		{"busy past the timeout", func(t *testing.T) error {
			holder := raw(t, "file:"+base+"?_txlock=immediate")
			tx, err := holder.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.ExecContext(ctx, `INSERT INTO t(v) VALUES ('held')`); err != nil {
				t.Fatal(err)
			}
			other := raw(t, "file:"+base+"?_pragma=busy_timeout(0)")
			_, err = other.ExecContext(ctx, `INSERT INTO t(v) VALUES ('c')`)
			return err
		}, store.Unavailable, "(5)"},
		{"constraint", func(t *testing.T) error {
			db := raw(t, "file:"+base)
			_, err := db.ExecContext(ctx, `INSERT INTO t(v) VALUES ('a')`)
			return err
		}, store.NoFault, "(2067)"},
		{"syntax", func(t *testing.T) error {
			db := raw(t, "file:"+base)
			_, err := db.ExecContext(ctx, `INSERT INTO nowhere VALUES (1)`)
			return err
		}, store.NoFault, "no such table"},
		{"not sqlite's", func(t *testing.T) error { return errors.New("something else") }, store.NoFault, "else"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.err(t)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.code) {
				t.Errorf("error %q does not carry %s", err, c.code)
			}
			got, cause := fault(fmt.Errorf("wrapped: %w", err))
			if got != c.want {
				t.Errorf("fault(%q) = %v, want %v", err, got, c.want)
			}
			if got != store.NoFault && cause == nil {
				t.Errorf("fault(%q) gives no cause", err)
			}
		})
	}
}

// TestFullDatabaseHealth: the store's own writes meet SQLITE_FULL (the
// database held at its size), wrap it as ErrCannotWrite, count it and make
// it the store's health, which a probe clears once the database can grow.
func TestFullDatabaseHealth(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "full.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetWhere(path)
	if db.Health() != nil {
		t.Fatalf("health of a fresh store: %v", db.Health())
	}
	for range 3 { // the probe's rows and the pages they freed are there
		if err := db.Probe(ctx); err != nil {
			t.Fatalf("probe of a healthy store: %v", err)
		}
	}
	limitPages(t, db.Writer(), false)
	werr := fillUp(ctx, db, "blog")
	if !errors.Is(werr, store.ErrCannotWrite) {
		t.Fatalf("write on a full database: %v, not ErrCannotWrite", werr)
	}
	h := db.Health()
	var fe *store.FaultError
	if !errors.As(h, &fe) || fe.Fault != store.CannotWrite {
		t.Fatalf("health after the failed write: %v", h)
	}
	if !strings.Contains(fe.Reason(), "database or disk is full") || !strings.Contains(fe.Reason(), path) {
		t.Errorf("reason %q does not say what and where", fe.Reason())
	}
	if n := db.FailedWrites(store.CannotWrite); n < 1 {
		t.Errorf("FailedWrites %d", n)
	}
	if db.Fault(errors.New("not the store's")) != nil {
		t.Error("an error of no fault classified as one")
	}
	if err := db.Probe(ctx); !errors.Is(err, store.ErrCannotWrite) {
		t.Errorf("probe of the full database: %v, want ErrCannotWrite", err)
	}
	limitPages(t, db.Writer(), true)
	if err := db.Probe(ctx); err != nil {
		t.Fatalf("probe once the database can grow: %v", err)
	}
	if db.Health() != nil {
		t.Errorf("health after a probe that wrote: %v", db.Health())
	}
	if _, _, err := db.AddSource(ctx, "https://after.example/", time.Now()); err != nil {
		t.Errorf("write after recovery: %v", err)
	}
}

// fillUp adds sources of long URLs until a write fails, and returns its
// error (nil if 100,000 went in).
func fillUp(ctx context.Context, db *DB, prefix string) error {
	for i := range 100_000 {
		if _, _, err := db.AddSource(ctx, fmt.Sprintf("https://%s%d.example/%s", prefix, i, strings.Repeat("p", 500)), time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// TestFullDiskProbe puts the database on a small tmpfs (root only) and
// fills it: the writes fail with ErrCannotWrite, a probe fails too however
// small its write (the WAL cannot grow), and once the filesystem is grown
// the probe writes and the store is healthy again.
func TestFullDiskProbe(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v %s", err, out)
	}
	path := filepath.Join(dir, "full.db")
	db, err := Open(ctx, path)
	if err != nil {
		exec.Command("umount", dir).Run()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Close()
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount: %v %s", err, out)
		}
	})
	for range 3 {
		if err := db.Probe(ctx); err != nil {
			t.Fatalf("probe with room: %v", err)
		}
	}
	if err := fillUp(ctx, db, "blog"); !errors.Is(err, store.ErrCannotWrite) {
		t.Fatalf("write on a full disk: %v, not ErrCannotWrite", err)
	}
	for i := range 10 {
		if err := db.Probe(ctx); !errors.Is(err, store.ErrCannotWrite) {
			t.Fatalf("probe %d on a full disk: %v, want ErrCannotWrite", i, err)
		}
	}
	if db.Health() == nil {
		t.Fatal("healthy on a full disk")
	}
	if out, err := exec.Command("mount", "-o", "remount,size=16m", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	if err := db.Probe(ctx); err != nil {
		t.Fatalf("probe once the disk has room: %v", err)
	}
	if db.Health() != nil {
		t.Errorf("health after the probe: %v", db.Health())
	}
	if _, _, err := db.AddSource(ctx, "https://after.example/", time.Now()); err != nil {
		t.Errorf("write after the disk was grown: %v", err)
	}
}

// A store whose fault nobody waits out (no crawler probes it: the public
// site's) heals by itself once the database can write again: reading its
// health starts a probe now and then.
func TestHealthHealsByItself(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "heal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	limitPages(t, db.Writer(), false)
	if err := fillUp(ctx, db, "blog"); !errors.Is(err, store.ErrCannotWrite) {
		t.Fatalf("write on a full database: %v", err)
	}
	limitPages(t, db.Writer(), true)
	began := time.Now()
	for db.Health() != nil {
		if time.Since(began) > 20*time.Second {
			t.Fatal("the store's health did not heal within 20 s of the database being able to write")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("healed %v after the database could write", time.Since(began).Round(100*time.Millisecond))
}
