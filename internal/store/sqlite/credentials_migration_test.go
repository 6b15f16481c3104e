package sqlite

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// A database written before sources add refused user information, holding
// a source with a password, is scrubbed the first time a binary that
// refuses it opens the file, once, and the log names the source without
// its password.
func TestOpenScrubsCredentialsOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		// As before the scrub: no marker, and a source with a password.
		`DELETE FROM store_meta WHERE name = 'source_credentials'`,
		`INSERT INTO sources(url, added, site) VALUES ('http://alice:s3cret@creds.example/', 1, 'creds.example')`,
		`INSERT INTO feeds(source_id, url, state, catalogue) SELECT id, 'http://alice:s3cret@creds.example/feed', 'active', 'none' FROM sources`,
	} {
		if _, err := db.Writer().ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	var logged bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(old)
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var src, feed string
	if err := db.Writer().QueryRowContext(ctx, `SELECT s.url, f.url FROM sources s JOIN feeds f ON f.source_id = s.id`).Scan(&src, &feed); err != nil {
		t.Fatal(err)
	}
	if src != "http://creds.example/" || feed != "http://creds.example/feed" {
		t.Errorf("after Open: source %q, feed %q", src, feed)
	}
	log := logged.String()
	if !strings.Contains(log, "level=WARN") || !strings.Contains(log, "source URL carried a user name or password") ||
		!strings.Contains(log, "source=http://creds.example/") || strings.Contains(log, "s3cret") {
		t.Errorf("log:\n%s", log)
	}

	// Once: a password stored after the scrub (by hand; AddSource refuses
	// it) is not looked for at the next Open.
	if _, err := db.Writer().ExecContext(ctx, `UPDATE sources SET url = 'http://bob:pw@creds.example/'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	logged.Reset()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Writer().QueryRowContext(ctx, `SELECT url FROM sources`).Scan(&src); err != nil || src != "http://bob:pw@creds.example/" || logged.Len() != 0 {
		t.Errorf("second Open: source %q (%v), log %q", src, err, logged.String())
	}
}
