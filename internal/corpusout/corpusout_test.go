package corpusout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/version"

	"github.com/parquet-go/parquet-go"
)

// samplePosts covers what real posts hold: no dates, empty text, text in
// many scripts with characters JSON escapes, many citations, none, offsets
// other than UTC.
func samplePosts() []Post {
	many := make([]string, 500)
	for i := range many {
		many[i] = fmt.Sprintf("https://cited%d.example.org/a/%d", i%13, i)
	}
	return []Post{
		{
			URL: "https://a.example/2026/01/hello", Source: "https://a.example/", Site: "https://a.example",
			Title: "Hello", Published: "2026-01-02T03:04:05Z", Lastmod: "2026-01-03T00:00:00.123Z",
			FirstSeen: "2026-01-04T05:06:07Z", State: "indexed", TextFrom: "page", TextBytes: 11,
			Citations: []string{"https://b.example/x"}, Text: "Hello world",
			Author: "Anna Schmidt", Language: "de", Description: "Ein Gruß", SiteName: "A Blog", Tags: []string{"Reisen", "Berge"},
			License: "https://creativecommons.org/licenses/by/4.0/", Image: "https://a.example/i.jpg",
			DuplicateOf: "https://b.example/first", Updated: "2026-01-05T00:00:00Z",
		},
		{URL: "https://a.example/nodates", Source: "https://a.example/", Site: "https://a.example", State: "queued"},
		{
			URL: "https://b.example/unicode", Source: "https://b.example/feed", Site: "https://b.example",
			Title: "Ünïcödé — 日本語 <b>&</b>", Published: "2025-12-31T23:59:59.999Z", State: "indexed", TextFrom: "feed",
			Text:      "Ελληνικά, العربية, עברית, 中文, emoji 🧵, NUL-free \"quotes\" \\ back\\slash\n\ttabbed <script>",
			TextBytes: len("Ελληνικά, العربية, עברית, 中文, emoji 🧵, NUL-free \"quotes\" \\ back\\slash\n\ttabbed <script>"),
			Citations: many,
		},
		{URL: "https://c.example/empty-text", Site: "https://c.example", Text: "", TextBytes: 0, Citations: []string{}, FirstSeen: "2026-02-01T10:00:00Z"},
	}
}

// normal is p as it reads back: citations never nil.
func normal(p Post) Post {
	if p.Citations == nil {
		p.Citations = []string{}
	}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	return p
}

func TestJSONLinesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewJSONLines(&buf)
	posts := samplePosts()
	for _, p := range posts {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != len(posts) {
		t.Fatalf("%d lines for %d posts", len(lines), len(posts))
	}
	for i, line := range lines {
		var got Post
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if want := normal(posts[i]); !reflect.DeepEqual(got, want) {
			t.Errorf("line %d:\n got %+v\nwant %+v", i+1, got, want)
		}
	}
	if !strings.Contains(lines[1], `"citations":[]`) || !strings.Contains(lines[1], `"published":""`) {
		t.Errorf("post without citations or dates: %s", lines[1])
	}
	if !strings.Contains(lines[2], "<b>&</b>") {
		t.Errorf("HTML escaped in %s", lines[2])
	}
	keys := []string{"url", "source", "site", "title", "published", "lastmod", "first_seen", "state", "text_from", "text_bytes", "citations",
		"author", "language", "description", "site_name", "tags", "license", "image", "duplicate_of", "updated", "text"}
	var obj map[string]json.RawMessage
	json.Unmarshal([]byte(lines[0]), &obj)
	if len(obj) != len(keys) {
		t.Errorf("%d keys, want %d: %s", len(obj), len(keys), lines[0])
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("key %q missing: %s", k, lines[0])
		}
	}
}

