package fetch

import (
	"net/netip"
	"slices"

	"corpus.blog/corpusbot/internal/model"
)

// The fetcher's rules as data, for whoever publishes them (the public
// site's /crawler/policy.json). Each is read from the very table or
// function the fetcher decides by, so what is published cannot drift from
// what is done; each returns a copy the caller may keep.

// RefusedPrefixes lists the address ranges the private-address guard
// refuses (unless ALLOW_PRIVATE), before the IPv6 forms that carry an IPv4
// address are unwrapped (Refused judges those by the address they carry).
func RefusedPrefixes() []netip.Prefix { return slices.Clone(refusedPrefixes) }

// LocalNames lists the names refused without a lookup, each with every
// name under it (RefusedName); single-label names and names whose last
// label is a number are refused as well.
func LocalNames() []string { return slices.Clone(localNames) }

// TypeRule is what the fetcher does with a response of one purpose, by its
// Content-Type, before reading the body.
type TypeRule struct {
	// Any: every type is read (robots.txt, claim and key files, hubs'
	// answers); the lists are then empty.
	Any bool
	// Read lists the media types read as they are.
	Read []string
	// Sniffed lists the media types sites serve this purpose under by
	// mistake: the first bytes decide (sniffLen of them). SniffedSuffixes
	// are the suffixes (+xml) whose types are sniffed too.
	Sniffed         []string
	SniffedSuffixes []string
	// UntypedSniffed: a response with no Content-Type is sniffed too.
	UntypedSniffed bool
}

// ContentTypes is the TypeRule of purpose p: every type the fetcher knows
// put to judgeType, which decides each response. Any other type is closed
// unread (OutcomeWrongType).
func ContentTypes(p model.Purpose) TypeRule {
	// A type no list names nor any rule would take: if it is read, all are.
	if judgeType(p, "x-unlisted/x-unlisted") == typeRight {
		return TypeRule{Any: true}
	}
	var known []string
	for _, m := range []map[string]bool{htmlTypes, feedTypes, sitemapTypes, ambiguousTypes} {
		for t := range m {
			known = append(known, t)
		}
	}
	slices.Sort(known)
	known = slices.Compact(known)
	var r TypeRule
	for _, t := range known {
		switch judgeType(p, t) {
		case typeRight:
			r.Read = append(r.Read, t)
		case typeSniff:
			if t == "" {
				r.UntypedSniffed = true
			} else {
				r.Sniffed = append(r.Sniffed, t)
			}
		}
	}
	if judgeType(p, "x-unlisted/x-unlisted+xml") == typeSniff {
		r.SniffedSuffixes = []string{"+xml"}
	}
	return r
}
