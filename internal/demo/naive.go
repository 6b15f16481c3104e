package demo

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"corpus.blog/corpusbot/internal/simweb"
	"corpus.blog/corpusbot/robots"
)

// Naive is the baseline: the crawler the proposal describes as wasteful. It
// walks every blog breadth-first from its homepage, following every <a href>
// to the same host from every HTML page, and does it again from scratch
// every day, with no conditional requests, no feeds and no sitemaps. It
// still obeys robots.txt, read with this repository's parser for the
// CorpusBot group, so that both crawlers are allowed exactly the same URLs
// and their counts compare. It uses plain net/http, dialled into the same
// kind of simulated web.
type Naive struct {
	Client    *http.Client
	UserAgent string
	Agent     string // the robots.txt group it obeys
	Workers   int    // blogs walked at once
	MaxPages  int    // per blog and day, a safety bound
}

// NaiveUserAgent is what the baseline says it is.
const NaiveUserAgent = "NaiveCrawler/1.0 (corpusbot demo baseline)"

// NewNaive is the baseline over web.
func NewNaive(web *simweb.Web) *Naive {
	resolver := web.Resolver()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			ips, err := resolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
			return web.Dial(ctx, network, net.JoinHostPort(ips[0].String(), port))
		},
		TLSClientConfig:     web.ClientTLS(),
		MaxIdleConnsPerHost: 2,
	}
	return &Naive{Client: &http.Client{Transport: tr}, UserAgent: NaiveUserAgent, Agent: agentToken, Workers: 8, MaxPages: 100_000}
}

// NaiveDay is what one day's walk found.
type NaiveDay struct {
	Fetched    int // pages requested
	Disallowed int // links robots.txt kept it from
	Failed     int // requests answered 4xx or 5xx, or not at all
	NonHTML    int // answers it read but could not walk (feeds, sitemaps linked from pages)
}

// Crawl walks every homepage's blog once.
func (n *Naive) Crawl(ctx context.Context, homepages []string) (NaiveDay, error) {
	var mu sync.Mutex
	var total NaiveDay
	work := make(chan string)
	var wg sync.WaitGroup
	for range max(1, n.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				d := n.walk(ctx, h)
				mu.Lock()
				total.Fetched += d.Fetched
				total.Disallowed += d.Disallowed
				total.Failed += d.Failed
				total.NonHTML += d.NonHTML
				mu.Unlock()
			}
		}()
	}
	for _, h := range homepages {
		select {
		case work <- h:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return total, ctx.Err()
}

// walk is one blog, breadth-first.
func (n *Naive) walk(ctx context.Context, home string) NaiveDay {
	var d NaiveDay
	start, err := url.Parse(home)
	if err != nil {
		d.Failed++
		return d
	}
	rules := n.robots(ctx, start)
	seen := map[string]bool{start.String(): true}
	queue := []*url.URL{start}
	for len(queue) > 0 && d.Fetched < n.MaxPages && ctx.Err() == nil {
		u := queue[0]
		queue = queue[1:]
		if !rules.Allowed(u.RequestURI()) {
			d.Disallowed++
			continue
		}
		d.Fetched++
		links, isHTML, err := n.get(ctx, u)
		switch {
		case err != nil:
			d.Failed++
			continue
		case !isHTML:
			d.NonHTML++
			continue
		}
		for _, l := range links {
			if l.Host != start.Host || (l.Scheme != "http" && l.Scheme != "https") || seen[l.String()] {
				continue
			}
			seen[l.String()] = true
			queue = append(queue, l)
		}
	}
	return d
}

// robots reads the host's robots.txt the way RFC 9309 says (2xx obeyed,
// 401/403 refuse, other 4xx allow, 5xx and no answer disallow all).
func (n *Naive) robots(ctx context.Context, home *url.URL) *robots.Rules {
	u := home.ResolveReference(&url.URL{Path: "/robots.txt"})
	resp, err := n.do(ctx, u)
	if err != nil {
		return robots.DisallowAll()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 512<<10))
	switch s := resp.StatusCode; {
	case err != nil:
		return robots.DisallowAll()
	case s >= 200 && s < 300:
		return robots.Parse(body).For(n.Agent)
	case s == 401 || s == 403 || s == 429 || s >= 500:
		return robots.DisallowAll()
	}
	return robots.AllowAll()
}

func (n *Naive) do(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", n.UserAgent)
	resp, err := n.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("naive get %s: %w", u, err)
	}
	return resp, nil
}

// get fetches u and, for an HTML page, returns its links, resolved and
// without fragments.
func (n *Naive) get(ctx context.Context, u *url.URL) ([]*url.URL, bool, error) {
	resp, err := n.do(ctx, u)
	if err != nil {
		return nil, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, false, fmt.Errorf("naive get %s: status %d", u, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, false, nil
	}
	return links(resp.Body, u), true, nil
}

// links are the <a href> targets of an HTML document.
func links(r io.Reader, base *url.URL) []*url.URL {
	var out []*url.URL
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) != "a" || !hasAttr {
				continue
			}
			for {
				k, v, more := z.TagAttr()
				if string(k) == "href" {
					if l, err := base.Parse(string(v)); err == nil {
						l.Fragment, l.RawFragment = "", ""
						out = append(out, l)
					}
				}
				if !more {
					break
				}
			}
		}
	}
}
