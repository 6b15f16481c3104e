// corpusbot: tests of the changes made to this copy (see ../CORPUSBOT.md).

package html

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// checkNewAttrName feeds the names in keys, one after another, to
// newAttrName as readTag does, and checks it against upstream's way: a map of
// the lower-cased copies of the names kept so far.
func checkNewAttrName(t *testing.T, keys [][]byte) {
	t.Helper()
	z := NewTokenizer(strings.NewReader(""))
	z.buf = bytes.Join(keys, nil)
	want := map[string]bool{}
	start := 0
	for _, k := range keys {
		z.pendingAttr[0] = span{start, start + len(k)}
		start += len(k)
		key := string(lower(bytes.Clone(k)))
		wantNew := !want[key]
		if got := z.newAttrName(); got != wantNew {
			t.Fatalf("after %d names, newAttrName(%q) = %v, upstream %v", len(z.attr), k, got, wantNew)
		}
		if wantNew {
			want[key] = true
			z.attr = append(z.attr, z.pendingAttr)
		}
	}
}

func TestNewAttrName(t *testing.T) {
	var keys [][]byte
	for i := range 40 {
		// a, b, ..., each name twice in other cases, past attrScanMax.
		k := strings.Repeat(string(rune('a'+i%26)), 1+i/26)
		keys = append(keys, []byte(k), []byte(strings.ToUpper(k)), []byte("X"+k), []byte("x"+strings.ToUpper(k)))
	}
	keys = append(keys, []byte("\x00"), []byte("\x00"), []byte("é"), []byte("É"), []byte("[") /* 'Z'+1 */, []byte("{"), []byte("@"), []byte("`"))
	checkNewAttrName(t, keys)
	checkNewAttrName(t, keys[:5])
}

func FuzzNewAttrName(f *testing.F) {
	f.Add([]byte("a A b B c\x00C\x00ab AB Ab @ ` [ {"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys [][]byte
		for _, k := range bytes.Split(b, []byte(" ")) {
			if len(k) > 0 {
				keys = append(keys, k)
			}
		}
		checkNewAttrName(t, keys)
	})
}

// TestTagAttrInPlace: tag names and attribute names and values, read in place
// (no NUL) or copied (with a NUL), as Token gives them.
func TestTagAttrInPlace(t *testing.T) {
	z := NewTokenizer(strings.NewReader(`<DiV ID="X&amp;Y" Class=a&#x41;b data-A='p` + "\r\n" + `q' ID=z><P` + "\x00" + ` a` + "\x00" + `B="c` + "\x00" + `D" e>t</DiV>`))
	var got []string
	for z.Next() != ErrorToken {
		got = append(got, z.Token().String())
	}
	want := []string{
		"<div id=\"X&amp;Y\" class=\"aAb\" data-a=\"p\nq\">",
		"<p\ufffd a\ufffdb=\"c\ufffdD\" e=\"\">",
		`t`,
		`</div>`,
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// BenchmarkParsePages parses the pages listed in the file that
// CORPUSBOT_HTML_PAGES names (one path a line), each once per iteration.
func BenchmarkParsePages(b *testing.B) {
	list := os.Getenv("CORPUSBOT_HTML_PAGES")
	if list == "" {
		b.Skip("CORPUSBOT_HTML_PAGES is not set")
	}
	names, err := os.ReadFile(list)
	if err != nil {
		b.Fatal(err)
	}
	var pages [][]byte
	size := 0
	for name := range strings.Lines(string(names)) {
		p, err := os.ReadFile(strings.TrimSpace(name))
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, p)
		size += len(p)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := Parse(bytes.NewReader(p)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
}
