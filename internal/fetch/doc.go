// Package fetch is the one gate every request of the crawler goes through:
// nothing else in the project opens a connection.
//
// Per request, in order: the URL's origin has its robots.txt read first (and
// cached with the verdict of robots.Decide); the URL, and later every redirect
// hop, is checked against the rules of the origin it lands on before any
// connection is made; a site on the 403 refusal list is not asked; the site's
// lease is taken (one request in flight per registrable domain, and a gap of
// at least max(MIN_GAP, Crawl-delay, back-off) since the last one ended); the
// request is sent with the exact User-Agent, no cookies, no credentials (user
// information in a URL, or in a redirect's Location, is dropped, never sent
// as Authorization, recorded or returned), Accept-Encoding gzip and br, and
// the caller's validators; the Content-Type is judged from
// the headers before the body is read; the body is decoded and capped at
// BODY_MAX; the back-off and refusal state are updated; the lease is given
// back with the time the site may next be asked. Then, with Options.Archive
// set, a 2xx whose body was read whole is handed over, exchange and body,
// for a web archive (package warc): after the lease, so that the writing
// costs the site no time.
//
// A sitemap is not a page: it has the sitemap protocol's limits (50,000
// entries, 50 MB uncompressed), whatever the transfer encoding, rather than
// BODY_MAX. The crawler streams it (Request.Stream) into sitemap.Read, which
// enforces both and keeps the entries before a cut, saying the file was
// truncated; the fetcher reads a sitemap as far as a cap a little past
// 50 MB (room for a .gz file and the parser's read-ahead), never refusing
// one for its declared length. Feeds keep BODY_MAX: a feed is read whole
// into memory and parsed as a document, and its size is the publisher's
// choice of how many items to show, not a protocol's.
//
// The private-address guard judges the target of every request, whatever
// carries it. Dialled directly, it sits in the dialer, after DNS, so a name
// that resolves to 10.0.0.1 is refused as surely as the literal address,
// and again in the socket's Control on the address actually connected.
// Handed to a proxy (HTTP_PROXY and the like), the request never reaches
// our dialer, so its target is judged before it is handed over, for each
// request and each redirect hop: a literal address by the same rule, a name
// by resolving it with the fetcher's own Resolver and refusing it if any of
// its addresses is refused; a name that is not ASCII is judged in every form
// net/http may send it in (IDNA maps "１２７.０.０.１" to 127.0.0.1). The
// proxy resolves the name again, and may get
// another answer (split-horizon DNS, a rebinding name): the guard cannot
// see past it, so a proxy should itself refuse private targets. A name our
// resolver cannot resolve cannot be judged: by default (PROXY_DNS=local) it
// is refused with ErrUnresolvedTarget, our resolver's failure and not the
// site's; with PROXY_DNS=proxy, for an egress proxy that does the DNS, it is
// left to the proxy, and so is one our resolver has not answered for within
// 2 s. A proxy that must reach private hosts is what
// ALLOW_PRIVATE is for: with it on, nothing is refused. In every case,
// localhost and names under .localhost, .local, .internal, home.arpa, .lan
// and the like, single-label names and names whose last label is a number
// (127.1, 0x7f.1) are refused without a lookup, and an IPv6 address
// carrying an IPv4 one (NAT64, 6to4, Teredo, IPv4-compatible or -mapped) is
// judged by the IPv4 address. A refusal is ErrPrivateAddress (or
// ErrUnresolvedTarget): the crawler's own decision, made before anything
// was sent, not an answer of the site.
//
// Time is a Clock, and the lease, the robots cache and the refusal list are
// interfaces, so that tests run simulated days and a store can later back the
// state across a cluster. A Clock rather than testing/synctest alone: the
// politeness tests go through real loopback sockets (package simweb), and a
// goroutine blocked on a socket is not durably blocked, so synctest's fake
// time cannot run them. The lease, which only waits on a channel and the
// Clock, is also tested under synctest.
//
// Memory follows the sites in flight, not every site ever asked: the local
// lease forgets idle sites but for their last end, kept a day (MaxFloor) so
// that no gap shortens; a back-off is forgotten once its site has rested an
// hour past it; the transport is replaced every so many dials (Go's keeps a
// record per host otherwise); the robots.txt cache and the refusal list
// are kept in a store (Options.Robots and Refusals, ports the store
// implements in SQL) with a bounded memory in front (RobotsCache holds the
// origins used last, Refusals the sites asked in the last minute). Without
// a store both memories are the only copy and keep every site, for tests
// and tools (BenchmarkManySitesMemory measures the crawl's wiring).
//
// Go's transport would resend a GET, once and silently, when a reused
// connection dies under it; the fetcher forbids that (noretry.go), since the
// second request would skip the lease and the gap.
package fetch
