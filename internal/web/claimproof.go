package web

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"

	"corpus.blog/corpusbot/internal/model"
)

// TXTResolver looks up DNS TXT records; *net.Resolver is one. Tests use a
// fake, so that no test asks real DNS.
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// ClaimFetcher reads a site's well-known claim file. The crawler's one
// polite fetcher stands behind it (robots.txt, the per-site pace, the
// address guard, BODY_MAX): the site never opens connections itself.
//
// FetchClaimFile GETs rawURL and returns the body of a 200 answer, at most
// MaxClaimFile bytes of it (more may be cut). Any other answer — another
// status, a robots.txt disallow, a redirect to another site, a network
// failure — is an error whose message is shown to the site's owner, so it
// should say what happened in a few words ("404 Not Found", "disallowed by
// robots.txt").
type ClaimFetcher interface {
	FetchClaimFile(ctx context.Context, rawURL string) ([]byte, error)
}

// MaxClaimFile is the most of a claim file that is read.
const MaxClaimFile = 4096

// maxToken bounds what is read as a token (ours are 26 characters), so that
// a token fits a line in either form.
const maxToken = 200

// Names of the proofs.
const (
	claimDNSPrefix = "_corpusbot-claim."
	claimTXTKey    = "corpusbot-claim="
	claimFilePath  = "/.well-known/corpusbot-claim.txt"
	methodDNS      = "dns"
	methodFile     = "file"
)

// ParseClaimFile lists the tokens a claim file holds. One token a line,
// either bare or as corpusbot-claim=TOKEN (the same words as the TXT
// record, so one text can be pasted into both); blank lines and lines
// starting with # are skipped; a UTF-8 byte-order mark and CRLF line ends are
// tolerated. Only the first MaxClaimFile bytes and the first 64 lines are
// read, and over-long lines are skipped, so a hostile file costs nothing.
func ParseClaimFile(body []byte) []string {
	if len(body) > MaxClaimFile {
		body = body[:MaxClaimFile]
	}
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 512), MaxClaimFile+1)
	for n := 0; sc.Scan() && n < 64; n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || len(line) > 256 {
			continue
		}
		if tok, ok := parseClaimTXT(line); ok {
			out = append(out, tok)
		} else if !strings.Contains(line, "=") && tokenShaped(line) {
			out = append(out, line)
		}
	}
	return out
}

// parseClaimTXT reads "corpusbot-claim=TOKEN" (the key in any case, spaces
// around the token ignored).
func parseClaimTXT(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if len(v) < len(claimTXTKey) || !strings.EqualFold(v[:len(claimTXTKey)], claimTXTKey) {
		return "", false
	}
	tok := strings.TrimSpace(v[len(claimTXTKey):])
	return tok, tokenShaped(tok)
}

// tokenShaped accepts what could be a token: printable ASCII, no spaces.
// Anything else (a sentence, an HTML error page) is not read as one.
func tokenShaped(s string) bool {
	if s == "" || len(s) > maxToken {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// sameToken compares in constant time: the token is not secret once
// published, but a claim not yet published should not leak by timing.
func sameToken(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// proofTimeout bounds each proof attempt, so that a slow DNS server or site
// cannot hold a request open.
const proofTimeout = 20 * time.Second

// prove tries the DNS record, then the well-known file on the site and on
// its www host. It returns the method that proved control ("" when none did)
// and, for the owner, a line per attempt saying what was found.
func (s *Server) prove(ctx context.Context, c model.Claim) (string, []string) {
	var notes []string
	name := claimDNSPrefix + c.Site
	if s.opt.Resolver == nil {
		notes = append(notes, "DNS: this server cannot look up DNS records; use the file.")
	} else {
		tctx, cancel := context.WithTimeout(ctx, proofTimeout)
		recs, err := s.opt.Resolver.LookupTXT(tctx, name)
		cancel()
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("DNS: no TXT record found at %s.", name))
		default:
			for _, v := range recs {
				if tok, ok := parseClaimTXT(v); ok && sameToken(tok, c.Token) {
					return methodDNS, append(notes, "DNS: the TXT record at "+name+" holds this claim's token.")
				}
			}
			notes = append(notes, fmt.Sprintf("DNS: %d TXT record(s) at %s, none holding this claim's token.", len(recs), name))
		}
	}
	if s.opt.ClaimFetcher == nil {
		return "", append(notes, "File: this server cannot fetch claim files; use DNS.")
	}
	for _, u := range claimFileURLs(c.Site) {
		tctx, cancel := context.WithTimeout(ctx, proofTimeout)
		body, err := s.opt.ClaimFetcher.FetchClaimFile(tctx, u)
		cancel()
		if err != nil {
			notes = append(notes, fmt.Sprintf("File: %s: %s.", u, oneLineErr(err)))
			continue
		}
		for _, tok := range ParseClaimFile(body) {
			if sameToken(tok, c.Token) {
				return methodFile, append(notes, "File: "+u+" holds this claim's token.")
			}
		}
		notes = append(notes, fmt.Sprintf("File: %s was read, but does not hold this claim's token.", u))
	}
	return "", notes
}

func claimFileURLs(site string) []string {
	return []string{"https://" + site + claimFilePath, "https://www." + site + claimFilePath}
}

// oneLineErr keeps an error message short and on one line for the page.
func oneLineErr(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return strings.TrimSuffix(msg, ".")
}
