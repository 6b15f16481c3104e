package sitemap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html/charset"

	"corpus.blog/corpusbot/internal/dates"
)

// refRead is the same reading of a urlset or sitemapindex as Read's, done
// the plain way: an encoding/xml Decoder and its Token loop. It is the
// reference the differential tests hold the hand-written decoder to, and
// the baseline of the benchmarks.
func refRead(r io.Reader, fn func(Entry)) (Format, error) {
	d := xml.NewDecoder(r)
	d.CharsetReader = charset.NewReaderLabel
	var (
		format          Format
		depth           int
		space, entry    string
		typ             Type
		inEntry         bool
		loc, lastmod    []byte
		sawLoc, sawLmod bool
		locDone         bool // the entry's <loc> closed
		into            *[]byte
		errNotURLSet    = errors.New("not a urlset or sitemapindex")
		errUnclosedRoot = errors.New("the root element is not closed")
		trim            = func(b []byte) []byte { return trimLoc(trimSpace(b)) }
		emit            = func() {
			if l := trim(loc); validLoc(l) {
				e := Entry{Type: typ, Loc: string(l)}
				if sawLmod {
					e.Lastmod, _ = dates.W3C(string(trimSpace(lastmod)))
				}
				fn(e)
			}
		}
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return format, errUnclosedRoot
		}
		if err != nil {
			return format, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch depth {
			case 1:
				// The root decides, whatever a DOCTYPE says.
				switch {
				case t.Name.Local == "urlset":
					format, entry, typ = FormatURLSet, "url", URL
				case t.Name.Local == "sitemapindex":
					format, entry, typ = FormatIndex, "sitemap", Sitemap
				default:
					return format, errNotURLSet
				}
				space = t.Name.Space
			case 2:
				inEntry = t.Name.Local == entry && t.Name.Space == space
				loc, lastmod, sawLoc, sawLmod, locDone = loc[:0], lastmod[:0], false, false, false
			case 3:
				if !inEntry || t.Name.Space != space {
					break
				}
				if t.Name.Local == "loc" && locDone {
					// A second <loc> starts a new entry.
					emit()
					loc, lastmod, sawLoc, sawLmod, locDone = loc[:0], lastmod[:0], false, false, false
				}
				if t.Name.Local == "loc" && !sawLoc {
					sawLoc, into = true, &loc
				}
				if t.Name.Local == "lastmod" && !sawLmod {
					sawLmod, into = true, &lastmod
				}
			}
		case xml.CharData:
			if into != nil && depth == 3 {
				*into = append(*into, t...)
			}
		case xml.EndElement:
			switch depth {
			case 3:
				if into == &loc {
					locDone = true
				}
				into = nil
			case 2:
				if inEntry && sawLoc {
					emit()
				}
				inEntry = false
			case 1:
				return format, nil
			}
			depth--
		}
	}
}

// comparable reports whether refRead and Read should read body alike: an
// XML document in UTF-8 or an ASCII-compatible declared encoding, whose only
// <?xml declaration opens it.
func comparable(body []byte) bool {
	b := bytes.TrimLeft(bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(b) == 0 || b[0] != '<' {
		return false
	}
	if i := bytes.Index(b, []byte("<?xml")); i > 0 {
		return false
	}
	if bytes.HasPrefix(b, []byte("<?xml")) {
		end := bytes.Index(b, piEnd)
		if end < 0 {
			return false
		}
		label := strings.ToLower(pseudoAttr(b[:end], "encoding"))
		if label != strings.ToLower(strings.TrimSpace(refProcInst("encoding", string(b[:end])))) {
			return false // encoding/xml wants no space around "=", which XML allows
		}
		if strings.Contains(label, "16") || strings.Contains(label, "32") || strings.Contains(label, "ucs") {
			return false
		}
		if label != "" {
			if e, name := charset.Lookup(label); e == nil || name == "replacement" {
				return false
			}
		}
	}
	return true
}

// refProcInst is how encoding/xml finds a pseudo-attribute (its procInst).
func refProcInst(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// differ checks Read against refRead on one document. Where encoding/xml
// reads the document whole, Read must read it whole and give the same
// entries; where encoding/xml fails partway (often on what Read forgives,
// such as a bare "&"), what it gave before failing must begin Read's entries.
func differ(t *testing.T, body []byte) {
	t.Helper()
	if !comparable(body) {
		return
	}
	var want []Entry
	_, refErr := refRead(bytes.NewReader(bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))), func(e Entry) { want = append(want, e) })
	var got []Entry
	sum, err := Read(bytes.NewReader(body), Options{}, func(e Entry) error {
		got = append(got, e)
		return nil
	})
	if sum.Truncated {
		return // a limit: not a difference in reading
	}
	if refErr == nil {
		if err != nil || !sum.Whole() {
			t.Fatalf("encoding/xml reads the document whole, Read does not: err %v, summary %+v\n%q", err, sum, body)
		}
		if !sameEntries(got, want) {
			t.Fatalf("entries differ\nRead:         %v\nencoding/xml: %v\n%q", got, want, body)
		}
		return
	}
	if len(got) < len(want) || !sameEntries(got[:len(want)], want) {
		t.Fatalf("encoding/xml failed (%v) after entries Read does not begin with\nRead:         %v\nencoding/xml: %v\n%q", refErr, got, want, body)
	}
}

func sameEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Type != b[i].Type || a[i].Loc != b[i].Loc || !a[i].Lastmod.Equal(b[i].Lastmod) {
			return false
		}
	}
	return true
}

// TestAgainstEncodingXML runs the differential check over every XML fixture.
func TestAgainstEncodingXML(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*")
	checked := 0
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil || strings.HasSuffix(p, ".golden") {
			continue
		}
		if comparable(body) {
			checked++
		}
		t.Run(filepath.Base(p), func(t *testing.T) { differ(t, body) })
	}
	if checked < 20 {
		t.Fatalf("only %d fixtures compared", checked)
	}
	// The reference must itself see what the fixtures hold.
	var n int
	body, _ := os.ReadFile("testdata/extensions.xml")
	if _, err := refRead(bytes.NewReader(body), func(Entry) { n++ }); err != nil || n != 4 {
		t.Fatalf("refRead: %d entries, %v", n, err)
	}
}
