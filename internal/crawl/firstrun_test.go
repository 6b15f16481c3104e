package crawl_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
	"corpus.blog/corpusbot/internal/simweb"
)

// lockedBuffer is a bytes.Buffer safe for the crawler's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A source whose robots.txt does not answer keeps why (the last request's
// failure, not only "robots.txt unreachable"), and a second run, which
// finds nothing due, says in its summary that the source waits for a
// retry, when, and why: the operator is told why nothing happened.
func TestUnreachableSourceSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault http.Handler
		why   string
	}{
		{"503", simweb.Status(http.StatusServiceUnavailable), "robots.txt unreachable: status 503"},
		{"reset", simweb.Reset(), "robots.txt unreachable: connection closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, "")
			h := w.web.Host("down.example")
			h.Robots("User-agent: *\nAllow: /\n")
			h.RobotsFault(1_000_000, tc.fault)
			h.Put("/", htmlType, homepage("/feed"))
			ctx := context.Background()
			src, _, err := w.db.AddSource(ctx, "http://down.example/", w.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			var log lockedBuffer
			w.c.Log = slog.New(slog.NewTextHandler(&log, nil))
			_ = w.c.Once(ctx) // its error, if any, is the round's: not this test's
			got, err := w.db.Source(ctx, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Error != tc.why || !got.Discovered.IsZero() {
				t.Fatalf("source after a run: error %q (discovered %v), want %q", got.Error, got.Discovered, tc.why)
			}
			if !strings.Contains(log.String(), tc.why) {
				t.Errorf("the first run does not say why:\n%s", log.String())
			}

			second := &lockedBuffer{}
			w.c.Log = slog.New(slog.NewTextHandler(second, nil))
			if err := w.c.Once(ctx); err != nil {
				t.Fatalf("second run: %v", err)
			}
			out := second.String()
			for _, want := range []string{"round done", "sites=0", `nothing_due="1 source waiting for a retry, the next at `, "last failure: " + tc.why} {
				if !strings.Contains(out, want) {
					t.Errorf("second run's summary lacks %q:\n%s", want, out)
				}
			}
			if n := len(w.web.RequestsTo("down.example")); n == 0 {
				t.Errorf("no request reached the host")
			}
		})
	}
}

// A round with nothing due says so whatever the reason: no source at all,
// or sources none of which waits for a retry (their intervals have not
// passed).
func TestNothingDueSaysWhy(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	var log lockedBuffer
	w.c.Log = slog.New(slog.NewTextHandler(&log, nil))
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `nothing_due="no source to crawl`) {
		t.Errorf("empty store:\n%s", log.String())
	}

	h := w.web.Host("fine.example")
	h.Robots("User-agent: *\nAllow: /\n")
	h.Put("/", htmlType, homepage("/feed"))
	h.Put("/feed", rssType, rss([]item{{h.URL("/p1"), "One", day0, false}}))
	h.Put("/p1", htmlType, article("One", "the first post", ""))
	if _, _, err := w.db.AddSource(ctx, "http://fine.example/", w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	w.c.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	log = lockedBuffer{}
	w.c.Log = slog.New(slog.NewTextHandler(&log, nil))
	if err := w.c.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `nothing_due="1 source, none waiting for a retry`) {
		t.Errorf("crawled source:\n%s", log.String())
	}
}

// A sitemap cut at the protocol's 50 MB limit stays active with what was
// read, and says so in its note; a whole read clears the note.
func TestTruncatedSitemapNoted(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 51 MB")
	}
	const host = "huge.example"
	w := sitemapWorld(t)
	h := w.web.Host(host)
	h.Robots("User-agent: *\nAllow: /\nSitemap: http://" + host + "/sitemap.xml\n")
	h.Handle("/sitemap.xml", http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "application/xml")
		writePastLimit(rw, largeSitemap(host, numbers(0, 10)), []byte("</urlset>"))
	}))
	src, _, err := w.db.AddSource(context.Background(), "http://"+host+"/", w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	sms := readSitemaps(t, w, src)
	if len(sms) != 1 || sms[0].State != "active" {
		t.Fatalf("sitemaps: %+v", sms)
	}
	if note := sms[0].Note; !strings.Contains(note, "cut at the protocol's limit") || !strings.Contains(note, "larger than 52428800 bytes") ||
		!strings.Contains(note, "first 10 entries kept") {
		t.Errorf("note %q", note)
	}
	if got := postsOf(t, w, src.ID); got[model.PostPending] != 10 {
		t.Errorf("posts %v, want the 10 read before the cut", got)
	}

	w.clock.Advance(25 * time.Hour)
	// Served whole, whatever the validators (a 304 would keep the note:
	// the same bytes are cut at the same place).
	h.Handle("/sitemap.xml", serveBytes(largeSitemap(host, numbers(0, 10)), "Content-Type", "application/xml"))
	sms = readSitemaps(t, w, src)
	if len(sms) != 1 || sms[0].Note != "" {
		t.Errorf("after a whole read: %+v", sms)
	}
}
