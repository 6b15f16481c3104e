// Package warc writes fetched pages as WARC/1.1 files, the format web
// archives and their tools (pywb, warcio, OpenWayback, the Internet
// Archive's) read, with github.com/nlnwa/gowarc's records.
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
//
// # Whole files
//
// A file is written under a ".open" suffix, locked (flock) while a Writer
// holds it, and given its final name only when it is whole: every record
// in it complete, its bytes synced to disk. A write that fails (a full
// disk, an I/O error, a short write) is cut back (truncated) to the end of
// the last whole exchange, so the file goes on holding only whole records,
// and the Writer counts the failure (Failures); the next exchange is tried
// in the same file. A file that cannot be cut back, synced or renamed keeps
// its ".open" suffix: the suffix means "not known to be whole", never
// "complete".
//
// Open checks that the directory is writable (it creates a probe file and
// removes it) and completes the ".warc.gz.open" files that no live Writer
// holds, left by a process that was killed or whose file could not be cut
// back: each is cut back to its last whole record (and a request left
// without its response is cut too), synced and renamed; one without a single
// whole record is removed. See Recover. The directory is the archive's:
// another program writing ".warc.gz.open" files there without flock would
// have its files completed under it.
//
// gowarc builds and serializes the records; the files are this package's,
// because gowarc's file writer renames a file whatever its writes did and
// cannot cut one back.
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
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/nlnwa/gowarc/v3"

	"corpus.blog/corpusbot/internal/logging"
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
	// Log is told of the files Open completed; nil: slog.Default
	// (logging.OrDefault).
	Log *slog.Logger
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
	create     createFunc
	marshaler  gowarc.Marshaler

	mu         sync.Mutex
	names      *nameGenerator
	file       warcFile // the open file, nil when none is
	current    string   // the open file's final name
	size       int64    // the open file's length: the end of its last whole exchange
	warcinfoID string   // the open file's warcinfo record
	written    []string // every file begun: its final name, or its ".open" name if left so
	closed     bool
	gz         *gzip.Writer
	buf        bytes.Buffer // an exchange's records, compressed, before they are written

	failures     int
	firstFailure error
}

// Open returns a Writer that writes files into dir, creating dir if need be.
// It fails unless a file can be created and removed in dir, and completes
// the files left under ".open" that no live Writer holds (see the package
// documentation). No file of its own is created before the first Write.
func Open(dir string, opts Options) (*Writer, error) {
	return openWith(dir, opts, createLocked)
}

// openWith is Open with the function that creates the files written, the
// tests' way to make writes fail.
func openWith(dir string, opts Options, create createFunc) (*Writer, error) {
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
	opts.Log = logging.OrDefault(opts.Log)
	if err := checkWritable(dir); err != nil {
		return nil, err
	}
	recovered, err := Recover(dir)
	for _, r := range recovered {
		if r.Removed {
			opts.Log.Warn("WARC file without a whole record removed", "file", r.Path, "bytes", r.Cut)
		} else {
			opts.Log.Info("WARC file left open completed", "file", r.Path, "records", r.Records, "bytes_cut", r.Cut)
		}
	}
	if err != nil {
		return nil, err
	}
	recordOpts := []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithDefaultDigestAlgorithm("sha1"),
		gowarc.WithDefaultDigestEncoding(gowarc.Base32),
		gowarc.WithAddMissingDigest(true),
		gowarc.WithAddMissingContentLength(true),
		gowarc.WithAddMissingRecordId(true),
	}
	return &Writer{dir: dir, opts: opts, recordOpts: recordOpts, create: create,
		marshaler: gowarc.NewMarshaler(), names: &nameGenerator{dir: dir}}, nil
}

