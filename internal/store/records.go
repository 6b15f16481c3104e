package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Changes is how a backend stamps a post's record changes and reads them
// back for `export --since` (the stamps themselves are its triggers', see
// its "post changes" migration).
type Changes struct {
	// Cursor is the query that reads the current position, as text.
	Cursor string
	// Valid reports whether a cursor's position is of this backend's form.
	Valid func(pos string) bool
	// After is the condition on posts p that their record changed after
	// the position given as the placeholder ph.
	After func(ph string) string
}

// ErrCursor matches a --since cursor that is malformed or from another
// database.
var ErrCursor = errors.New("bad cursor")

// cursorPrefix begins every cursor, so that another version's can be told.
const cursorPrefix = "c1."

// ExportFilter selects the posts ExportPosts gives; its zero value selects
// every post.
type ExportFilter struct {
	States    []string // any of these states (none: any)
	Site      string   // the site (registrable domain) of the post's source
	Languages []string // any of these languages (none: any)
	Unique    bool     // leave out the posts that are another's duplicate
	// Since is a cursor: only the posts whose record changed after it
	// (CheckCursor first).
	Since string
	// Markdown reads each post's stored Markdown form too (Post.Markdown).
	Markdown bool
}

// Cursor is the database's position in its changes now, to be given back
// as ExportFilter.Since: read before the posts an export writes, so that
// every change the export may not show is after it.
func (d *DB) Cursor(ctx context.Context) (string, error) {
	id, err := d.databaseID(ctx)
	if err != nil {
		return "", err
	}
	var pos string
	if err := d.r.QueryRowContext(ctx, d.dialect.Changes.Cursor).Scan(&pos); err != nil {
		return "", fmt.Errorf("cursor: %w", err)
	}
	return cursorPrefix + id + "." + pos, nil
}

// CheckCursor says whether c is a cursor of this database (ErrCursor when
// it is malformed or another's).
func (d *DB) CheckCursor(ctx context.Context, c string) error {
	_, err := d.cursorPosition(ctx, c)
	return err
}

func (d *DB) cursorPosition(ctx context.Context, c string) (string, error) {
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	id, pos, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || id == "" || !d.dialect.Changes.Valid(pos) {
		return "", fmt.Errorf("%w: %q is not a cursor an export printed", ErrCursor, c)
	}
	mine, err := d.databaseID(ctx)
	if err != nil {
		return "", err
	}
	if id != mine {
		return "", fmt.Errorf("%w: the cursor is from another database", ErrCursor)
	}
	return pos, nil
}

func (d *DB) databaseID(ctx context.Context) (string, error) {
	var id string
	if err := d.r.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE name = 'db_id'`).Scan(&id); err != nil {
		return "", fmt.Errorf("database ID: %w", err)
	}
	return id, nil
}

// ExportPosts calls fn with each post f selects, by ID, a page at a time,
// with DuplicateURL set; a post added meanwhile after the last page read is
// included.
func (d *DB) ExportPosts(ctx context.Context, f ExportFilter, fn func(Post) error) error {
	var where []string
	args := []any{int64(0), eachPageSize}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	in := func(col string, vs []string) {
		ph := make([]string, len(vs))
		for i, v := range vs {
			ph[i] = arg(v)
		}
		where = append(where, col+" IN ("+strings.Join(ph, ", ")+")")
	}
	if len(f.States) > 0 {
		in("p.state", f.States)
	}
	if len(f.Languages) > 0 {
		in("p.language", f.Languages)
	}
	if f.Site != "" {
		where = append(where, "p.source_id IN (SELECT id FROM sources WHERE site = "+arg(f.Site)+")")
	}
	if f.Unique {
		where = append(where, "p.duplicate_of = 0")
	}
	if f.Since != "" {
		pos, err := d.cursorPosition(ctx, f.Since)
		if err != nil {
			return err
		}
		where = append(where, d.dialect.Changes.After(arg(pos)))
	}
	md := `''`
	if f.Markdown {
		md = `p.markdown`
	}
	q := `SELECT ` + qualified("p", postCols) + `, COALESCE(o.url, ''), ` + md + ` FROM posts p LEFT JOIN posts o ON o.id = p.duplicate_of WHERE p.id > $1`
	for _, w := range where {
		q += " AND " + w
	}
	q += ` ORDER BY p.id LIMIT $2`
	for {
		n := 0
		err := d.each(ctx, d.r, q, args, func(rows *sql.Rows) error {
			var dup, markdown string
			p, err := scanPost(scanExtra{rows, []any{&dup, &markdown}})
			if err != nil {
				return err
			}
			p.DuplicateURL, p.Markdown = dup, markdown
			n, args[0] = n+1, p.ID
			return fn(p)
		})
		if err != nil {
			return fmt.Errorf("export posts: %w", err)
		}
		if n < eachPageSize {
			return nil
		}
	}
}

// scanExtra scans a row's columns past a scanner's into extra.
type scanExtra struct {
	sc    interface{ Scan(...any) error }
	extra []any
}

func (s scanExtra) Scan(dest ...any) error { return s.sc.Scan(append(dest, s.extra...)...) }

// qualified is the column list cols with each column taken from alias.
func qualified(alias, cols string) string {
	fields := strings.Split(cols, ",")
	for i, c := range fields {
		fields[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(fields, ", ")
}
