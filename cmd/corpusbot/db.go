package main

import (
	"context"
	"fmt"
	"os"

	"corpus.blog/corpusbot/internal/store/postgres"
	"corpus.blog/corpusbot/internal/store/sqlite"
	"corpus.blog/corpusbot/internal/version"
)

func versionCmd(env environment, args []string) error {
	fs := newFlags("version", "version\n\nPrints the module version, the source revision (VCS) and the Go release of this binary.")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("version takes no arguments")
	}
	fmt.Fprintln(env.stdout, version.Get())
	return nil
}

// postgresBackupHint is what to run instead on PostgreSQL, whose own tool
// takes a consistent copy of a live database.
const postgresBackupHint = "on PostgreSQL use pg_dump: pg_dump --format=custom --file=corpusbot.dump \"$CORPUSBOT_DB\" (restore with pg_restore)"

func dbBackup(env environment, args []string) error {
	return sqliteMaintenance(env, args, "db backup", "db backup FILE [--db PATH]\n\n"+
		"Writes a consistent copy of the SQLite database to FILE (which must not exist) while the\n"+
		"crawler and the site keep running (VACUUM INTO: the copy is also compacted). The copy opens\n"+
		"like the original: point CORPUSBOT_DB at it to restore. On PostgreSQL use pg_dump:\n"+
		"  pg_dump --format=custom --file=corpusbot.dump \"$CORPUSBOT_DB\"",
		1, postgresBackupHint,
		func(ctx context.Context, db *sqlite.DB, path string, args []string) (string, error) {
			if err := sqlite.Backup(ctx, db.Writer(), args[0]); err != nil {
				return "", err
			}
			return fmt.Sprintf("backed up %s to %s", path, args[0]), nil
		})
}

func dbVacuum(env environment, args []string) error {
	return sqliteMaintenance(env, args, "db vacuum", "db vacuum [--db PATH]\n\n"+
		"Rebuilds the SQLite file without the space of deleted rows (after REQUEST_LOG_RETENTION has\n"+
		"pruned old request-log rows, for instance) and empties the write-ahead log. Writers wait\n"+
		"while it runs. PostgreSQL vacuums itself (autovacuum).",
		0, "PostgreSQL vacuums itself (autovacuum); run VACUUM there if you must",
		func(ctx context.Context, db *sqlite.DB, path string, _ []string) (string, error) {
			if err := sqlite.Vacuum(ctx, db.Writer()); err != nil {
				return "", err
			}
			return "vacuumed " + path, nil
		})
}

// sqliteMaintenance is the shape of the db commands: settings (--db), nargs
// positional arguments, a refusal naming what to do instead on PostgreSQL,
// the existing SQLite database opened, job run on it and its line printed.
func sqliteMaintenance(env environment, args []string, name, usage string, nargs int, onPostgres string,
	job func(ctx context.Context, db *sqlite.DB, path string, args []string) (string, error)) error {
	fs := newFlags(name, usage)
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != nargs {
		return usageError("%s takes %d argument(s) (see --help)", name, nargs)
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	if postgres.IsDSN(s.DB) {
		return usageError("%s", onPostgres)
	}
	ctx, stop := interruptible()
	defer stop()
	db, err := openExisting(ctx, s.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	line, err := job(ctx, db, s.DB, positional)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, line)
	return nil
}

// openExisting opens a SQLite database that must already exist: a command
// that only reads or maintains one never creates an empty one by mistake.
func openExisting(ctx context.Context, path string) (*sqlite.DB, error) {
	if err := sqliteExists(path); err != nil {
		return nil, err
	}
	return sqlite.Open(ctx, path)
}

// sqliteExists refuses a SQLite path with no file behind it, which opening
// would create empty: a mistyped --db, or a command run in the wrong folder,
// would otherwise read an empty corpus and exit 0.
func sqliteExists(path string) error {
	if _, err := os.Stat(path); err != nil {
		return &noDatabaseError{path: path}
	}
	return nil
}

// noDatabaseError is sqliteExists's refusal, which says what to do.
type noDatabaseError struct{ path string }

func (e *noDatabaseError) Error() string {
	return fmt.Sprintf("no database at %s: run `corpusbot sources add` first, or pass --db", e.path)
}
