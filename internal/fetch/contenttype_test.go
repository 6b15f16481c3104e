package fetch

import (
	"testing"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

func TestMediaType(t *testing.T) {
	cases := map[string]string{
		"text/html; charset=UTF-8":        "text/html",
		"Application/RSS+XML":             "application/rss+xml",
		"":                                "",
		"text/xml; charset=\"utf-8":       "text/xml",
		"text/html;;charset=utf-8":        "text/html",
		"garbage":                         "",
		"application/xml ; charset=utf-8": "application/xml",
	}
	for in, want := range cases {
		if got := MediaType(in); got != want {
			t.Errorf("MediaType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSniff(t *testing.T) {
	cases := map[string]sniffed{
		"<?xml version=\"1.0\"?>\n<urlset>":                        sniffXML,
		"\xef\xbb\xbf<?xml version=\"1.0\"?><rss>":                 sniffXML,
		"<?xml version=\"1.0\"?><!-- c --><?xml-stylesheet?><rss>": sniffXML,
		"<rss version=\"2.0\">":                                    sniffXML,
		"  <!DOCTYPE html><html>":                                  sniffHTML,
		"<!-- hi --><html lang=en>":                                sniffHTML,
		"<?xml version=\"1.0\"?><!DOCTYPE html PUBLIC>":            sniffHTML,
		"<HTML>": sniffHTML,
		"{\"version\": \"https://jsonfeed.org/version/1\"}": sniffJSON,
		"\x1f\x8b\x08\x00": sniffGzip,
		"https://example.com/a\nhttps://example.com/b": sniffURLList,
		"%PDF-1.4": sniffOther,
		"":         sniffOther,
	}
	for in, want := range cases {
		if got := sniff([]byte(in)); got != want {
			t.Errorf("sniff(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestJudgeType(t *testing.T) {
	cases := []struct {
		p    model.Purpose
		mt   string
		want typeVerdict
	}{
		{model.PurposePage, "text/html", typeRight},
		{model.PurposePage, "application/xhtml+xml", typeRight},
		{model.PurposePage, "", typeSniff},
		{model.PurposePage, "application/pdf", typeWrong},
		{model.PurposePage, "image/png", typeWrong},
		{model.PurposeFeed, "application/rss+xml", typeRight},
		{model.PurposeFeed, "text/html", typeSniff},
		{model.PurposeFeed, "application/octet-stream", typeSniff},
		{model.PurposeFeed, "image/png", typeWrong},
		{model.PurposeSitemap, "application/x-gzip", typeRight},
		{model.PurposeSitemap, "text/plain", typeSniff},
		{model.PurposeSitemap, "text/html", typeSniff},
		{model.PurposeCatalogue, "application/atom+xml", typeRight},
		{model.PurposeRobots, "text/html", typeRight},
	}
	for _, c := range cases {
		if got := judgeType(c.p, c.mt); got != c.want {
			t.Errorf("judgeType(%s, %q) = %d, want %d", c.p, c.mt, got, c.want)
		}
	}
}

func FuzzContentType(f *testing.F) {
	for _, s := range []string{"text/html; charset=utf-8", "application/rss+xml", "", "a/b; c=\"d", ";;;", "text/html\x00"} {
		f.Add(s, []byte("<?xml version=\"1.0\"?><rss>"))
	}
	f.Add("text/plain", []byte("<!DOCTYPE html>"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		mt := MediaType(ct)
		if mt != "" && MediaType(mt) != mt {
			t.Fatalf("MediaType(%q) = %q is not a fixed point", ct, mt)
		}
		s := sniff(body)
		for _, p := range []model.Purpose{model.PurposePage, model.PurposeFeed, model.PurposeSitemap, model.PurposeCatalogue, model.PurposeRobots} {
			v := judgeType(p, mt)
			if p == model.PurposePage && v == typeRight && !htmlTypes[mt] {
				t.Fatalf("page accepted %q", mt)
			}
			if p == model.PurposePage && v == typeSniff && sniffAccepts(p, s) && s != sniffHTML {
				t.Fatalf("page accepted sniffed %d", s)
			}
		}
	})
}

func TestBackoff(t *testing.T) {
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var b backoff
	fail := answer{status: 500, failed: true, end: end, duration: time.Millisecond}
	var gaps []time.Duration
	for range 14 {
		b = b.update(fail, time.Second, 2*time.Second, 4)
		gaps = append(gaps, b.gap)
	}
	if gaps[0] != 2*time.Second || gaps[1] != 4*time.Second || gaps[len(gaps)-1] != MaxBackoff {
		t.Errorf("gaps %v", gaps)
	}
	ok := answer{status: 200, end: end, duration: time.Millisecond}
	for range 20 {
		b = b.update(ok, time.Second, 2*time.Second, 4)
	}
	if b.gap != 0 {
		t.Errorf("gap %v after successes", b.gap)
	}
	slow := answer{status: 200, end: end, duration: 5 * time.Second}
	if b = b.update(slow, time.Second, 2*time.Second, 4); b.gap != 20*time.Second {
		t.Errorf("slow: gap %v, want 20s", b.gap)
	}
	if n := b.next(end, time.Minute); !n.Equal(end.Add(time.Minute)) {
		t.Errorf("next %v: the floor (Crawl-delay) should win", n)
	}
}

func TestRefusalState(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var s model.RefusalState
	for range 2 {
		s = refusalAfter(s, 403, now)
	}
	if s.Refused {
		t.Fatal("listed after two 403s")
	}
	s = refusalAfter(s, 403, now)
	if !s.Refused || mayAsk(s, now.Add(time.Hour), 168*time.Hour) || !mayAsk(s, now.Add(168*time.Hour), 168*time.Hour) {
		t.Fatalf("after three 403s: %+v", s)
	}
	s = refusalAfter(s, 200, now)
	if s.Refused || s.Consecutive403 != 0 || !s.Served {
		t.Fatalf("after a success: %+v", s)
	}
	var t2 model.RefusalState
	for _, status := range []int{403, 404, 403, 403} {
		t2 = refusalAfter(t2, status, now)
	}
	if t2.Refused {
		t.Error("403s not in a row listed the site")
	}
}
