// Package corpusout writes the corpus's posts out for other tools: as JSON
// lines (one post a line, for jq and scripts) or as an Apache Parquet file
// (one row a post, for DuckDB, pandas, Polars, Spark and Arrow). Both writers
// stream: a post is encoded as it is written, and the Parquet writer holds
// at most one row group (ParquetRowGroupRows posts) before writing it out,
// so memory does not grow with the corpus. It does no I/O beyond writing to
// the io.Writer it is given.
//
// # Schema
//
// Each post has these fields, the JSON key and the Parquet column having the
// same name:
//
//	field       JSON                      Parquet
//	url         string                    BYTE_ARRAY STRING, required
//	source      string                    BYTE_ARRAY STRING, required
//	site        string                    BYTE_ARRAY STRING, required
//	title       string                    BYTE_ARRAY STRING, required
//	published   string, RFC 3339 or ""    INT64 TIMESTAMP(MILLIS, UTC), optional
//	lastmod     string, RFC 3339 or ""    INT64 TIMESTAMP(MILLIS, UTC), optional
//	first_seen  string, RFC 3339 or ""    INT64 TIMESTAMP(MILLIS, UTC), optional
//	state       string                    BYTE_ARRAY STRING, required
//	text_from   string                    BYTE_ARRAY STRING, required
//	text_bytes  number                    INT64, required
//	citations   array of strings, never   LIST of BYTE_ARRAY STRING, required
//	            null                      (an empty list when none)
//	author      string                    BYTE_ARRAY STRING, required
//	language    string, ISO 639-1 or ""   BYTE_ARRAY STRING, required
//	description string                    BYTE_ARRAY STRING, required
//	site_name   string                    BYTE_ARRAY STRING, required
//	tags        array of strings, never   LIST of BYTE_ARRAY STRING, required
//	            null
//	license     string, a URL or ""       BYTE_ARRAY STRING, required
//	image       string, a URL or ""       BYTE_ARRAY STRING, required
//	duplicate_of string, a URL or ""      BYTE_ARRAY STRING, required
//	updated     string, RFC 3339 or ""    INT64 TIMESTAMP(MILLIS, UTC), optional
//	text        string                    BYTE_ARRAY STRING, required
//
// What the fields hold:
//
//   - url is the post's URL (its key), source the URL of the source it was
//     found through, site the site it belongs to (its registrable
//     domain, model.Site).
//   - title is as the post or its feed gave it; "" when unknown.
//   - published is the date the post gives itself, lastmod the date it was
//     last changed (from its sitemap or feed), first_seen when the crawler
//     first found it (a feed, sitemap or IndexNow submission naming it;
//     unknown for a post stored before the crawler recorded it and never
//     fetched). In JSON an unknown date is ""; in Parquet it is null.
//     Parquet keeps milliseconds, in UTC.
//   - state is the post's state in the crawl, text_from where its text came
//     from (the feed or the page), text_bytes the length of its text in
//     bytes, citations the URLs it links to, in order.
//   - author, language (ISO 639-1: declared, else detected from the
//     text), description, site_name, tags, license and image are what the
//     page states (for a post whose text came from a full-content feed,
//     the feed's author, categories and language); "" or [] when unstated.
//   - duplicate_of is the URL of the earlier post (on any site) whose text
//     this one's is, exactly or nearly; "" when none. updated is when the
//     record last changed (new, re-extracted, removed, marked duplicate).
//   - text is the post's text; "" when the export leaves texts out, and
//     for a removed post.
//
// The Parquet file is compressed with zstd, dictionary-encodes the columns
// with few distinct values (source, site, state, text_from), and
// has row groups of ParquetRowGroupRows rows.
package corpusout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"time"

	"corpus.blog/corpusbot/internal/mdtext"
	"corpus.blog/corpusbot/internal/version"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// Post is one post as exported. Dates are RFC 3339 strings, "" when
// unknown.
//
// It is the one definition of an exported post line: the contract's line
// (NewContractLines) is this one without the fields tagged
// `corpusout:"text"`, in the same order.
type Post struct {
	URL       string   `json:"url"`
	Source    string   `json:"source"`
	Site      string   `json:"site" corpusout:"text"`
	Title     string   `json:"title"`
	Published string   `json:"published"`
	Lastmod   string   `json:"lastmod"`
	FirstSeen string   `json:"first_seen" corpusout:"text"`
	State     string   `json:"state"`
	TextFrom  string   `json:"text_from"`
	TextBytes int      `json:"text_bytes"`
	Citations []string `json:"citations"`
	// What the page (or, for a post whose text came from its feed, the
	// feed) says of the post; "" or [] when it says nothing.
	Author      string   `json:"author"`
	Language    string   `json:"language"`
	Description string   `json:"description"`
	SiteName    string   `json:"site_name"`
	Tags        []string `json:"tags"`
	License     string   `json:"license"`
	Image       string   `json:"image"`
	DuplicateOf string   `json:"duplicate_of"`
	Updated     string   `json:"updated"`
	Text        string   `json:"text" corpusout:"text"`
}

