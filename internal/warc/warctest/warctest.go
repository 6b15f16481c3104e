// Package warctest reads WARC files back for tests, with gowarc's reader
// as an outside judge of what package warc writes.
package warctest

import (
	"io"
	"testing"

	"github.com/nlnwa/gowarc/v3"
)

// ReadFile reads every record of a WARC file with gowarc's reader,
// failing on any validation finding or digest that does not match the
// content as read.
func ReadFile(t testing.TB, path string) []gowarc.Record {
	t.Helper()
	r, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithSpecViolationPolicy(gowarc.ErrWarn), gowarc.WithSyntaxErrorPolicy(gowarc.ErrWarn))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var records []gowarc.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return records
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", path, len(records), err)
		}
		if len(rec.Validation) > 0 {
			t.Errorf("%s: record %d (%s): validation: %v", path, len(records), rec.WarcRecord.Type(), rec.Validation)
		}
		if v, err := rec.WarcRecord.ValidateDigest(); err != nil || len(v) > 0 {
			t.Errorf("%s: record %d: digests: %v %v", path, len(records), v, err)
		}
		records = append(records, rec)
	}
}
