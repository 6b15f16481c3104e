package web

import (
	"net"
	"net/url"
	"strings"

	"corpus.blog/corpusbot/internal/model"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxSiteInput bounds what ParseSite reads: no host name is longer than 253
// bytes, and a pasted URL with a long path still fits.
const MaxSiteInput = 2048

// InputError is a problem with what a visitor typed. Its message is written
// for that visitor and is shown to them as it is.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(msg string) error { return &InputError{Msg: msg} }

// ParseSite reads a site name as a visitor types it into the opt-out or
// claim form — a host name ("blog.example.com"), a URL
// ("https://blog.example.com/about"), with or without a port, in Unicode or
// punycode — and returns the registrable site it belongs to
// ("example.com"): the unit the crawler's politeness and the opt-out apply
// to. Every host of that site is covered, so a visitor need not know which
// subdomain the crawler read.
func ParseSite(input string) (string, error) {
	if len(input) > MaxSiteInput {
		return "", inputErr("That is too long to be a site name.")
	}
	s := strings.TrimSpace(input)
	if s == "" {
		return "", inputErr("Enter a site name, such as example.com, or any URL of the site.")
	}
	host, err := hostOf(s)
	if err != nil {
		return "", err
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", inputErr("That URL has no host name in it.")
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil || strings.Contains(host, ":") {
		return "", inputErr("That is an IP address. Enter the site's name instead, such as example.com.")
	}
	if isASCII(host) {
		// The plain rules first: their messages say what to fix.
		if err := checkHostname(host); err != nil {
			return "", err
		}
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", inputErr("That is not a valid host name: " + idnaReason(err))
	}
	if err := checkHostname(ascii); err != nil {
		return "", err
	}
	site := model.Site(ascii)
	if site == publicSuffixOf(ascii) {
		return "", inputErr(ascii + " is a public suffix shared by many independent sites. Enter your own site's name under it, such as yourname." + ascii + ".")
	}
	return site, nil
}

// hostOf extracts the host from a URL or a bare host name (with an optional
// port or path).
func hostOf(s string) (string, error) {
	if strings.ContainsAny(s, " \t\r\n\x00") {
		return "", inputErr("A site name has no spaces in it.")
	}
	raw := s
	if i := strings.Index(s, "://"); i >= 0 {
		scheme := strings.ToLower(s[:i])
		if scheme != "http" && scheme != "https" {
			return "", inputErr("Only http and https addresses can be sites.")
		}
	} else {
		raw = "http://" + s
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", inputErr("That does not look like a site name or a web address.")
	}
	if u.User != nil {
		return "", inputErr("Leave out any user name or password; the site's name is enough.")
	}
	return u.Hostname(), nil
}

// checkHostname applies the DNS rules for names of hosts (RFC 1123):
// letters, digits and hyphens, labels of 1 to 63 bytes, 253 bytes in all,
// and at least two labels.
func checkHostname(h string) error {
	if len(h) > 253 {
		return inputErr("That host name is longer than DNS allows.")
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return inputErr("Enter the full site name, with its ending, such as example.com.")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return inputErr("That host name has an empty or over-long part between its dots.")
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return inputErr("A part of a host name cannot start or end with a hyphen.")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return inputErr("A host name holds only letters, digits, hyphens and dots.")
			}
		}
	}
	return nil
}

func idnaReason(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

func publicSuffixOf(host string) string {
	ps, _ := publicsuffix.PublicSuffix(host)
	return ps
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
