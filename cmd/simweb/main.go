// Command simweb serves a simulated web of blogs on a loopback port, for a
// crawler to use as its HTTP proxy (HTTP_PROXY=http://127.0.0.1:PORT): it
// answers requests in proxy form (GET http://203.0.113.1/feed HTTP/1.1)
// by host, records every one, and lets the script driving the crawl switch
// the scenario's day and read what the sites saw. Only http:// sites, no
// CONNECT. Nothing leaves loopback: the blogs are on TEST-NET-3 addresses
// (203.0.113.N), which the crawler judges public without a lookup and hands
// to this proxy, which serves them itself.
//
// The first line on stdout is the address it listens on. Control endpoints,
// on the same port, for requests to the host simweb.control or to the
// server's own address (http://127.0.0.1:PORT/...):
//
//	GET  /scenario    the scenario's manifest (blogs, posts, faults, candidates), JSON
//	GET  /day         the current day
//	POST /day?n=N     switch to day N
//	GET  /requests    every request so far, JSON lines: day, host, uri, status,
//	                  start, end (RFC 3339, nanoseconds), if_none_match,
//	                  if_modified_since, user_agent
//	GET  /violations  the server-side politeness verdict, JSON lines (none: clean);
//	                  ?min_gap=100ms&user_agent=...&agent=...
//	GET  /healthz
//
// Usage: simweb [--addr 127.0.0.1:0] [--scenario days]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"corpus.blog/corpusbot/internal/simweb"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "simweb:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// run serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on (port 0: any free port)")
	name := fs.String("scenario", "days", "the simulated web to serve (days)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: no arguments expected, got %q", errUsage, fs.Args())
	}
	if err := loopbackOnly(*addr); err != nil {
		return fmt.Errorf("%w: --addr: %v", errUsage, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))

	web := simweb.New()
	defer web.Close()
	sc, err := newScenario(*name, web)
	if err != nil {
		return fmt.Errorf("%w: --scenario: %v", errUsage, err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: newServer(web, sc, log), ReadHeaderTimeout: 10 * time.Second}
	if _, err := fmt.Fprintln(stdout, ln.Addr().String()); err != nil {
		_ = ln.Close()
		return fmt.Errorf("print address: %w", err)
	}
	log.Info("serving", "addr", ln.Addr().String(), "scenario", *name, "day", sc.today())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// loopbackOnly refuses an address off loopback: the simulated web is for
// tests, which only ever talk to 127.0.0.1 and ::1.
func loopbackOnly(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address", host)
	}
	return nil
}