// contractFields are the indexes in Post of the contract line's fields,
// with each one's JSON key, in order.
var contractFields = func() []contractField {
	var fields []contractField
	t := reflect.TypeFor[Post]()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("corpusout") == "text" {
			continue
		}
		key, err := json.Marshal(f.Tag.Get("json"))
		if err != nil {
			panic(err) // a literal tag always marshals
		}
		fields = append(fields, contractField{index: i, key: key})
	}
	return fields
}()

type contractField struct {
	index int
	key   []byte // quoted
}

// JSONLinesWriter writes posts as JSON lines.
type JSONLinesWriter struct {
	w   io.Writer
	enc *json.Encoder
	// contract is set for the contract's line, without the text fields:
	// each value is encoded into value, the line put together in line.
	contract bool
	value    bytes.Buffer
	line     []byte
}

// NewJSONLines returns a writer of posts to w, one JSON object a line, all
// of Post's fields. Each line is one Write to w; wrap w in a bufio.Writer
// (and flush it) to write in larger pieces.
func NewJSONLines(w io.Writer) *JSONLinesWriter {
	return &JSONLinesWriter{w: w, enc: newEncoder(w)}
}

// NewContractLines returns a writer of posts to w as the command-line
// contract's lines: Post's fields less those only an export of texts
// carries (site, first_seen, text), in Post's order. Each line is one
// Write to w.
func NewContractLines(w io.Writer) *JSONLinesWriter {
	jw := &JSONLinesWriter{w: w, contract: true}
	jw.enc = newEncoder(&jw.value)
	return jw
}

func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	// Text and URLs are data, not HTML: "<" stays "<".
	enc.SetEscapeHTML(false)
	return enc
}

// Write writes p as one line.
func (w *JSONLinesWriter) Write(p Post) error {
	if p.Citations == nil {
		p.Citations = []string{}
	}
	if p.Tags == nil {
		p.Tags = []string{}
	}
	var err error
	if w.contract {
		err = w.writeContract(p)
	} else {
		err = w.enc.Encode(p)
	}
	if err != nil {
		return fmt.Errorf("corpusout: writing %s: %w", p.URL, err)
	}
	return nil
}

func (w *JSONLinesWriter) writeContract(p Post) error {
	v := reflect.ValueOf(p)
	w.line = append(w.line[:0], '{')
	for i, f := range contractFields {
		if i > 0 {
			w.line = append(w.line, ',')
		}
		w.line = append(w.line, f.key...)
		w.line = append(w.line, ':')
		w.value.Reset()
		if err := w.enc.Encode(v.Field(f.index).Interface()); err != nil {
			return err
		}
		w.line = append(w.line, bytes.TrimSuffix(w.value.Bytes(), []byte("\n"))...)
	}
	w.line = append(w.line, '}', '\n')
	_, err := w.w.Write(w.line)
	return err
}

// ParquetRowGroupRows is the number of posts in each row group of a Parquet
// file, and so the most the ParquetWriter holds in memory: with texts of a
// few kilobytes, some tens of megabytes before compression.
const ParquetRowGroupRows = 10_000

// parquetRow is a Post as a Parquet row: the dates as timestamps, null when
// unknown.
type parquetRow struct {
	URL         string     `parquet:"url"`
	Source      string     `parquet:"source,dict"`
	Site        string     `parquet:"site,dict"`
	Title       string     `parquet:"title"`
	Published   *time.Time `parquet:"published,optional,timestamp(millisecond:utc)"`
	Lastmod     *time.Time `parquet:"lastmod,optional,timestamp(millisecond:utc)"`
	FirstSeen   *time.Time `parquet:"first_seen,optional,timestamp(millisecond:utc)"`
	State       string     `parquet:"state,dict"`
	TextFrom    string     `parquet:"text_from,dict"`
	TextBytes   int64      `parquet:"text_bytes"`
	Citations   []string   `parquet:"citations,list"`
	Author      string     `parquet:"author"`
	Language    string     `parquet:"language,dict"`
	Description string     `parquet:"description"`
	SiteName    string     `parquet:"site_name,dict"`
	Tags        []string   `parquet:"tags,list"`
	License     string     `parquet:"license,dict"`
	Image       string     `parquet:"image"`
	DuplicateOf string     `parquet:"duplicate_of"`
	Updated     *time.Time `parquet:"updated,optional,timestamp(millisecond:utc)"`
	Text        string     `parquet:"text"`
}

