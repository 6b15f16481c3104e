package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Reading: corpusbot's own files and other crawlers' (Heritrix, wget,
// StormCrawler, warcio), gzip-compressed per record (.warc.gz), as one
// gzip stream, or plain (.warc). The reader is lenient where writers
// differ (WARC/1.0 or 1.1, LF line ends in a header, a block followed by
// anything other than the two CRLFs) and strict where a mistake would give
// wrong bodies: a record must announce its length, and a file must begin
// with a WARC record. It never holds more than one record's block, and a
// block is only read when asked for, so that a video in someone else's
// archive costs no memory.

// ErrNotWARC says a file does not begin with a WARC record.
var ErrNotWARC = errors.New("not a WARC file")

// ErrTorn says a file ends, or is damaged, within a record: the records
// before it were read.
var ErrTorn = errors.New("WARC file torn")

// Header is a WARC record's header, as written.
type Header struct {
	Version string      // "WARC/1.1"
	Fields  http.Header // canonicalised names: WARC-Type is "Warc-Type"
}

// Get is the value of the field name, "" when absent.
func (h Header) Get(name string) string { return h.Fields.Get(name) }

// Type is the record's WARC-Type, lower case: "response", "request",
// "warcinfo", "resource", "revisit"...
func (h Header) Type() string { return strings.ToLower(h.Get("WARC-Type")) }

// TargetURI is the record's WARC-Target-URI, without the angle brackets
// WARC/1.0 writers (and the 1.1 specification's own examples) put around it.
func (h Header) TargetURI() string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h.Get("WARC-Target-URI")), "<"), ">")
}

// Date is the record's WARC-Date; zero when missing or malformed.
func (h Header) Date() time.Time {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(h.Get("WARC-Date")))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Record is one record read: its header, and its block, which can be read
// until the next call to Reader.Next.
type Record struct {
	Header
	Length int64     // the block's Content-Length
	Block  io.Reader // the block; what is left unread is skipped by Next
	Offset int64     // where the record begins in the (decompressed) stream
}

// Reader reads the records of one WARC file in order.
type Reader struct {
	in      *bufio.Reader
	count   *byteCounter
	block   *io.LimitedReader
	records int
	err     error
}

// byteCounter counts the bytes read from the decompressed stream.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// NewReader reads r: gzip-compressed (one member per record, or one for
// the whole file) or plain, told by its first two bytes.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && len(magic) == 0 {
		if err == io.EOF {
			return nil, fmt.Errorf("%w: empty", ErrNotWARC)
		}
		return nil, err
	}
	var src io.Reader = br
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrTorn, err)
		}
		zr.Multistream(true) // one member per record: read them in turn
		src = zr
	}
	count := &byteCounter{r: src}
	return &Reader{in: bufio.NewReaderSize(count, 64<<10), count: count}, nil
}

// offset is where the next byte read from r.in lies in the stream.
func (r *Reader) offset() int64 { return r.count.n - int64(r.in.Buffered()) }

// Next returns the next record, io.EOF after the last, ErrNotWARC when the
// file does not begin with one, and an error wrapping ErrTorn when it ends
// or breaks within one (every record before it was returned whole). An
// error is returned again by every later call.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	r.records++
	return rec, nil
}

