package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"
)

// SiteData is the public site's questions over the shared SQL store: what
// the site reads (coverage, sites, one site's metadata) and writes (pauses,
// checkouts), in the vocabulary of package model; web.Data is the interface
// the site declares over it. storetest.RunSiteDataSuite holds its answers
// to golden files on every backend.
//
// No query here selects posts.text: the public site never serves a post's
// stored text, and what is never read cannot leak (TestSiteDataNeverReadsText
// checks the queries).
//
// Reads are separate statements, not one snapshot: on SQLite a transaction
// on the reader pool would be an IMMEDIATE one (the DSN's _txlock) and
// queue behind the crawler's writes. A page may therefore mix counts from
// either side of a concurrent write, which a status page can afford.
type SiteData struct {
	db *DB
	// origin is the SQL of a homepage's origin, over a sources row
	// aliased s (see originSQL).
	origin string
	// maxUnreachable bounds each list of sites stateExpr writes out
	// (tests lower it).
	maxUnreachable int
	// collate makes text comparisons and orders bytewise, as Go's are:
	// SQLite's default BINARY already is; PostgreSQL's
	// default follows the database's locale.
	collate string
}

// SiteData returns the public site's view of the store.
func (d *DB) SiteData() *SiteData {
	s := &SiteData{db: d, maxUnreachable: maxUnreachableSites}
	if d.dialect.Name == "postgres" {
		s.collate = ` COLLATE "C"`
	}
	s.origin = originSQL(`s.url`, d.find())
	return s
}

// find is the dialect's strpos(haystack, needle): 1-based, 0 when absent.
func (d *DB) find() string {
	if d.dialect.Name == "postgres" {
		return "strpos"
	}
	return "instr"
}

// Day buckets: Unix time has no leap seconds, so UTC days are exact
// multiples of this many nanoseconds since the epoch.
const nanosPerDay = int64(24 * time.Hour)

// dayOf is the SQL floor division of a nanosecond column by a day (SQL's
// % and / truncate toward zero, which would put times before 1970 in the
// day after theirs).
func dayOf(col string) string {
	d := strconv.FormatInt(nanosPerDay, 10)
	return `((` + col + ` - (((` + col + ` % ` + d + `) + ` + d + `) % ` + d + `)) / ` + d + `)`
}

// dayTime is the start of day number n (days since 1970-01-01 UTC).
func dayTime(n int64) time.Time { return time.Unix(n*86400, 0).UTC() }

// placeholders is "$first, $first+1, …" for n arguments.
func placeholders(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(first+i))
	}
	return b.String()
}

// count runs a query of one integer (0 for NULL).
func (s *SiteData) count(ctx context.Context, q string, args ...any) (int, error) {
	var n sql.NullInt64
	err := s.db.r.QueryRowContext(ctx, q, args...).Scan(&n)
	return int(n.Int64), err
}

// countBy runs a "SELECT key, count(*) … GROUP BY key" query and returns
// the counts by key.
func (s *SiteData) countBy(ctx context.Context, q string, args ...any) (map[string]int, error) {
	counts := map[string]int{}
	err := s.db.each(ctx, s.db.r, q, args, func(rows *sql.Rows) error {
		var key string
		var n int
		err := rows.Scan(&key, &n)
		counts[key] = n
		return err
	})
	return counts, err
}
