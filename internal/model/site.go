package model

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Site is the site rule, the one place it is written: the unit of
// politeness (one request at a time), of the opt-out, of the refusal list
// and of citations, for the fetcher, the store and the public site alike.
// It is the politeness unit a host belongs to: its registrable domain
// (eTLD+1, with the private section of the public suffix list, so
// foo.github.io and bar.github.io are two sites), in lowercase ASCII. IP
// literals, single-label hosts and hosts that are themselves public suffixes
// are their own site. host may carry a port.
func Site(host string) string {
	h := hostOnly(host)
	if h == "" || strings.Contains(h, ":") || net.ParseIP(h) != nil || !strings.Contains(h, ".") {
		return h
	}
	site, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h // the host is a public suffix itself
	}
	return site
}

// hostOnly strips the port and brackets, lowercases, drops a trailing dot and
// converts an internationalised name to its ASCII form, so that every spelling
// of one host shares one lease and one robots.txt.
func hostOnly(host string) string {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if net.ParseIP(h) != nil {
		return strings.ToLower(h)
	}
	if a, err := idna.Lookup.ToASCII(h); err == nil {
		h = a
	}
	return strings.ToLower(h)
}

// OriginOf is the robots.txt cache key of u: scheme, host and port, the port
// always written so that http://x and http://x:80 are one origin.
func OriginOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = DefaultPort(u.Scheme)
	}
	return strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(hostOnly(u.Host), port)
}

// DefaultPort is the port a URL of scheme means when it names none.
func DefaultPort(scheme string) string {
	if strings.EqualFold(scheme, "https") {
		return "443"
	}
	return "80"
}

// SiteOfURL is the Site of a URL's host, or "" when the URL has no host
// (or does not parse): the unit of politeness, of the opt-out and of
// citations, for callers that hold URLs.
func SiteOfURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	return Site(u.Host)
}
