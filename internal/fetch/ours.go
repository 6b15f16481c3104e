package fetch

import (
	"errors"
	"net"
	"syscall"
)

// Failures of our own. Two failures say nothing of the site, and are never
// stored as its answer (no robots.txt guess, no back-off, no refusal
// record):
//
//   - the private-address guard's refusal (GuardRefused): a decision of
//     this crawler under ALLOW_PRIVATE, which holds until the operator
//     changes the setting; the request fails with the guard's error and is
//     not transient. A target to be handed to a proxy whose name our
//     resolver cannot resolve, with PROXY_DNS=local, is one too
//     (ErrUnresolvedTarget): the guard could not judge it, and the failure
//     is our resolver's, not the site's (the proxy would have resolved
//     it);
//   - our own network reaching nothing (OurNetworkFailed): the resolver
//     failing rather than answering, or no route to the network or host.
//     The request fails transiently and is retried on the retry schedule,
//     without a robots.txt entry cached for hours over a passing outage.
//
// A robots.txt that the site's server fails to give (a 5xx, a reset, a
// timeout, a refused connection, a name that does not exist) stays the
// site's answer under RFC 9309: unreachable, crawling paused there. On a
// direct dial a name that does not exist ("no such host", NXDOMAIN) is the
// site's answer: its DNS, which our resolver asked, says it is gone, and it
// is retried as a fault that says "try later".

// GuardRefused reports whether err is the private-address guard's refusal
// of every address the request could go to: a failure in which one
// address was refused and another failed on the network is the network's.
func GuardRefused(err error) bool {
	return every(err, guardLeaf)
}

// guardLeaf reports whether e is one of the guard's refusals.
func guardLeaf(e error) bool { return e == ErrPrivateAddress || e == ErrUnresolvedTarget }

// OurNetworkFailed reports whether err is a failure of the crawler's own
// network for every address tried (the guard's refusals aside): a DNS
// lookup that failed without an answer (a timeout or a temporary failure
// of the resolver, not "no such host"), or a dial that found no route
// (ENETUNREACH, EHOSTUNREACH).
func OurNetworkFailed(err error) bool {
	network := false
	all := every(err, func(e error) bool {
		if guardLeaf(e) {
			return true
		}
		if ourNetworkError(e) {
			network = true
			return true
		}
		return false
	})
	return all && network
}

func ourNetworkError(e error) bool {
	if errno, ok := e.(syscall.Errno); ok {
		return errno == syscall.ENETUNREACH || errno == syscall.EHOSTUNREACH
	}
	if dns, ok := e.(*net.DNSError); ok {
		return !dns.IsNotFound && (dns.IsTemporary || dns.IsTimeout)
	}
	return false
}

// every reports whether the chain of err ends, on every branch of a join
// (a dial that tried several addresses), in an error leaf accepts; a
// branch is decided by its first error leaf accepts, searching from the
// outside in.
func every(err error, leaf func(error) bool) bool {
	for err != nil {
		if leaf(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			errs := u.Unwrap()
			for _, e := range errs {
				if !every(e, leaf) {
					return false
				}
			}
			return len(errs) > 0
		default:
			err = errors.Unwrap(err)
		}
	}
	return false
}
