package warc

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"corpus.blog/corpusbot/internal/warc/warctest"
)

// fixedClock steps one second a call from a fixed day, as fetch.Clock does in
// the simulated-day tests. Write reads it for the file it begins, then for
// the exchange.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func sha1Base32(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// exchanges makes n exchanges: HTML pages, binary bodies, empty bodies, a
// gzip-encoded page (decoded), a 304 and a HEAD.
func exchanges(n int, seed uint64) []Exchange {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]Exchange, n)
	for i := range xs {
		x := Exchange{
			URL:           fmt.Sprintf("https://blog%d.example.com/posts/%d?q=%d", i%7, i, i),
			RequestHeader: http.Header{"User-Agent": {"corpusbot/1.0 (+https://corpus.blog/bot)"}, "Accept-Encoding": {"gzip, br"}},
			Status:        200,
			ResponseHeader: http.Header{
				"Content-Type": {"text/html; charset=utf-8"},
				"Date":         {"Sun, 01 Mar 2026 12:00:00 GMT"},
			},
			RemoteAddr: fmt.Sprintf("127.0.0.%d:443", 1+i%200),
		}
		switch i % 6 {
		case 0:
			x.Body = []byte(strings.Repeat(fmt.Sprintf("<p>Post %d, paragraph text é ✓.</p>\n", i), 1+rng.IntN(200)))
		case 1: // binary, incompressible
			x.Body = make([]byte, 1+rng.IntN(20_000))
			for j := range x.Body {
				x.Body[j] = byte(rng.Uint32())
			}
			x.ResponseHeader.Set("Content-Type", "image/png")
		case 2: // empty
			x.Body = nil
			x.Status = 204
		case 3: // was gzip on the wire
			x.Body = []byte("<html>decoded</html>")
			x.ResponseHeader.Set("Content-Encoding", "gzip")
			x.ResponseHeader.Set("Content-Length", "41")
			x.Fetched = time.Date(2026, 2, 3, 4, 5, 6, 7_000_000, time.UTC)
		case 4:
			x.Status = 304
			x.ResponseHeader.Set("Content-Length", "1234")
			x.RemoteAddr = "[::1]:8443"
			x.Proto = "HTTP/2.0"
		case 5:
			x.Method = http.MethodHead
			x.RemoteAddr = ""
			x.Body = []byte{}
		}
		xs[i] = x
	}
	return xs
}

