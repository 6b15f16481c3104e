// Command corpusbot is the crawler's one binary: the pure tools that explain
// how it reads robots.txt, sitemaps and feeds, and the crawl itself. This
// package only parses flags and wires capabilities together.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"corpus.blog/corpusbot/internal/app"
	"corpus.blog/corpusbot/internal/version"
)

func main() {
	env := environment{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, environ: os.Environ}
	app.TuneGC(env.lookupEnv)
	os.Exit(run(env, os.Args[1:]))
}

// environment is everything a command may touch of the process, so that tests
// can run commands in-process.
type environment struct {
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	lookupEnv func(string) (string, bool)
	// environ lists the variables, for warning of misspelt settings' ones;
	// nil: none to judge.
	environ func() []string
}

// command is one verb of the command line, such as "robots check".
type command struct {
	name    string
	summary string
	run     func(env environment, args []string) error
}

func commands() []command {
	return []command{
		{"robots check", "decide URLs against a robots.txt file, saying which rule decided", robotsCheck},
		{"sitemap parse", "list the entries of a sitemap, sitemap index, text sitemap or feed", sitemapParse},
		{"feed parse", "list the entries of an RSS, Atom or JSON feed", feedParse},
		{"page parse", "run one HTML page (or a batch) through the crawler's extraction and print what it keeps", pageParse},
		{"sources add", "add sources by homepage URL", sourcesAdd},
		{"sources list", "list the sources with their state, posts indexed, last read and next due (--opml: for a feed reader)", sourcesList},
		{"sources remove", "stop crawling sources, keeping their posts (--purge: deleting them)", sourcesRemove},
		{"sources pause", "pause sources as their owner's claim does", sourcesPause},
		{"sources resume", "end a pause the operator gave", sourcesResume},
		{"sources retry", "clear a site's robots.txt guesses, refusal record and retry back-off: asked again at the next run", sourcesRetry},
		{"run", "crawl: everything due, continuously (--once: then exit)", runCrawl},
		{"articles fetch", "read the feeds waiting longest and fetch what they name", articlesFetch},
		{"sitemaps discover", "look for sources' sitemaps", sitemapsDiscover},
		{"sitemaps fetch", "read sitemaps and fetch what changed", sitemapsFetch},
		{"reextract", "rebuild the posts' records from the page bodies kept (WARC), without a request", reextractCmd},
		{"export", "print posts (or sources) as JSON lines", export},
		{"serve", "serve the public site: crawler page, coverage, sources, opt-out, claims", serveSite},
		{"verify", "check by forward-confirmed reverse DNS that an IP is this crawler's", verifyCommand},
		{"demo", "crawl a simulated web offline, beside a naive crawler, and report", demoCmd},
		{"db backup", "copy the SQLite database to a new file, consistently, while it is in use", dbBackup},
		{"db vacuum", "give the space of deleted rows back to the file system (SQLite)", dbVacuum},
		{"version", "print the version, the source revision and the Go release it was built with", versionCmd},
	}
}

// Exit codes: 0 success, 1 failure, 2 a command line that cannot be run.
// Commands may define more (3 for "not a sitemap").
const (
	exitFailure = 1
	exitUsage   = 2
	exitNotThat = 3 // the input is not what the command reads: not a sitemap, not a feed
)

// exitError carries a command's chosen exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func run(env environment, args []string) int {
	if len(args) == 0 || isHelp(args[0]) {
		printOverview(env.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		fmt.Fprintln(env.stdout, version.Get())
		return 0
	}
	cmd, rest, ok := findCommand(args)
	if !ok {
		fmt.Fprintf(env.stderr, "corpusbot: unknown command %q%s\n", strings.Join(args[:min(2, len(args))], " "), commandHint(args[0]))
		return exitUsage
	}
	err := cmd.run(env, rest)
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) && ee.code == exitNotThat {
		// The contract's exact words: "not a sitemap: <reason>".
		fmt.Fprintln(env.stderr, oneLine(err.Error()))
		return ee.code
	}
	fmt.Fprintf(env.stderr, "corpusbot %s: %s\n", cmd.name, oneLine(err.Error()))
	if ee != nil {
		return ee.code
	}
	return exitFailure
}

// findCommand matches the longest command name at the start of args. Both
// "robots check" and the colon form "robots:check" are accepted.
func findCommand(args []string) (command, []string, bool) {
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return c, args[len(words):], true
		}
		if args[0] == strings.Join(words, ":") {
			return c, args[1:], true
		}
	}
	return command{}, nil, false
}

// commandHint is what to say after "unknown command": for a colon form
// whose first word is a command, what was likely meant ("export:text" is
// export --text, "sources:lsit" is none of the sources commands, which it
// lists); else where the commands are listed.
func commandHint(arg string) string {
	head, tail, colon := strings.Cut(arg, ":")
	if !colon || head == "" || tail == "" {
		return " (corpusbot --help lists them)"
	}
	var under []string
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if words[0] != head {
			continue
		}
		if len(words) == 1 {
			if commandHasFlag(c, tail) {
				return fmt.Sprintf("; did you mean %s --%s? (%s takes flags, not a colon form)", c.name, tail, c.name)
			}
			return fmt.Sprintf("; %s has no %q: corpusbot %s --help lists its flags", c.name, tail, c.name)
		}
		under = append(under, c.name)
	}
	if len(under) > 0 {
		return "; the " + head + " commands are " + strings.Join(under, ", ")
	}
	return " (corpusbot --help lists them)"
}

// commandHasFlag reports whether c's --help lists the flag --name: each
// command declares its flags as it starts, and --help prints them before
// the command does anything else.
func commandHasFlag(c command, name string) bool {
	var help strings.Builder
	env := environment{stdin: strings.NewReader(""), stdout: &help, stderr: io.Discard, lookupEnv: func(string) (string, bool) { return "", false }}
	if err := c.run(env, []string{"--help"}); !errors.Is(err, errHelpShown) {
		return false
	}
	for _, line := range strings.Split(help.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(line, "  -") && f[0] == "-"+name {
			return true
		}
	}
	return false
}

func printOverview(w io.Writer) {
	fmt.Fprintln(w, "corpusbot — a decent crawler for a corpus of blogs")
	fmt.Fprintln(w, "\nUsage: corpusbot COMMAND [flags] [arguments]   (COMMAND --help for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
}
