package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
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
	// hidden are the old spellings of flags (alias): accepted, not listed.
	hidden []string
}

// alias accepts name as an old spelling of the flag canonical, so that
// command lines written for it keep working, without listing it in --help:
// one name per concept is shown, and canonical's help says it replaced name.
func (fs *flags) alias(name, canonical string) {
	f := fs.Lookup(canonical)
	if f == nil {
		panic("alias of an undefined flag --" + canonical) // a programming error
	}
	fs.Var(f.Value, name, "the former name of --"+canonical)
	fs.hidden = append(fs.hidden, name)
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
	// The listed flags are copied to a set of their own, leaving the
	// aliases out; the defaults are the ones registered, not values a flag
	// before --help on the command line set.
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(fs.hidden, f.Name) {
			shown.Var(f.Value, f.Name, f.Usage)
			shown.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	shown.SetOutput(w)
	shown.PrintDefaults()
}

// oneLine keeps an error to the single line the contract promises.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// readInput reads a named file, or standard input for "-", up to one byte
// past limit, so that an endless stream costs no more memory than the parser
// would read of it while the parser can still tell the document was cut.
func readInput(env environment, name string, limit int64) ([]byte, error) {
	var r io.Reader = env.stdin
	what := "stdin"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err // its error names the file
		}
		defer f.Close()
		r, what = f, name
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	return b, nil
}

// absoluteURL reads a flag's value that must be an absolute URL.
func absoluteURL(flagName, value string) (*url.URL, error) {
	u, err := url.Parse(value)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, usageError("%s %q is not an absolute URL", flagName, value)
	}
	return u, nil
}
