package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"corpus.blog/corpusbot/robots"
)

func robotsCheck(env environment, args []string) error {
	fs := newFlags("robots check", "robots check [--agent TOKEN] [--json] ROBOTS_FILE URL...\n\n"+
		"Decides each URL against ROBOTS_FILE, the body of a robots.txt served with status 200,\n"+
		"one line per URL in order. A URL of - reads URLs from standard input, one a line.")
	agent := fs.String("agent", "", "product token to match groups against (default: the token of the configured user agent)")
	asJSON := fs.Bool("json", false, "print one JSON object per URL with the deciding rule and its line, instead of ALLOWED or DISALLOWED and the URL")
	configPath := configFlag(fs)
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) < 2 {
		return usageError("want ROBOTS_FILE and at least one URL (see --help)")
	}
	if positional[0] == "-" && slices.Contains(positional[1:], "-") {
		return usageError("standard input cannot hold both the robots.txt file and the URLs")
	}
	token := *agent
	if token == "" {
		s, err := loadSettings(env, *configPath, nil)
		if err != nil {
			return err
		}
		token = s.ProductToken()
	}
	body, err := readInput(env, positional[0], robots.MaxFileSize)
	if err != nil {
		return err
	}
	rules := robots.Parse(body).For(token)

	out := bufio.NewWriterSize(env.stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	decide := func(u string) error {
		d := rules.Decide(u)
		if *asJSON {
			return enc.Encode(checkResult{URL: u, Allowed: d.Allowed, Rule: d.Rule(), Line: d.Line})
		}
		verdict := "DISALLOWED "
		if d.Allowed {
			verdict = "ALLOWED "
		}
		_, err := out.WriteString(verdict + u + "\n")
		return err
	}
	for _, u := range positional[1:] {
		if u != "-" {
			if err := decide(u); err != nil {
				return err
			}
			continue
		}
		// URLs from stdin are decided as they arrive, so a list of any length
		// runs in constant memory.
		sc := bufio.NewScanner(env.stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			if err := decide(line); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("read URLs from stdin: %w", err)
		}
	}
	return out.Flush()
}

// checkResult is one line of `robots check --json`; the field order is the
// contract's.
type checkResult struct {
	URL     string `json:"url"`
	Allowed bool   `json:"allowed"`
	Rule    string `json:"rule"`
	Line    int    `json:"line"`
}
