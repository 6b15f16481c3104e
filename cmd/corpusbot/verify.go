package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"

	"corpus.blog/corpusbot/internal/verify"
)

func verifyCommand(env environment, args []string) error {
	return verifyIP(env, args, net.DefaultResolver)
}

// verifyIP is `corpusbot verify` with its resolver given, so that tests
// need no real DNS.
func verifyIP(env environment, args []string, res verify.Resolver) error {
	fs := newFlags("verify", "verify [--verify-domain DOMAIN,...] IP\n\n"+
		"Checks whether a request from IP came from this crawler, by forward-confirmed reverse DNS:\n"+
		"the address's reverse name must end in one of the domains, and that name must resolve back\n"+
		"to the address. Prints one verdict line; exits 0 when verified, 1 when not.")
	domains := fs.String("verify-domain", "", verifyDomainUsage+"; --domain, its former name, is still accepted")
	// The name serve has always used for the same domains: one name for
	// both commands, the old one kept for the command lines that use it.
	fs.alias("domain", "verify-domain")
	timeout := fs.Duration("timeout", 10*time.Second, "the most the DNS lookups may take")
	configPath := crawlFlags(fs, "USER_AGENT")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return usageError("want one IP address (see --help)")
	}
	ip, err := netip.ParseAddr(positional[0])
	if err != nil {
		return usageError("%q is not an IP address", positional[0])
	}
	allowed := splitList(*domains)
	if len(allowed) == 0 {
		s, err := loadSettings(env, *configPath, fs.FlagSet)
		if err != nil {
			return err
		}
		d := verify.UserAgentDomain(s.UserAgent)
		if d == "" {
			return usageError("the user agent names no URL to take a domain from: give --verify-domain")
		}
		allowed = []string{d}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	r, err := verify.Check(ctx, res, ip, allowed)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, r.Verdict())
	if !r.Verified {
		return &exitError{code: exitFailure, err: errors.New("not verified: " + r.Reason)}
	}
	return nil
}
