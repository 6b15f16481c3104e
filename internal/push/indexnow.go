package push

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// IndexNow (https://www.indexnow.org/documentation): a site owner proves
// control of a host with a key file (https://host/<key>.txt, or the file
// keyLocation names on the same host) and submits URLs of that host.

// MaxURLs is the most URLs one submission may carry (the protocol's
// 10,000 per POST).
const MaxURLs = 10000

// MaxKeyFile is the most of a key file that is read: a key and a newline.
const MaxKeyFile = 1024

// Errors a submission can have; the receiver maps them to the protocol's
// status codes (ErrBadKey and ErrForeignURL: 422, the rest: 400).
var (
	ErrBadRequest = errors.New("IndexNow request unreadable")
	ErrBadKey     = errors.New("IndexNow key not in the protocol's format")
	ErrForeignURL = errors.New("URL not on the submitting host")
)

// ValidKey reports whether key has the protocol's form: 8 to 128
// characters of a-z, A-Z, 0-9 and "-".
func ValidKey(key string) bool {
	if len(key) < 8 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Submission is one IndexNow request, from a POST's JSON body or a GET's
// query (?url=&key=&keyLocation=).
type Submission struct {
	Host        string   `json:"host"`
	Key         string   `json:"key"`
	KeyLocation string   `json:"keyLocation"`
	URLList     []string `json:"urlList"`
}

// ParseSubmission reads a POST body (application/json). It checks the
// form of every field, not the key file: host is a bare host name, the key
// is ValidKey, there are 1 to MaxURLs URLs. Hosts are lowercased.
func ParseSubmission(body []byte) (Submission, error) {
	var s Submission
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return s, fmt.Errorf("%w: more than one JSON value", ErrBadRequest)
	}
	return s, s.check()
}

// FromQuery is a GET submission: one url, its key, perhaps a keyLocation;
// the host is the URL's.
func FromQuery(q url.Values) (Submission, error) {
	s := Submission{Key: q.Get("key"), KeyLocation: q.Get("keyLocation")}
	if raw := q.Get("url"); raw != "" {
		s.URLList = []string{raw}
		if u, err := url.Parse(raw); err == nil {
			s.Host = u.Host
		}
	}
	return s, s.check()
}

func (s *Submission) check() error {
	s.Host = strings.ToLower(strings.TrimSpace(s.Host))
	if s.Host == "" || strings.ContainsAny(s.Host, "/?#@ \t") {
		return fmt.Errorf("%w: host %q", ErrBadRequest, s.Host)
	}
	if u, err := url.Parse("https://" + s.Host + "/"); err != nil || u.Host != s.Host {
		return fmt.Errorf("%w: host %q", ErrBadRequest, s.Host)
	}
	if len(s.URLList) == 0 {
		return fmt.Errorf("%w: no URL", ErrBadRequest)
	}
	if len(s.URLList) > MaxURLs {
		return fmt.Errorf("%w: %d URLs, at most %d", ErrBadRequest, len(s.URLList), MaxURLs)
	}
	if !ValidKey(s.Key) {
		return ErrBadKey
	}
	return nil
}

// KeyFileURL is where the submission's key must be found: keyLocation
// when given (which must be an http(s) URL on the submitting host, or the
// protocol's check would prove nothing), else https://host/<key>.txt.
func (s Submission) KeyFileURL() (string, error) {
	if s.KeyLocation == "" {
		return "https://" + s.Host + "/" + s.Key + ".txt", nil
	}
	u, err := url.Parse(strings.TrimSpace(s.KeyLocation))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, s.Host) {
		return "", fmt.Errorf("%w: keyLocation %q is not on %s", ErrForeignURL, s.KeyLocation, s.Host)
	}
	return u.String(), nil
}

// KeyMatches reports whether a key file's content is the key: the file
// holds the key alone (surrounding white space, a BOM, are allowed).
func KeyMatches(file []byte, key string) bool {
	file = bytes.TrimPrefix(file, []byte("\xef\xbb\xbf"))
	return string(bytes.TrimSpace(file)) == key
}

// SplitURLs parts the submitted URLs into those on the submitting host
// (absolute http(s) URLs whose host is Host, fragment dropped) and the
// rest.
func (s Submission) SplitURLs() (own, foreign []string) {
	for _, raw := range s.URLList {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, s.Host) {
			foreign = append(foreign, raw)
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		u.Host = strings.ToLower(u.Host)
		own = append(own, u.String())
	}
	return own, foreign
}
