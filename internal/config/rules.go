package config

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/clientip"
)

// rule is a bound on one setting. desc goes into the help text, so the
// documented limits cannot drift from the enforced ones; for a string
// setting it is the only description of what is accepted (stringKind says
// nothing), so its `backquoted` word, if any, names the flag's argument.
type rule[T any] struct {
	desc  string
	check func(T) error
	// floor, when set, names the production floor that an accepted v is
	// under ("1m"), or returns "" when v is above it: such a value is
	// legal but draws a warning (Settings.Warnings).
	floor func(v T) string
}

func within[T cmp.Ordered](lo, hi T, show func(T) string) rule[T] {
	return rule[T]{
		desc: "from " + show(lo) + " to " + show(hi),
		check: func(v T) error {
			if v < lo {
				return fmt.Errorf("must be at least %s", show(lo))
			}
			if v > hi {
				return fmt.Errorf("must be at most %s", show(hi))
			}
			return nil
		},
	}
}

// compressible is the bound of an interval or a TTL: any duration from 0
// (always due, never cached) up to hi, so that a simulation can run days
// in seconds from outside the binary. Below floor, the least that makes
// sense on the real web, a value is accepted with a warning, since there
// it would only multiply requests. hi stays a hard limit where it exists
// for safety (RFC 9309's 24 hours for robots.txt).
func compressible(floor, hi time.Duration) rule[time.Duration] {
	r := within(0, hi, formatDuration)
	r.desc += ", under " + formatDuration(floor) + " for simulations only"
	r.floor = func(v time.Duration) string {
		if v < floor {
			return formatDuration(floor)
		}
		return ""
	}
	return r
}

// positiveUpTo exists for the politeness gaps: zero would switch the pause
// off, while any small positive value is the operator's call.
func positiveUpTo(hi time.Duration) rule[time.Duration] {
	return rule[time.Duration]{
		desc: "more than 0 and at most " + formatDuration(hi),
		check: func(v time.Duration) error {
			if v <= 0 {
				return errors.New("must be more than 0 (the pause cannot be switched off)")
			}
			if v > hi {
				return fmt.Errorf("must be at most %s", formatDuration(hi))
			}
			return nil
		},
	}
}

func anyValue[T any]() rule[T] { return rule[T]{check: func(T) error { return nil }} }

const maxUserAgent = 512

var userAgentRule = rule[string]{
	desc: "a `string` starting with a product token of letters, _ or -, then \"/\" and a version, as in CorpusBot/1.0; printable ASCII, at most 512 bytes",
	check: func(ua string) error {
		if ua == "" {
			return errors.New("must not be empty")
		}
		if len(ua) > maxUserAgent {
			return fmt.Errorf("is %d bytes, must be at most %d", len(ua), maxUserAgent)
		}
		// A CR or LF here would let the setting inject request headers.
		for _, r := range ua {
			if r < 0x20 || r > 0x7e {
				return fmt.Errorf("must be printable ASCII, found %q", r)
			}
		}
		token := Settings{UserAgent: ua}.ProductToken()
		rest := ua[len(token):]
		if token == "" || !strings.HasPrefix(rest, "/") || len(rest) == 1 || rest[1] == ' ' {
			return fmt.Errorf("%q must start with a product token and version such as \"CorpusBot/1.0\"", ua)
		}
		return nil
	},
}

var dbRule = rule[string]{
	desc: "a SQLite file `path` or a postgres:// URL",
	check: func(db string) error {
		if strings.TrimSpace(db) == "" {
			return errors.New("must not be empty")
		}
		scheme, _, isURL := strings.Cut(db, "://")
		if !isURL {
			return nil
		}
		if s := strings.ToLower(scheme); s != "postgres" && s != "postgresql" {
			return fmt.Errorf("unsupported database URL scheme %q (want a file path or postgres://)", scheme)
		}
		if _, err := url.Parse(db); err != nil {
			// url.Error quotes the whole URL, password included; keep only the reason.
			var uerr *url.Error
			if errors.As(err, &uerr) {
				err = uerr.Err
			}
			return fmt.Errorf("invalid postgres URL: %w", err)
		}
		return nil
	},
}

// choice is one word a oneOf setting accepts, with what it means ("" when
// the word says it).
type choice struct{ word, means string }

// oneOf accepts exactly the words of choices. Its desc lists them once,
// each with its meaning: "text (key=value) or json (one object a line)".
func oneOf(choices ...choice) rule[string] {
	words := make([]string, len(choices))
	described := make([]string, len(choices))
	for i, c := range choices {
		words[i], described[i] = c.word, c.word
		if c.means != "" {
			described[i] += " (" + c.means + ")"
		}
	}
	desc := described[len(described)-1]
	if n := len(described); n > 1 {
		desc = strings.Join(described[:n-1], ", ") + " or " + desc
	}
	return rule[string]{
		desc: desc,
		check: func(v string) error {
			if slices.Contains(words, v) {
				return nil
			}
			return fmt.Errorf("must be one of %s", strings.Join(words, ", "))
		},
	}
}

// publicURLRule accepts "" or an absolute http(s) URL with a host: hubs
// are given callbacks under it.
var publicURLRule = rule[string]{
	desc: "an absolute http or https `URL`, or empty",
	check: func(v string) error {
		if v == "" {
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%q is not an absolute http or https URL", v)
		}
		return nil
	},
}

// trustedProxiesRule accepts what clientip.ParseTrusted reads.
var trustedProxiesRule = rule[string]{
	desc: "`CIDRs` or addresses, comma-separated, or empty",
	check: func(v string) error {
		_, err := clientip.ParseTrusted(v)
		return err
	},
}

// networksRule accepts what clientip.ParseNetworks reads.
var networksRule = rule[string]{
	desc: "`CIDRs` or addresses, comma-separated (empty: none)",
	check: func(v string) error {
		_, err := clientip.ParseNetworks(v)
		return err
	},
}

// warcDirRule accepts "" or a local directory path. A URL is refused
// rather than taken for a strange relative path (s3://bucket/warc would
// make a directory named "s3:"), and so is a control character, which no
// operator means in a file name.
var warcDirRule = rule[string]{
	desc: "a directory `path` (not a URL, no control characters), or empty",
	check: func(v string) error {
		if v == "" {
			return nil
		}
		if strings.TrimSpace(v) == "" {
			return errors.New("must be empty or a directory path, not blanks")
		}
		if scheme, _, ok := strings.Cut(v, "://"); ok && scheme != "" && !strings.ContainsAny(scheme, `/\`) {
			return fmt.Errorf("%q is a URL: WARC files are written to a local directory", v)
		}
		for _, r := range v {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("must not contain the control character %q", r)
			}
		}
		return nil
	},
}
