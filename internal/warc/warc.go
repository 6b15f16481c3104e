// Package warc writes fetched pages as WARC/1.1 files, the format web
// archives and their tools (pywb, warcio, OpenWayback, the Internet
// Archive's) read, through github.com/nlnwa/gowarc.
//
// Each fetch is written as a request record and a response record that name
// each other in WARC-Concurrent-To. Records are gzip-compressed one by one
// (a .warc.gz file, as the tools expect, so that a record can be read from
// its offset). Every file begins with a warcinfo record naming the software;
// every other record points to it with WARC-Warcinfo-ID. Block digests and
// payload digests are SHA-1 in base 32, the digests CDX indexes carry.
//
// A file is closed and a new one begun when it passes Options.MaxFileSize,
// after the exchange that passed it, so a request and its response are
// always in one file and a file passes the size by at most one exchange.
// Files are written under a ".open" suffix and renamed when complete, so a
// file without the suffix is whole.
//
// The body a Writer is given is the one the crawler kept: with its
// Content-Encoding (gzip, br) undone. The recorded response says so: its
// Content-Encoding header is renamed X-Original-Content-Encoding and its
// Content-Length (kept as X-Original-Content-Length when it differs) is the
// length of the recorded body, so that a replay tool serves the body as it
// is. Transfer-Encoding, a property of the connection, is dropped likewise.
package warc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc/v3"
)

// Options configure a Writer. The zero value is usable.
type Options struct {
	// Prefix begins every file name; "corpusbot" when empty.
	Prefix string
	// MaxFileSize is the size on disk past which a file is closed and the
	// next exchange begins a new one; 1 GiB when 0 or less.
	MaxFileSize int64
	// Now is the clock for file names, warcinfo records and the WARC-Date
	// of exchanges without a Fetched time; time.Now when nil.
	Now func() time.Time
	// Software names the program in the warcinfo records, with its version
	// if the caller knows it; "corpusbot" when empty.
	Software string
}

