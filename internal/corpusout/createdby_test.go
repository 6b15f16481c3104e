package corpusout

import (
	"testing"

	"corpus.blog/corpusbot/internal/version"
)

// created_by names the binary's version and, when known, its source
// revision, in the Parquet convention's form; never an empty version.
func TestCreatedBy(t *testing.T) {
	for _, tc := range []struct {
		v    version.Info
		want string
	}{
		{version.Info{Version: "v1.2.0", Revision: "0123456789abcdef0123"}, "corpusbot version v1.2.0 (build 0123456789ab)"},
		{version.Info{Version: version.Devel, Revision: "0123456789abcdef", Modified: true}, "corpusbot version (devel) (build 0123456789ab-modified)"},
		{version.Info{Version: version.Devel}, "corpusbot version (devel)"},
		{version.Info{}, "corpusbot version (devel)"},
	} {
		if got := CreatedBy(tc.v); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.v, got, tc.want)
		}
	}
}
