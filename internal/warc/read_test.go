package warc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// written writes xs with a Writer and returns the file's bytes.
func written(t testing.TB, xs []Exchange) []byte {
	t.Helper()
	dir := t.TempDir()
	w, err := Open(dir, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if err := w.Write(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Files()[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll reads every record of b: the records read (type, target, block)
// and the error that ended the reading (nil at io.EOF).
type readRec struct {
	typ, target string
	block       []byte
}

func readAll(b []byte) ([]readRec, error) {
	r, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	var out []readRec
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		block, err := io.ReadAll(rec.Block)
		if err != nil {
			return out, err
		}
		out = append(out, readRec{rec.Type(), rec.TargetURI(), block})
	}
}

// plain is b's records decompressed: a .warc file.
func plain(t testing.TB, b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadBackWhatWasWritten(t *testing.T) {
	xs := exchanges(30, 7)
	gz := written(t, xs)
	for name, b := range map[string][]byte{"gzip per record": gz, "plain": plain(t, gz)} {
		t.Run(name, func(t *testing.T) {
			recs, err := readAll(b)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1+2*len(xs) || recs[0].typ != "warcinfo" {
				t.Fatalf("%d records (first %q), want %d from warcinfo", len(recs), recs[0].typ, 1+2*len(xs))
			}
			for i, x := range xs {
				req, resp := recs[1+2*i], recs[2+2*i]
				if req.typ != "request" || resp.typ != "response" || resp.target != x.URL {
					t.Fatalf("exchange %d: %s %s %s", i, req.typ, resp.typ, resp.target)
				}
				if x.Method == "HEAD" || x.Status == 304 || x.Status == 204 {
					continue
				}
				got, err := ParseResponse(resp.block, 1<<20)
				if err != nil {
					t.Fatalf("exchange %d: %v", i, err)
				}
				if got.Status != x.Status || !bytes.Equal(got.Body, x.Body) || got.ContentType != x.ResponseHeader.Get("Content-Type") {
					t.Errorf("exchange %d: status %d, type %q, %d bytes; want %d, %q, %d", i, got.Status, got.ContentType,
						len(got.Body), x.Status, x.ResponseHeader.Get("Content-Type"), len(x.Body))
				}
			}
		})
	}
}

// A file cut anywhere gives the records before the cut, then ErrTorn (or
// a clean end when the cut falls between records).
func TestReadTorn(t *testing.T) {
	gz := written(t, exchanges(12, 3))
	whole, err := readAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{gz, plain(t, gz)} {
		for cut := 1; cut < len(b); cut += 1 + len(b)/97 {
			recs, err := readAll(b[:cut])
			if err != nil && !errors.Is(err, ErrTorn) && !errors.Is(err, ErrNotWARC) {
				t.Fatalf("cut at %d: %v, want ErrTorn", cut, err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("cut at %d: error of more than one line: %q", cut, err)
			}
			for i, r := range recs {
				if r.typ != whole[i].typ || !bytes.Equal(r.block, whole[i].block) {
					t.Fatalf("cut at %d: record %d differs from the whole file's", cut, i)
				}
			}
		}
	}
}

func TestReadNotWARC(t *testing.T) {
	var gzHTML bytes.Buffer
	zw := gzip.NewWriter(&gzHTML)
	zw.Write([]byte("<html><body>not an archive</body></html>\n"))
	zw.Close()
	for name, b := range map[string][]byte{
		"html":  []byte("<!doctype html>\n<html><body>hello</body></html>\n"),
		"empty": nil,
		"gzip":  gzHTML.Bytes(),
		"bin":   {0, 1, 2, 3, 0xff, 0xfe},
	} {
		_, err := readAll(b)
		if !errors.Is(err, ErrNotWARC) {
			t.Errorf("%s: %v, want ErrNotWARC", name, err)
		}
	}
}

// Other crawlers' records: WARC/1.0, angle brackets around the target,
// a chunked, gzip-encoded body kept as sent, and a resource record.
func TestReadForeign(t *testing.T) {
	var body bytes.Buffer
	zw := gzip.NewWriter(&body)
	zw.Write([]byte("<html><title>x</title><p>héllo</p></html>"))
	zw.Close()
	var chunked bytes.Buffer
	chunked.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n")
	chunked.WriteString(strings.ToUpper(strconvHex(body.Len())) + "\r\n")
	chunked.Write(body.Bytes())
	chunked.WriteString("\r\n0\r\n\r\n")
	rec := func(typ, target string, block []byte) string {
		return "WARC/1.0\r\nWARC-Type: " + typ + "\r\nWARC-Target-URI: <" + target + ">\r\nWARC-Date: 2020-01-02T03:04:05Z\r\n" +
			"Content-Length: " + itoa(len(block)) + "\r\n\r\n" + string(block) + "\r\n\r\n"
	}
	file := rec("resource", "dns:example.com", []byte("1.2.3.4")) + rec("response", "https://example.com/a", chunked.Bytes())
	recs, err := readAll([]byte(file))
	if err != nil || len(recs) != 2 || recs[1].target != "https://example.com/a" {
		t.Fatalf("%v %+v", err, recs)
	}
	resp, err := ParseResponse(recs[1].block, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "<html><title>x</title><p>héllo</p></html>" {
		t.Errorf("body %q", resp.Body)
	}
}

func strconvHex(n int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var s []byte
	for ; n > 0; n /= 16 {
		s = append([]byte{digits[n%16]}, s...)
	}
	return string(s)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var s []byte
	for ; n > 0; n /= 10 {
		s = append([]byte{byte('0' + n%10)}, s...)
	}
	return string(s)
}

// FuzzReader: whatever the bytes, the reader ends (EOF or an error) without
// panicking, never returns a record after an error, and reads no block
// past its Content-Length.
func FuzzReader(f *testing.F) {
	gz := written(f, exchanges(2, 5)) // small seeds: the fuzzer mutates them faster
	f.Add(gz)
	f.Add(plain(f, gz))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		for range 10_000 {
			rec, err := r.Next()
			if err != nil {
				if _, again := r.Next(); again == nil {
					t.Fatal("a record after an error")
				}
				return
			}
			block, _ := io.ReadAll(rec.Block)
			if int64(len(block)) > rec.Length {
				t.Fatalf("block of %d bytes read, Content-Length %d", len(block), rec.Length)
			}
			if resp, err := ParseResponse(block, 1<<16); err == nil && (resp == nil || len(resp.Body) > 1<<16) {
				t.Fatal("no response, or one past the limit, without an error")
			}
		}
	})
}