// Exchange is one HTTP request and its response, as fetched.
type Exchange struct {
	URL           string      // the URL requested, absolute
	Method        string      // "GET" when empty
	RequestHeader http.Header // as sent; Host is added from URL
	Status        int         // the response's status code
	// Proto is the response's protocol, "HTTP/1.1" when empty. HTTP/2
	// responses are recorded in the HTTP/1.1 message syntax under their own
	// protocol name ("HTTP/2.0"), as other crawlers record them.
	Proto          string
	ResponseHeader http.Header // as received
	Body           []byte      // the response body, Content-Encoding undone
	// Truncated says the body was cut short by the crawler's size limit;
	// the response record then carries "WARC-Truncated: length".
	Truncated bool
	// Fetched is when the response arrived, the records' WARC-Date;
	// Options.Now() when zero.
	Fetched time.Time
	// RemoteAddr is the server's address ("ip:port" or "ip"), for
	// WARC-IP-Address; empty when unknown.
	RemoteAddr string
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("warc: writer closed")

// Writer writes exchanges to WARC files in one directory. It is safe for
// concurrent use; exchanges are written one at a time.
type Writer struct {
	dir        string
	opts       Options
	recordOpts []gowarc.WarcRecordOption

	mu         sync.Mutex
	files      *gowarc.WarcFileWriter
	names      *nameGenerator
	current    string // the open file's final name, "" when none is open
	warcinfoID string // the open file's warcinfo record
	written    []string
	closed     bool
}

// Open returns a Writer that writes files into dir, creating dir if need be.
// No file is created before the first Write.
func Open(dir string, opts Options) (*Writer, error) {
	if opts.Prefix == "" {
		opts.Prefix = "corpusbot"
	}
	if strings.ContainsAny(opts.Prefix, `/\`) {
		return nil, fmt.Errorf("warc: file name prefix %q has a path separator", opts.Prefix)
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 30
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Software == "" {
		opts.Software = "corpusbot"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	names := &nameGenerator{dir: dir}
	recordOpts := []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithDefaultDigestAlgorithm("sha1"),
		gowarc.WithDefaultDigestEncoding(gowarc.Base32),
		gowarc.WithAddMissingDigest(true),
		gowarc.WithAddMissingContentLength(true),
		gowarc.WithAddMissingRecordId(true),
	}
	files := gowarc.NewWarcFileWriter(
		gowarc.WithFileNameGenerator(names),
		gowarc.WithCompression(true),
		gowarc.WithCompressedFileSuffix(".gz"),
		gowarc.WithOpenFileSuffix(openSuffix),
		// Rotation is the Writer's, after whole exchanges: gowarc's own
		// would rotate between a request and its response.
		gowarc.WithMaxFileSize(0),
		gowarc.WithMaxConcurrentWriters(1),
		gowarc.WithAddWarcConcurrentToHeader(true),
		gowarc.WithRecordOptions(recordOpts...),
	)
	return &Writer{dir: dir, opts: opts, recordOpts: recordOpts, files: files, names: names}, nil
}

const openSuffix = ".open"

// Write writes x as a request record and a response record, beginning a
// file (with its warcinfo record) if none is open, and closing the file
// after if it has passed MaxFileSize.
func (w *Writer) Write(ctx context.Context, x Exchange) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	target, err := url.Parse(x.URL)
	if err != nil || !target.IsAbs() || target.Host == "" {
		return fmt.Errorf("warc: %q is not an absolute URL", x.URL)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.current == "" {
		if err := w.beginFile(); err != nil {
			return err
		}
	}
	date := x.Fetched
	if date.IsZero() {
		date = w.opts.Now()
	}
	date = date.UTC()
	req, err := w.requestRecord(x, target, date)
	if err != nil {
		return fmt.Errorf("warc: request record of %s: %w", x.URL, err)
	}
	resp, err := w.responseRecord(x, date)
	if err != nil {
		_ = req.Close()
		return fmt.Errorf("warc: response record of %s: %w", x.URL, err)
	}
	if err := writeErr(w.files.Write(req, resp)); err != nil {
		return fmt.Errorf("warc: writing %s to %s: %w", x.URL, w.current, err)
	}
	fi, err := os.Stat(filepath.Join(w.dir, w.current+openSuffix))
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	if fi.Size() >= w.opts.MaxFileSize {
		return w.closeFile()
	}
	return nil
}

// Files returns the paths of the files written so far, in order; the last
// one is still open (under its ".open" suffix) until Close or rotation.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	paths := make([]string, len(w.written))
	for i, name := range w.written {
		paths[i] = filepath.Join(w.dir, name)
	}
	return paths
}

// Close completes the open file, if any. Write fails after Close; Close
// again does nothing.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	var err error
	if w.current != "" {
		err = w.closeFile()
	}
	// gowarc's Close drops the errors of closing the files; Rotate, above,
	// reports them.
	return errors.Join(err, w.files.Close())
}

func (w *Writer) closeFile() error {
	name := w.current
	w.current, w.warcinfoID = "", ""
	if err := w.files.Rotate(); err != nil {
		return fmt.Errorf("warc: completing %s: %w", name, err)
	}
	return nil
}

// beginFile names the next file and writes its warcinfo record, which
// creates it. gowarc's own warcinfo records take the wall clock for their
// date; this one takes Options.Now.
func (w *Writer) beginFile() error {
	now := w.opts.Now().UTC()
	name, err := w.names.reserve(w.opts.Prefix, now)
	if err != nil {
		return err
	}
	b := gowarc.NewRecordBuilder(gowarc.Warcinfo, w.recordOpts...)
	b.AddWarcHeaderTime(gowarc.WarcDate, now)
	b.AddWarcHeader(gowarc.WarcFilename, name)
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	fmt.Fprintf(b, "software: %s\r\n", w.opts.Software)
	b.WriteString("format: WARC File Format 1.1\r\n")
	b.WriteString("conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	b.WriteString("robots: obey\r\n")
	info, _, err := b.Build()
	if err != nil {
		return fmt.Errorf("warc: warcinfo record: %w", err)
	}
	id := info.WarcHeader().GetId(gowarc.WarcRecordID)
	resp := w.files.Write(info)
	if err := writeErr(resp); err != nil {
		return fmt.Errorf("warc: beginning %s: %w", name, err)
	}
	if resp[0].FileName != name {
		// The name generator hands out the reserved name: anything else
		// means gowarc's writer changed how it names files.
		return fmt.Errorf("warc: began %s, meant %s", resp[0].FileName, name)
	}
	w.current, w.warcinfoID = name, id
	w.written = append(w.written, name)
	return nil
}

func writeErr(resp []gowarc.WriteResponse) error {
	if resp == nil {
		return ErrClosed
	}
	var errs []error
	for _, r := range resp {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

func (w *Writer) requestRecord(x Exchange, target *url.URL, date time.Time) (gowarc.WarcRecord, error) {
	method := x.Method
	if method == "" {
		method = http.MethodGet
	}
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "%s %s HTTP/1.1\r\n", method, target.RequestURI())
	header := x.RequestHeader.Clone()
	if header == nil {
		header = http.Header{}
	}
	if header.Get("Host") == "" {
		header.Set("Host", target.Host)
	}
	if err := header.Write(&msg); err != nil {
		return nil, err
	}
	msg.WriteString("\r\n")
	return w.build(gowarc.Request, "application/http;msgtype=request", x, date, msg.Bytes(), nil)
}

func (w *Writer) responseRecord(x Exchange, date time.Time) (gowarc.WarcRecord, error) {
	proto := x.Proto
	if proto == "" {
		proto = "HTTP/1.1"
	}
	text := http.StatusText(x.Status)
	if text == "" {
		text = "status code " + strconv.Itoa(x.Status)
	}
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "%s %03d %s\r\n", proto, x.Status, text)
	if err := recordedHeader(x).Write(&msg); err != nil {
		return nil, err
	}
	msg.WriteString("\r\n")
	extra := func(b gowarc.WarcRecordBuilder) {
		if x.Truncated {
			b.AddWarcHeader(gowarc.WarcTruncated, "length")
		}
	}
	return w.build(gowarc.Response, "application/http;msgtype=response", x, date, msg.Bytes(), x.Body, extra)
}

// recordedHeader is the response header as recorded with the body the
// crawler kept: see the package documentation.
func recordedHeader(x Exchange) http.Header {
	h := x.ResponseHeader.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Del("Transfer-Encoding")
	decoded := false
	if enc := h.Values("Content-Encoding"); len(enc) > 0 {
		h.Del("Content-Encoding")
		h["X-Original-Content-Encoding"] = enc
		decoded = true
	}
	// A HEAD response, a 304 and a 204 carry no body whatever their
	// Content-Length says; leave theirs.
	bodiless := x.Method == http.MethodHead || x.Status == http.StatusNotModified ||
		x.Status == http.StatusNoContent || (x.Status >= 100 && x.Status < 200)
	if bodiless && !decoded {
		return h
	}
	length := strconv.Itoa(len(x.Body))
	if cl := h.Values("Content-Length"); len(cl) > 0 && (len(cl) > 1 || cl[0] != length) {
		h["X-Original-Content-Length"] = cl
	}
	h.Set("Content-Length", length)
	return h
}

func (w *Writer) build(kind gowarc.RecordType, contentType string, x Exchange, date time.Time, head, body []byte, extra ...func(gowarc.WarcRecordBuilder)) (gowarc.WarcRecord, error) {
	b := gowarc.NewRecordBuilder(kind, w.recordOpts...)
	b.AddWarcHeader(gowarc.WarcTargetURI, x.URL)
	b.AddWarcHeaderTime(gowarc.WarcDate, date)
	b.AddWarcHeader(gowarc.ContentType, contentType)
	b.AddWarcHeader(gowarc.WarcWarcinfoID, "<"+w.warcinfoID+">")
	if ip := remoteIP(x.RemoteAddr); ip != "" {
		b.AddWarcHeader(gowarc.WarcIPAddress, ip)
	}
	for _, f := range extra {
		f(b)
	}
	if _, err := b.Write(head); err != nil {
		_ = b.Close()
		return nil, err
	}
	if _, err := b.Write(body); err != nil {
		_ = b.Close()
		return nil, err
	}
	rec, _, err := b.Build()
	return rec, err
}

// remoteIP is the address of "ip:port", "[ipv6]:port" or a bare ip; "" for
// anything else.
func remoteIP(addr string) string {
	if addr == "" {
		return ""
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	ip := net.ParseIP(strings.Trim(addr, "[]"))
	if ip == nil {
		return ""
	}
	return ip.String()
}

// nameGenerator gives gowarc's writer the name the Writer reserved for the
// file it is about to begin: <prefix>-<UTC yyyymmddhhmmss>-<serial>.warc
// (gowarc adds ".gz"). The serial counts from 1 per Writer and skips names
// already in the directory, so that two runs in the same second do not
// collide.
type nameGenerator struct {
	dir    string
	serial int
	next   string
}

func (g *nameGenerator) reserve(prefix string, now time.Time) (string, error) {
	for range 100_000 {
		g.serial++
		base := fmt.Sprintf("%s-%s-%05d.warc", prefix, now.Format("20060102150405"), g.serial)
		final := base + ".gz"
		if exists(filepath.Join(g.dir, final)) || exists(filepath.Join(g.dir, final+openSuffix)) {
			continue
		}
		g.next = base
		return final, nil
	}
	return "", fmt.Errorf("warc: no free file name for prefix %q in %s", prefix, g.dir)
}

// NewWarcfileName implements gowarc.WarcFileNameGenerator. gowarc calls it
// from its writer goroutine while Writer.beginFile waits on the write, so
// g.next needs no lock of its own.
func (g *nameGenerator) NewWarcfileName() (string, string) {
	return g.dir, g.next
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