// checkWritable creates dir if need be and a probe file in it, with a few
// bytes synced and a lock taken, then removes the probe: a directory that
// is not one, is read-only, sits on a full disk or cannot lock fails here,
// before any crawling, rather than at every page.
func checkWritable(dir string) error {
	fail := func(err error) error {
		return fmt.Errorf("warc: %s is not a writable directory: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	probe, err := os.CreateTemp(dir, ".corpusbot-probe-*")
	if err != nil {
		return fail(err)
	}
	_, err = probe.WriteString("corpusbot checks that it can write here; this file should not outlive the check\n")
	if err == nil {
		// Files are locked while written (see createLocked): a file
		// system that cannot lock fails here too.
		var locked bool
		if locked, err = tryLock(probe); err == nil && !locked {
			err = fmt.Errorf("%s is locked by another process", probe.Name())
		}
	}
	err = errors.Join(err, probe.Sync(), probe.Close(), os.Remove(probe.Name()))
	if err != nil {
		return fail(err)
	}
	return nil
}

const openSuffix = ".open"

// Write writes x as a request record and a response record, beginning a
// file (with its warcinfo record) if none is open, and closing the file
// after if it has passed MaxFileSize. Every Write that fails is counted
// (Failures).
func (w *Writer) Write(ctx context.Context, x Exchange) error {
	err := w.write(ctx, x)
	if err != nil {
		w.mu.Lock()
		w.failures++
		if w.firstFailure == nil {
			w.firstFailure = err
		}
		w.mu.Unlock()
	}
	return err
}

func (w *Writer) write(ctx context.Context, x Exchange) error {
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
	if w.file == nil {
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
	req.WarcHeader().AddId(gowarc.WarcConcurrentTo, resp.RecordId())
	resp.WarcHeader().AddId(gowarc.WarcConcurrentTo, req.RecordId())
	if err := w.compress(req, resp); err != nil {
		return fmt.Errorf("warc: records of %s: %w", x.URL, err)
	}
	if err := w.append(); err != nil {
		return fmt.Errorf("warc: writing %s to %s: %w", x.URL, w.current, err)
	}
	if w.size >= w.opts.MaxFileSize {
		return w.closeFile()
	}
	return nil
}

// compress serializes records into w.buf, one gzip member each, and closes
// them.
func (w *Writer) compress(records ...gowarc.WarcRecord) error {
	defer func() {
		for _, r := range records {
			_ = r.Close()
		}
	}()
	// A buffer that once held a very large page is not kept for the next.
	if w.buf.Cap() > 16<<20 {
		w.buf = bytes.Buffer{}
	}
	w.buf.Reset()
	if w.gz == nil {
		// The fastest level: pages are archived by default, and at the
		// default level the compression cost a crawl 1.6 ms of CPU a
		// page (as much as half the page's extraction) to save 15% of
		// the disk (0.207 of the HTML against 0.242, on 181 real pages).
		w.gz, _ = gzip.NewWriterLevel(&w.buf, gzip.BestSpeed)
	}
	for _, r := range records {
		w.gz.Reset(&w.buf)
		if _, _, err := w.marshaler.Marshal(w.gz, r, 0); err != nil {
			return err
		}
		if err := w.gz.Close(); err != nil {
			return err
		}
	}
	return nil
}

// append writes w.buf at the end of the open file. When the write fails,
// the file is cut back to its last whole exchange and stays open for the
// next; when it cannot be cut back, it is closed and left under ".open".
func (w *Writer) append() error {
	n, err := w.file.Write(w.buf.Bytes())
	if err == nil && n < w.buf.Len() {
		err = io.ErrShortWrite
	}
	if err == nil {
		w.size += int64(n)
		return nil
	}
	cutErr := w.file.Truncate(w.size)
	if cutErr == nil {
		_, cutErr = w.file.Seek(w.size, io.SeekStart)
	}
	if cutErr == nil {
		return fmt.Errorf("%w (cut back to its last whole record)", err)
	}
	return fmt.Errorf("%w; %w", err, w.leaveOpen(fmt.Errorf("cutting it back to its last whole record: %w", cutErr)))
}

// leaveOpen closes the open file without its final name, because of why.
func (w *Writer) leaveOpen(why error) error {
	name := w.current
	err := w.file.Close()
	w.file, w.current, w.size, w.warcinfoID = nil, "", 0, ""
	for i := range w.written {
		if w.written[i] == name {
			w.written[i] = name + openSuffix
		}
	}
	return fmt.Errorf("warc: %s left as %s%s (completed at the next start): %w", name, name, openSuffix, errors.Join(why, err))
}

// Files returns the paths of the files written so far, in order; the last
// one is still open (under its ".open" suffix) until Close or rotation, and
// one that could not be made whole keeps its ".open" path.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	paths := make([]string, len(w.written))
	for i, name := range w.written {
		paths[i] = filepath.Join(w.dir, name)
	}
	return paths
}

// Failures is how many Writes failed so far and the first one's error.
func (w *Writer) Failures() (n int, first error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.failures, w.firstFailure
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
	if w.file != nil {
		return w.closeFile()
	}
	return nil
}

// closeFile syncs the open file and gives it its final name: it holds
// whole records only. The file is renamed before it is closed, so that its
// lock keeps Recover in another process away until it has its final name.
func (w *Writer) closeFile() error {
	name := w.current
	if err := w.file.Sync(); err != nil {
		return w.leaveOpen(fmt.Errorf("sync: %w", err))
	}
	if err := renameNoReplace(filepath.Join(w.dir, name+openSuffix), filepath.Join(w.dir, name)); err != nil {
		return w.leaveOpen(err)
	}
	// Whole and named so: a directory that cannot be synced is reported,
	// the name kept.
	err := errors.Join(syncDir(w.dir), w.file.Close())
	w.file, w.current, w.size, w.warcinfoID = nil, "", 0, ""
	if err != nil {
		return fmt.Errorf("warc: completing %s: %w", name, err)
	}
	return nil
}

// beginFile creates the next file and writes its warcinfo record. A file
// whose warcinfo could not be written is removed. gowarc's own warcinfo
// records take the wall clock for their date; this one takes Options.Now.
func (w *Writer) beginFile() error {
	now := w.opts.Now().UTC()
	var (
		name string
		f    warcFile
		err  error
	)
	for range 10 {
		name, err = w.names.reserve(w.opts.Prefix, now)
		if err != nil {
			return err
		}
		f, err = w.create(filepath.Join(w.dir, name+openSuffix))
		// Another process may have taken the name since it was checked.
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("warc: beginning %s: %w", name, err)
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
	var id string
	if err == nil {
		id = info.RecordId()
		err = w.compress(info)
	}
	if err == nil {
		var n int
		n, err = f.Write(w.buf.Bytes())
		if err == nil && n < w.buf.Len() {
			err = io.ErrShortWrite
		}
	}
	if err != nil {
		// Nothing whole in it: no file. One that cannot be removed is
		// left under ".open", for Recover to remove.
		path := filepath.Join(w.dir, name+openSuffix)
		return fmt.Errorf("warc: beginning %s: %w", name, errors.Join(err, f.Close(), os.Remove(path)))
	}
	w.file, w.current, w.size = f, name, int64(w.buf.Len())
	w.warcinfoID = id
	w.written = append(w.written, name)
	return nil
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

// nameGenerator names the files of a Writer:
// <prefix>-<UTC yyyymmddhhmmss>-<serial>.warc.gz. The serial counts from 1
// per Writer and skips names already in the directory, so that two runs in
// the same second do not collide.
type nameGenerator struct {
	dir    string
	serial int
}

func (g *nameGenerator) reserve(prefix string, now time.Time) (string, error) {
	for range 100_000 {
		g.serial++
		name := fmt.Sprintf("%s-%s-%05d.warc.gz", prefix, now.Format("20060102150405"), g.serial)
		if exists(filepath.Join(g.dir, name)) || exists(filepath.Join(g.dir, name+openSuffix)) {
			continue
		}
		return name, nil
	}
	return "", fmt.Errorf("warc: no free file name for prefix %q in %s", prefix, g.dir)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
