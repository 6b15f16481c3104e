package sourcelist

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestOPMLRoundTrip: what WriteOPML writes, Parse reads back as the same
// sources, each by its homepage, whatever the title holds.
func TestOPMLRoundTrip(t *testing.T) {
	in := []Outline{
		{Title: `Tom & "Jerry" <blog>`, Site: "https://a.example/", Feed: "https://a.example/feed.xml"},
		{Site: "https://b.example/blog/"},
		{Title: "Ünïcode", Site: "https://xn--bcher-kva.example/", Feed: "https://feeds.example/b?x=1&y=2"},
	}
	var buf bytes.Buffer
	if err := WriteOPML(&buf, "corpusbot sources", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<opml version="2.0">`) || !strings.Contains(buf.String(), `type="rss"`) {
		t.Errorf("not an OPML 2.0 subscription list:\n%s", buf.String())
	}
	list, err := ParseList(&buf)
	if err != nil || list.Malformed != nil {
		t.Fatalf("ParseList: %v %+v", err, list.Malformed)
	}
	if len(list.Entries) != len(in) {
		t.Fatalf("%d entries read back, want %d: %+v", len(list.Entries), len(in), list.Entries)
	}
	for i, e := range list.Entries {
		if e.Err != nil || e.URL != in[i].Site {
			t.Errorf("entry %d: %+v, want the site %s", i, e, in[i].Site)
		}
	}
}