// TestJSONLinesStreams: each post reaches the writer as it is written.
func TestJSONLinesStreams(t *testing.T) {
	var writes int
	w := NewJSONLines(writerFunc(func(p []byte) (int, error) {
		writes++
		if !bytes.HasSuffix(p, []byte("\n")) || bytes.Count(p, []byte("\n")) != 1 {
			t.Errorf("write is not one line: %q", p)
		}
		return len(p), nil
	}))
	for i, p := range samplePosts() {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if writes != i+1 {
			t.Fatalf("after post %d, %d writes", i+1, writes)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func writeParquet(t testing.TB, posts []Post) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewParquet(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range posts {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fromRow is a row read back as a Post, dates as RFC 3339 in UTC.
func fromRow(r parquetRow) Post {
	date := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return Post{
		URL: r.URL, Source: r.Source, Site: r.Site, Title: r.Title,
		Published: date(r.Published), Lastmod: date(r.Lastmod), FirstSeen: date(r.FirstSeen),
		State: r.State, TextFrom: r.TextFrom, TextBytes: int(r.TextBytes), Citations: r.Citations, Text: r.Text,
		Author: r.Author, Language: r.Language, Description: r.Description, SiteName: r.SiteName, Tags: r.Tags,
		License: r.License, Image: r.Image, DuplicateOf: r.DuplicateOf, Updated: date(r.Updated),
	}
}

func TestParquetRoundTrip(t *testing.T) {
	posts := samplePosts()
	data := writeParquet(t, posts)
	rows, err := parquet.Read[parquetRow](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(posts) {
		t.Fatalf("%d rows for %d posts", len(rows), len(posts))
	}
	for i, r := range rows {
		got, want := fromRow(r), normal(posts[i])
		if got.Citations == nil {
			got.Citations = []string{}
		}
		if got.Tags == nil {
			got.Tags = []string{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	if rows[1].Published != nil || rows[1].Lastmod != nil || rows[1].FirstSeen != nil {
		t.Errorf("unknown dates read back as %v %v %v, want null", rows[1].Published, rows[1].Lastmod, rows[1].FirstSeen)
	}
}

// TestParquetSchema reads the file's own schema, as another tool would, and
// checks the types the package documentation promises.
func TestParquetSchema(t *testing.T) {
	data := writeParquet(t, samplePosts())
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	schema := f.Schema().String()
	for _, want := range []string{
		"required binary url (STRING);",
		"optional int64 published (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));",
		"optional int64 lastmod (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));",
		"optional int64 first_seen (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));",
		"required int64 text_bytes",
		"required group citations (LIST) {",
		"required binary text (STRING);",
		"required group tags (LIST) {",
		"required binary duplicate_of (STRING);",
		"optional int64 updated (TIMESTAMP(isAdjustedToUTC=true,unit=MILLIS));",
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %q:\n%s", want, schema)
		}
	}
	for _, col := range f.Metadata().RowGroups[0].Columns {
		if codec := col.MetaData.Codec.String(); codec != "ZSTD" {
			t.Errorf("column %v compressed with %s", col.MetaData.PathInSchema, codec)
		}
	}
	if got, want := f.Metadata().CreatedBy, CreatedBy(version.Get()); got != want || !strings.HasPrefix(got, "corpusbot version ") {
		t.Errorf("created by %q, want %q", got, want)
	}
}

// TestParquetRowGroups: rows are written out every ParquetRowGroupRows
// posts, not held to the end.
func TestParquetRowGroups(t *testing.T) {
	n := 2*ParquetRowGroupRows + 123
	posts := make([]Post, n)
	for i := range posts {
		posts[i] = Post{URL: fmt.Sprintf("https://a.example/%d", i), Text: "t", TextBytes: 1, Published: "2026-01-01T00:00:00Z"}
	}
	data := writeParquet(t, posts)
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	groups := f.RowGroups()
	if len(groups) != 3 || groups[0].NumRows() != ParquetRowGroupRows || groups[2].NumRows() != 123 {
		sizes := []int64{}
		for _, g := range groups {
			sizes = append(sizes, g.NumRows())
		}
		t.Fatalf("row groups of %v rows, want %d, %d, 123", sizes, ParquetRowGroupRows, ParquetRowGroupRows)
	}
	r := parquet.NewGenericReader[parquetRow](bytes.NewReader(data))
	defer r.Close()
	buf := make([]parquetRow, 1000)
	seen := 0
	for {
		k, err := r.Read(buf)
		for _, row := range buf[:k] {
			if row.URL != posts[seen].URL {
				t.Fatalf("row %d is %s, want %s", seen, row.URL, posts[seen].URL)
			}
			seen++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if seen != n {
		t.Errorf("read %d rows, want %d", seen, n)
	}
}

func TestParquetRefusesBadDates(t *testing.T) {
	w, err := NewParquet(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"2026-01-02", "yesterday", "Mon, 02 Jan 2026 03:04:05 GMT"} {
		if err := w.Write(Post{URL: "https://a.example/", Lastmod: bad}); err == nil || !strings.Contains(err.Error(), "lastmod") {
			t.Errorf("lastmod %q: %v", bad, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// An offset other than UTC reads back as the same instant in UTC.
func TestParquetDatesInUTC(t *testing.T) {
	data := writeParquet(t, []Post{{URL: "https://a.example/", Published: "2026-01-02T05:04:05.5+02:00"}})
	rows, err := parquet.Read[parquetRow](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := fromRow(rows[0]).Published; got != "2026-01-02T03:04:05.5Z" {
		t.Errorf("published read back as %s", got)
	}
}
