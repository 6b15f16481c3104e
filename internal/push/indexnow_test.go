package push

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestValidKey(t *testing.T) {
	for key, want := range map[string]bool{
		"abcd1234": true, "ABC-def-0123456789": true, strings.Repeat("a", 128): true,
		"abc1234": false, strings.Repeat("a", 129): false, "abcd_1234": false, "abcd 1234": false, "ключключключ": false, "": false,
	} {
		if ValidKey(key) != want {
			t.Errorf("ValidKey(%q) = %v", key, !want)
		}
	}
}

func TestParseSubmission(t *testing.T) {
	s, err := ParseSubmission([]byte(`{"host":"Blog.Example","key":"abcd1234","keyLocation":"https://blog.example/k/abcd1234.txt","urlList":["https://blog.example/a","https://blog.example/b#x","https://other.example/c","/rel"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Host != "blog.example" {
		t.Errorf("host %q", s.Host)
	}
	own, foreign := s.SplitURLs()
	if fmt.Sprint(own) != "[https://blog.example/a https://blog.example/b]" || len(foreign) != 2 {
		t.Errorf("own %v, foreign %v", own, foreign)
	}
	if u, err := s.KeyFileURL(); err != nil || u != "https://blog.example/k/abcd1234.txt" {
		t.Errorf("key file %q, %v", u, err)
	}
	s.KeyLocation = ""
	if u, _ := s.KeyFileURL(); u != "https://blog.example/abcd1234.txt" {
		t.Errorf("default key file %q", u)
	}
	s.KeyLocation = "https://evil.example/abcd1234.txt"
	if _, err := s.KeyFileURL(); !errors.Is(err, ErrForeignURL) {
		t.Errorf("keyLocation off the host: %v", err)
	}
	for body, want := range map[string]error{
		`{`: ErrBadRequest,
		`{"host":"a.example","key":"abcd1234","urlList":[]}`:                        ErrBadRequest,
		`{"host":"a.example/x","key":"abcd1234","urlList":["https://a.example/"]}`:  ErrBadRequest,
		`{"host":"a.example","key":"abc","urlList":["https://a.example/"]}`:         ErrBadKey,
		`{"host":"a.example","key":"abcd1234","urlList":["https://a.example/"]} {}`: ErrBadRequest,
	} {
		if _, err := ParseSubmission([]byte(body)); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", body, err, want)
		}
	}
	many := `{"host":"a.example","key":"abcd1234","urlList":[` + strings.Repeat(`"https://a.example/",`, MaxURLs) + `"https://a.example/"]}`
	if _, err := ParseSubmission([]byte(many)); !errors.Is(err, ErrBadRequest) {
		t.Errorf("%d URLs: %v", MaxURLs+1, err)
	}
}

func TestFromQuery(t *testing.T) {
	s, err := FromQuery(url.Values{"url": {"https://blog.example/p?q=1"}, "key": {"abcd1234"}})
	if err != nil || s.Host != "blog.example" || len(s.URLList) != 1 {
		t.Fatalf("%+v, %v", s, err)
	}
	if _, err := FromQuery(url.Values{"key": {"abcd1234"}}); !errors.Is(err, ErrBadRequest) {
		t.Errorf("no url: %v", err)
	}
}

func TestKeyMatches(t *testing.T) {
	if !KeyMatches([]byte("\xef\xbb\xbfabcd1234\r\n"), "abcd1234") || KeyMatches([]byte("abcd1234 extra"), "abcd1234") || KeyMatches(nil, "abcd1234") {
		t.Error("KeyMatches")
	}
}

// FuzzParseSubmission: never panics; an accepted submission has a bare
// lowercase host, a valid key, 1 to MaxURLs URLs, and its URLs split
// into the host's own (absolute, on the host) and the rest.
func FuzzParseSubmission(f *testing.F) {
	f.Add([]byte(`{"host":"blog.example","key":"abcd1234","urlList":["https://blog.example/a"]}`))
	f.Add([]byte(`{"host":"B.example:8080","key":"abcd-1234","keyLocation":"http://b.example:8080/k.txt","urlList":["http://b.example:8080/a","x"]}`))
	f.Add([]byte(`{"host":"","key":"","urlList":null}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := ParseSubmission(body)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrBadKey) {
				t.Fatalf("error %v of no kind", err)
			}
			return
		}
		if s.Host != strings.ToLower(s.Host) || strings.ContainsAny(s.Host, "/?#@ ") || !ValidKey(s.Key) || len(s.URLList) == 0 || len(s.URLList) > MaxURLs {
			t.Fatalf("accepted %+v", s)
		}
		own, foreign := s.SplitURLs()
		if len(own)+len(foreign) != len(s.URLList) {
			t.Fatalf("split %d+%d of %d", len(own), len(foreign), len(s.URLList))
		}
		for _, raw := range own {
			u, err := url.Parse(raw)
			if err != nil || u.Host != s.Host {
				t.Fatalf("own URL %q not on %q", raw, s.Host)
			}
		}
		if file, err := s.KeyFileURL(); err == nil {
			if u, err := url.Parse(file); err != nil || !strings.EqualFold(u.Host, s.Host) {
				t.Fatalf("key file %q off %q", file, s.Host)
			}
		}
	})
}