func (r *Reader) next() (*Record, error) {
	if r.block != nil {
		// The rest of the previous block, then the CRLF CRLF that ends a
		// record; some writers put fewer or more blank lines: any run of
		// line ends is taken.
		if _, err := io.Copy(io.Discard, r.block); err != nil {
			return nil, r.torn(err)
		}
		if r.block.N > 0 {
			return nil, r.torn(io.ErrUnexpectedEOF)
		}
		r.block = nil
	}
	for {
		b, err := r.in.Peek(1)
		if err == io.EOF && len(b) == 0 {
			if r.records == 0 {
				return nil, fmt.Errorf("%w: empty", ErrNotWARC)
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, r.torn(err)
		}
		if b[0] != '\r' && b[0] != '\n' {
			break
		}
		_, _ = r.in.ReadByte()
	}
	start := r.offset()
	line, err := readHeaderLine(r.in)
	if err != nil {
		if r.records == 0 {
			return nil, ErrNotWARC
		}
		return nil, r.torn(err)
	}
	version := strings.TrimSpace(line)
	if !strings.HasPrefix(version, "WARC/") {
		if r.records == 0 {
			return nil, ErrNotWARC
		}
		return nil, r.torn(fmt.Errorf("no record at offset %d", start))
	}
	h := Header{Version: version, Fields: http.Header{}}
	size := len(line)
	var last string
	for {
		line, err := readHeaderLine(r.in)
		if err != nil {
			return nil, r.torn(err)
		}
		size += len(line)
		if size > maxHeaderBytes {
			return nil, r.torn(fmt.Errorf("record header at offset %d longer than %d bytes", start, maxHeaderBytes))
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			vs := h.Fields[last]
			vs[len(vs)-1] += " " + strings.TrimSpace(line)
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, r.torn(fmt.Errorf("record header at offset %d: line %q is not a field", start, truncate(line)))
		}
		last = http.CanonicalHeaderKey(strings.TrimSpace(name))
		h.Fields.Add(last, strings.TrimSpace(value))
	}
	length, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || length < 0 {
		return nil, r.torn(fmt.Errorf("record at offset %d: Content-Length %q", start, h.Get("Content-Length")))
	}
	r.block = &io.LimitedReader{R: r.in, N: length}
	return &Record{Header: h, Length: length, Block: &tornReader{r: r.block, torn: r.torn}, Offset: start}, nil
}

// torn wraps err as ErrTorn, naming how many records were read.
func (r *Reader) torn(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w after %d records: %w", ErrTorn, r.records, err)
}

// tornReader reports a block that ends before its length as torn.
type tornReader struct {
	r    *io.LimitedReader
	torn func(error) error
}

func (t *tornReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err == io.EOF && t.r.N > 0 {
		return n, t.torn(io.ErrUnexpectedEOF)
	}
	if err != nil && err != io.EOF {
		return n, t.torn(err)
	}
	return n, err
}

func readHeaderLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return "", fmt.Errorf("a header line longer than %d bytes", r.Size())
	}
	if err != nil {
		return "", err
	}
	return string(line), nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Response is an HTTP response read from a response record's block.
type Response struct {
	Status      int
	Header      http.Header
	ContentType string
	// Body is the payload with any Transfer-Encoding and Content-Encoding
	// undone (corpusbot records bodies decoded; other crawlers often keep
	// the bytes as sent).
	Body []byte
}

// ParseResponse parses a response record's block (an HTTP/1.x message;
// HTTP/2 responses are recorded in the same syntax) and reads its body, at
// most maxBody bytes of it (more is an error: a page that large was not
// one the crawler would have kept whole).
func ParseResponse(block []byte, maxBody int64) (*Response, error) {
	resp, err := readHTTP(block)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readLimited(resp.Body, maxBody)
	if err != nil {
		return nil, fmt.Errorf("HTTP response body: %w", err)
	}
	// corpusbot's own records say X-Original-Content-Encoding: the body is
	// decoded already. Others may carry the encoded bytes.
	if enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc != "" && enc != "identity" {
		decoded, err := decode(enc, body, maxBody)
		if err != nil {
			return nil, fmt.Errorf("HTTP response body (Content-Encoding %s): %w", enc, err)
		}
		body = decoded
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, ContentType: resp.Header.Get("Content-Type"), Body: body}, nil
}

// ParseHead parses the status line and header of a response record's
// block, which may hold no more of it: a redirect's target or a status is
// learnt without reading the body.
func ParseHead(block []byte) (status int, header http.Header, err error) {
	resp, err := readHTTP(block)
	if err != nil {
		return 0, nil, err
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header, nil
}

func readHTTP(block []byte) (*http.Response, error) {
	// Go's parser knows HTTP/1.x only; an "HTTP/2" or "HTTP/2.0" status
	// line is read as 1.1, the syntax it is recorded in.
	if rest, ok := bytes.CutPrefix(block, []byte("HTTP/2")); ok {
		rest = bytes.TrimPrefix(rest, []byte(".0"))
		block = append([]byte("HTTP/1.1"), rest...)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(block)), nil)
	if err != nil {
		return nil, fmt.Errorf("HTTP response: %w", err)
	}
	return resp, nil
}

func readLimited(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("longer than %d bytes", max)
	}
	return b, nil
}

func decode(enc string, body []byte, max int64) ([]byte, error) {
	var r io.Reader
	switch enc {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r = zr
	case "deflate":
		r = flate.NewReader(bytes.NewReader(body))
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("unknown encoding")
	}
	return readLimited(r, max)
}
