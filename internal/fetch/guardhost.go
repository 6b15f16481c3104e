package fetch

import (
	"net/netip"
	"strings"
)

// RefusedHost is the guard's verdict on host (a URL's Hostname) from its
// spelling alone, with no lookup, for those who must judge a URL before any
// fetch (sources add warns of what the crawl will refuse): an IP literal is
// judged by its address (Refused), a name by the guard's rule for names
// (RefusedName: localhost, *.local, *.internal and the like). Any other
// name is not refused here: only the guard's lookup, at fetch time, can
// judge it. why says what kind of address or name was refused, for a
// message.
func RefusedHost(host string) (refused bool, why string) {
	// A name that is not ASCII is judged in every form it may be sent in
	// (hostForms), as the guard judges it at fetch time.
	forms, _ := hostForms(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	for _, h := range forms {
		if refused, why := refusedSpelling(h); refused {
			return true, why
		}
	}
	return false, ""
}

// refusedSpelling is RefusedHost for one spelling of the host.
func refusedSpelling(h string) (refused bool, why string) {
	if a, err := netip.ParseAddr(h); err == nil {
		if !Refused(a) {
			return false, ""
		}
		a = a.WithZone("").Unmap()
		switch {
		case a.IsLoopback():
			return true, "a loopback address"
		case a.IsPrivate():
			return true, "a private address"
		case a.IsLinkLocalUnicast():
			return true, "a link-local address"
		case a.IsUnspecified():
			return true, "the unspecified address"
		case a.IsMulticast():
			return true, "a multicast address"
		}
		return true, "an address reserved for non-public use"
	}
	if RefusedName(h) {
		return true, "a name no public site has"
	}
	return false, ""
}
