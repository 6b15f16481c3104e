package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelpShown ends a command that printed its help on request.
var errHelpShown = errors.New("help shown")

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// flags is a command's flag set with the synopsis its --help prints.
type flags struct {
	*flag.FlagSet
	synopsis string
}

// newFlags makes a flag set whose errors come back as one line rather than
// being printed with the whole usage text.
func newFlags(name, synopsis string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, synopsis: synopsis}
}

// parse reads flags wherever they stand among the arguments, as most command
// lines allow ("check FILE URL --json"); "--" ends the flags. On --help it
// prints the synopsis and the flags to stdout.
func (fs *flags) parse(args []string, stdout io.Writer) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printHelp(stdout)
				return nil, errHelpShown
			}
			return nil, usageError("%v", err)
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		// Parsing stopped at a positional argument: keep it and go on.
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func (fs *flags) printHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: corpusbot %s\n\nFlags:\n", fs.synopsis)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// oneLine keeps an error to the single line the contract promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