// ParquetWriter writes posts to a Parquet file.
type ParquetWriter struct {
	w *parquet.GenericWriter[parquetRow]
	// batch gathers rows so that the parquet writer is called once per
	// batchRows posts rather than once per post.
	batch []parquetRow
}

const batchRows = 256

// NewParquet returns a writer of posts to w as a Parquet file; Close writes
// the file's footer, without which the file cannot be read.
func NewParquet(w io.Writer) (*ParquetWriter, error) {
	return newParquet(w, &parquet.Zstd)
}

func newParquet(w io.Writer, codec compress.Codec) (pw *ParquetWriter, err error) {
	// parquet-go panics on a schema it cannot build; parquetRow is fixed,
	// so a panic here is a bug in this package, reported as an error.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("corpusout: parquet schema: %v", r)
		}
	}()
	gw := parquet.NewGenericWriter[parquetRow](w,
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(ParquetRowGroupRows),
		createdBy(CreatedBy(version.Get())),
	)
	return &ParquetWriter{w: gw, batch: make([]parquetRow, 0, batchRows)}, nil
}

// CreatedBy is a Parquet file's created_by as the format's convention has
// it, "<application> version <version> (build <build>)", from the binary's
// own version: "corpusbot version v1.2.0 (build 0123456789ab)", the build
// the source revision ("-modified" for a work tree with changes), left out
// when the binary carries none.
func CreatedBy(v version.Info) string {
	s := version.Name + " version " + cmp.Or(v.Version, version.Devel)
	if build := v.Build(); build != "" {
		s += " (build " + build + ")"
	}
	return s
}

// createdBy sets a written file's created_by as it is: parquet.CreatedBy
// formats its own, without a space before the build's parenthesis and
// with an empty one when there is no build.
type createdBy string

func (c createdBy) ConfigureWriter(cfg *parquet.WriterConfig) { cfg.CreatedBy = string(c) }

// Write adds p to the file. It fails for a date that is not RFC 3339.
func (w *ParquetWriter) Write(p Post) error {
	row := parquetRow{
		URL: p.URL, Source: p.Source, Site: p.Site, Title: p.Title,
		State: p.State, TextFrom: p.TextFrom, TextBytes: int64(p.TextBytes),
		Citations: p.Citations, Text: p.Text,
		Author: p.Author, Language: p.Language, Description: p.Description, SiteName: p.SiteName, Tags: p.Tags,
		License: p.License, Image: p.Image, DuplicateOf: p.DuplicateOf,
	}
	if row.Citations == nil {
		row.Citations = []string{}
	}
	if row.Tags == nil {
		row.Tags = []string{}
	}
	for _, d := range []struct {
		name  string
		value string
		into  **time.Time
	}{
		{"published", p.Published, &row.Published},
		{"lastmod", p.Lastmod, &row.Lastmod},
		{"first_seen", p.FirstSeen, &row.FirstSeen},
		{"updated", p.Updated, &row.Updated},
	} {
		t, err := parseDate(d.value)
		if err != nil {
			return fmt.Errorf("corpusout: %s: %s: %w", p.URL, d.name, err)
		}
		*d.into = t
	}
	w.batch = append(w.batch, row)
	if len(w.batch) == cap(w.batch) {
		return w.flushBatch()
	}
	return nil
}

func (w *ParquetWriter) flushBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	_, err := w.w.Write(w.batch)
	clear(w.batch) // let the texts go
	w.batch = w.batch[:0]
	if err != nil {
		return fmt.Errorf("corpusout: writing parquet rows: %w", err)
	}
	return nil
}

// Close writes the rows still held and the file's footer. It does not close
// the io.Writer.
func (w *ParquetWriter) Close() error {
	if err := w.flushBatch(); err != nil {
		return err
	}
	if err := w.w.Close(); err != nil {
		return fmt.Errorf("corpusout: closing parquet file: %w", err)
	}
	return nil
}

// parseDate reads an RFC 3339 date, nil for "".
func parseDate(s string) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil, fmt.Errorf("not an RFC 3339 date: %q", s)
	}
	t = t.UTC()
	return &t, nil
}

// Markdown is a post's plain text (blocks separated by a blank line) as
// Markdown that reads as the same text: each block a paragraph, the
// characters Markdown would take for markup escaped. It is the Markdown of
// a post stored before the extractor kept one (and of a post whose text
// came from a feed as plain text): no block is marked a heading, list
// item, quote or code.
func Markdown(text string) string { return mdtext.Plain(text) }