func TestWriteAndReadBack(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	xs := exchanges(60, 1)
	for _, x := range xs {
		if err := w.Write(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(context.Background(), xs[0]); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	want := filepath.Join(dir, "corpusbot-20260301120001-00001.warc.gz")
	if !slices.Equal(files, []string{want}) || !slices.Equal(w.Files(), files) {
		t.Fatalf("files %v (Files() %v), want [%s]", files, w.Files(), want)
	}
	records := warctest.ReadFile(t, files[0])
	if len(records) != 1+2*len(xs) {
		t.Fatalf("%d records, want %d", len(records), 1+2*len(xs))
	}
	info := records[0].WarcRecord
	if info.Type() != gowarc.Warcinfo || info.WarcHeader().Get(gowarc.WarcFilename) != filepath.Base(want) {
		t.Fatalf("first record %s, filename %q", info.Type(), info.WarcHeader().Get(gowarc.WarcFilename))
	}
	if d, _ := info.Date(); !d.Equal(time.Date(2026, 3, 1, 12, 0, 1, 0, time.UTC)) {
		t.Errorf("warcinfo date %v, want the injected clock's", d)
	}
	var infoText bytes.Buffer
	rd, _ := info.Block().RawBytes()
	io.Copy(&infoText, rd)
	for _, field := range []string{"software: corpusbot\r\n", "format: WARC File Format 1.1\r\n"} {
		if !strings.Contains(infoText.String(), field) {
			t.Errorf("warcinfo lacks %q:\n%s", field, infoText.String())
		}
	}
	infoID := info.RecordId()

	for i, x := range xs {
		req, resp := records[1+2*i].WarcRecord, records[2+2*i].WarcRecord
		if req.Type() != gowarc.Request || resp.Type() != gowarc.Response {
			t.Fatalf("exchange %d: records %s, %s", i, req.Type(), resp.Type())
		}
		for _, r := range []gowarc.WarcRecord{req, resp} {
			h := r.WarcHeader()
			if got := h.Get(gowarc.WarcTargetURI); got != x.URL {
				t.Errorf("exchange %d %s: target %q, want %q", i, r.Type(), got, x.URL)
			}
			if got := h.GetId(gowarc.WarcWarcinfoID); got != infoID {
				t.Errorf("exchange %d %s: warcinfo id %q, want %q", i, r.Type(), got, infoID)
			}
			wantIP := map[string]string{"": "", "[::1]:8443": "::1"}[x.RemoteAddr]
			if _, special := map[string]bool{"": true, "[::1]:8443": true}[x.RemoteAddr]; !special {
				wantIP = strings.TrimSuffix(x.RemoteAddr, ":443")
			}
			if got := h.Get(gowarc.WarcIPAddress); got != wantIP {
				t.Errorf("exchange %d %s: ip %q, want %q", i, r.Type(), got, wantIP)
			}
			d, _ := r.Date()
			if !x.Fetched.IsZero() && !d.Equal(x.Fetched) {
				t.Errorf("exchange %d %s: date %v, want %v", i, r.Type(), d, x.Fetched)
			}
		}
		if req.WarcHeader().GetId(gowarc.WarcConcurrentTo) != resp.RecordId() || resp.WarcHeader().GetId(gowarc.WarcConcurrentTo) != req.RecordId() {
			t.Errorf("exchange %d: request and response do not name each other", i)
		}
		if got, want := resp.WarcHeader().Get(gowarc.WarcPayloadDigest), sha1Base32(x.Body); got != want {
			t.Errorf("exchange %d: payload digest %s, want %s", i, got, want)
		}
		block := resp.Block().(gowarc.HttpResponseBlock)
		if block.HttpStatusCode() != x.Status {
			t.Errorf("exchange %d: status %d, want %d", i, block.HttpStatusCode(), x.Status)
		}
		pr, err := block.PayloadBytes()
		if err != nil {
			t.Fatal(err)
		}
		payload, _ := io.ReadAll(pr)
		if !bytes.Equal(payload, x.Body) {
			t.Errorf("exchange %d: payload of %d bytes differs from the %d written", i, len(payload), len(x.Body))
		}
		rh := *block.HttpHeader()
		switch i % 6 {
		case 3:
			if rh.Get("Content-Encoding") != "" || rh.Get("X-Original-Content-Encoding") != "gzip" ||
				rh.Get("Content-Length") != fmt.Sprint(len(x.Body)) || rh.Get("X-Original-Content-Length") != "41" {
				t.Errorf("exchange %d: decoded body recorded with header %v", i, rh)
			}
		case 4:
			if head := string(block.ProtocolHeaderBytes()); rh.Get("Content-Length") != "1234" || !strings.HasPrefix(head, "HTTP/2.0 304 Not Modified\r\n") {
				t.Errorf("exchange %d: 304 recorded as %q", i, head)
			}
		}
		reqBlock := req.Block().(gowarc.HttpRequestBlock)
		if got := (*reqBlock.HttpHeader()).Get("User-Agent"); got != x.RequestHeader.Get("User-Agent") {
			t.Errorf("exchange %d: request User-Agent %q", i, got)
		}
		wantLine := fmt.Sprintf("%s /posts/%d?q=%d HTTP/1.1\r\n", cmp(x.Method, "GET"), i, i)
		wantHost := fmt.Sprintf("\r\nHost: blog%d.example.com\r\n", i%7)
		if head := string(reqBlock.ProtocolHeaderBytes()); !strings.HasPrefix(head, wantLine) || !strings.Contains(head, wantHost) || !strings.HasSuffix(head, "\r\n\r\n") {
			t.Errorf("exchange %d: request recorded as %q, want %q and %q", i, head, wantLine, wantHost)
		}
	}
	for _, rec := range records {
		rec.Close()
	}
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestRotation writes with a small MaxFileSize: several files, each
// readable, each beginning with its warcinfo, no exchange split, and no file
// past the size by more than its last exchange.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	const maxSize = 20_000
	w, err := Open(dir, Options{Prefix: "rot", MaxFileSize: maxSize, Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	xs := exchanges(90, 2)
	for _, x := range xs {
		if err := w.Write(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) < 4 || !slices.Equal(files, w.Files()) {
		t.Fatalf("%d files %v (Files() %v), want several", len(files), files, w.Files())
	}
	var targets []string
	for i, f := range files {
		if !strings.HasPrefix(filepath.Base(f), "rot-2026030112") || !strings.HasSuffix(f, fmt.Sprintf("-%05d.warc.gz", i+1)) {
			t.Errorf("file name %s", f)
		}
		records := warctest.ReadFile(t, f)
		if len(records) < 3 || len(records)%2 != 1 || records[0].WarcRecord.Type() != gowarc.Warcinfo {
			t.Fatalf("%s: %d records, first %v", f, len(records), records[0].WarcRecord.Type())
		}
		fi, _ := os.Stat(f)
		lastRequest := records[len(records)-2]
		if lastRequest.Offset >= maxSize {
			t.Errorf("%s: last exchange began at %d, past MaxFileSize %d", f, lastRequest.Offset, maxSize)
		}
		if i < len(files)-1 && fi.Size() < maxSize {
			t.Errorf("%s: rotated at %d bytes, under MaxFileSize %d", f, fi.Size(), maxSize)
		}
		for j := 1; j < len(records); j += 2 {
			req, resp := records[j].WarcRecord, records[j+1].WarcRecord
			if req.Type() != gowarc.Request || resp.Type() != gowarc.Response || req.WarcHeader().Get(gowarc.WarcTargetURI) != resp.WarcHeader().Get(gowarc.WarcTargetURI) {
				t.Errorf("%s: records %d and %d are not one exchange", f, j, j+1)
			}
			targets = append(targets, resp.WarcHeader().Get(gowarc.WarcTargetURI))
		}
		for _, rec := range records {
			rec.Close()
		}
	}
	if len(targets) != len(xs) {
		t.Fatalf("%d exchanges read back, want %d", len(targets), len(xs))
	}
	for i, x := range xs {
		if targets[i] != x.URL {
			t.Errorf("exchange %d read back as %s, want %s", i, targets[i], x.URL)
		}
	}
}

// TestConcurrentWrites: exchanges written from several goroutines all land,
// each request beside its response.
func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, Options{MaxFileSize: 50_000})
	if err != nil {
		t.Fatal(err)
	}
	xs := exchanges(80, 3)
	var wg sync.WaitGroup
	errs := make(chan error, len(xs))
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(xs); i += 4 {
				errs <- w.Write(context.Background(), xs[i])
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range w.Files() {
		records := warctest.ReadFile(t, f)
		for j := 1; j+1 < len(records); j += 2 {
			u := records[j].WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI)
			if records[j+1].WarcRecord.WarcHeader().Get(gowarc.WarcTargetURI) != u {
				t.Errorf("%s: exchange split at record %d", f, j)
			}
			seen[u] = true
		}
		for _, rec := range records {
			rec.Close()
		}
	}
	if len(seen) != len(xs) {
		t.Errorf("%d distinct exchanges read back, want %d", len(seen), len(xs))
	}
}

func TestWriteRefuses(t *testing.T) {
	w, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(context.Background(), Exchange{URL: "/relative", Status: 200}); err == nil {
		t.Error("relative URL accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Write(ctx, Exchange{URL: "https://a.example/", Status: 200}); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a cancelled context = %v", err)
	}
	if len(w.Files()) != 0 {
		t.Errorf("files created for refused writes: %v", w.Files())
	}
	if _, err := Open(t.TempDir(), Options{Prefix: "a/b"}); err == nil {
		t.Error("prefix with a separator accepted")
	}
}

// TestNamesDoNotCollide: a second Writer in the same directory and second
// skips the names the first took.
func TestNamesDoNotCollide(t *testing.T) {
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) }
	for range 2 {
		w, err := Open(dir, Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(context.Background(), exchanges(1, 4)[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 || !strings.HasSuffix(files[1], "-00002.warc.gz") {
		t.Errorf("files %v", files)
	}
}
