package logging

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestJSONLine(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "INFO", "JSON")
	if err != nil {
		t.Fatal(err)
	}
	log.Info("round done", "sites", 3)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("not one JSON object: %v: %q", err, buf.String())
	}
	for _, key := range []string{"level", "msg", "time"} {
		if _, ok := line[key]; !ok {
			t.Errorf("JSON line has no %q: %v", key, line)
		}
	}
	if line["msg"] != "round done" || line["level"] != "INFO" || line["sites"] != float64(3) {
		t.Errorf("JSON line = %v", line)
	}
	if _, err := time.Parse(time.RFC3339Nano, line["time"].(string)); err != nil {
		t.Errorf("time %v: %v", line["time"], err)
	}
}

func TestLevels(t *testing.T) {
	for _, c := range []struct {
		level              string
		debug, info, warn  bool
		errorLinesExpected bool
	}{
		{"debug", true, true, true, true},
		{"", false, true, true, true},
		{"info", false, true, true, true},
		{"Warn", false, false, true, true},
		{"ERROR", false, false, false, true},
	} {
		for _, format := range []string{"", "text", "json"} {
			var buf bytes.Buffer
			log, err := New(&buf, c.level, format)
			if err != nil {
				t.Fatalf("New(%q, %q): %v", c.level, format, err)
			}
			log.Debug("d-line")
			log.Info("i-line")
			log.Warn("w-line")
			log.Error("e-line")
			out := buf.String()
			for word, want := range map[string]bool{"d-line": c.debug, "i-line": c.info, "w-line": c.warn, "e-line": c.errorLinesExpected} {
				if got := strings.Contains(out, word); got != want {
					t.Errorf("level %q format %q: %s logged = %v, want %v", c.level, format, word, got, want)
				}
			}
			if format == "json" && !strings.HasPrefix(out, "{") {
				t.Errorf("format json wrote %q", out)
			}
			if format != "json" && out != "" && !strings.HasPrefix(out, "time=") {
				t.Errorf("format %q wrote %q, want text", format, out)
			}
		}
	}
}

func TestUnknownWordsNameTheAllowedOnes(t *testing.T) {
	if _, err := New(io.Discard, "verbose", "text"); err == nil ||
		!strings.Contains(err.Error(), `"verbose"`) || !strings.Contains(err.Error(), "debug, info, warn, error") {
		t.Errorf("unknown level: err = %v", err)
	}
	if _, err := New(io.Discard, "info", "logfmt"); err == nil ||
		!strings.Contains(err.Error(), `"logfmt"`) || !strings.Contains(err.Error(), "text, json") {
		t.Errorf("unknown format: err = %v", err)
	}
}

func TestAccessLog(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello, world") })
	mux.HandleFunc("/teapot", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("short"))
		w.Write([]byte(" and stout"))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/hints", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusCreated)
	})
	var buf bytes.Buffer
	log, err := New(&buf, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	logged := AccessLog(mux, log, func(r *http.Request) string { return "198.51.100.7" })
	// served says the access line is written: the client may have its
	// answer before the handler returns.
	served := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logged.ServeHTTP(w, r)
		served <- struct{}{}
	}))
	defer srv.Close()

	for _, c := range []struct {
		target string
		status int
		bytes  int
	}{
		{"/hello?token=secret", 200, 12},
		{"/teapot", 418, 15},
		{"/empty", 200, 0},
		{"/hints", 201, 0},
		{"/missing", 404, len("404 page not found\n")},
	} {
		buf.Reset()
		res, err := http.Get(srv.URL + c.target)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		<-served
		if res.StatusCode != c.status {
			t.Fatalf("%s: handler answered %d", c.target, res.StatusCode)
		}
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
			t.Fatalf("%s: access line %q: %v", c.target, buf.String(), err)
		}
		path, _, _ := strings.Cut(c.target, "?")
		if line["level"] != "INFO" || line["method"] != "GET" || line["path"] != path ||
			line["status"] != float64(c.status) || line["bytes"] != float64(c.bytes) ||
			line["client"] != "198.51.100.7" {
			t.Errorf("%s: access line %v, want status %d bytes %d", c.target, line, c.status, c.bytes)
		}
		if _, ok := line["duration"].(float64); !ok {
			t.Errorf("%s: no duration: %v", c.target, line)
		}
		if strings.Contains(buf.String(), "secret") {
			t.Errorf("%s: the query was logged: %s", c.target, buf.String())
		}
	}
}

func TestAccessLogDefaultsToRemoteAddr(t *testing.T) {
	var buf bytes.Buffer
	log, _ := New(&buf, "", "")
	h := AccessLog(http.NotFoundHandler(), log, nil)
	req := httptest.NewRequest("POST", "/x", nil)
	req.RemoteAddr = "203.0.113.9:4242"
	h.ServeHTTP(httptest.NewRecorder(), req)
	line := buf.String()
	for _, want := range []string{"msg=request", "method=POST", "path=/x", "status=404", "client=203.0.113.9:4242"} {
		if !strings.Contains(line, want) {
			t.Errorf("access line %q lacks %s", line, want)
		}
	}
}

// TestAccessLogKeepsFlush checks that a streaming handler can still flush
// through the recorder (http.ResponseController unwraps it).
func TestAccessLogKeepsFlush(t *testing.T) {
	log, _ := New(io.Discard, "", "")
	flushed := make(chan struct{})
	srv := httptest.NewServer(AccessLog(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
		<-flushed
		io.WriteString(w, "second\n")
	}), log, nil))
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := bufio.NewReader(res.Body)
	first, err := r.ReadString('\n')
	if err != nil || first != "first\n" {
		t.Fatalf("first line %q before the handler finished: %v", first, err)
	}
	close(flushed)
	if rest, _ := io.ReadAll(r); string(rest) != "second\n" {
		t.Errorf("rest = %q", rest)
	}
}
