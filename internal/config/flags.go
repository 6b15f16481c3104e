package config

import (
	"flag"
	"fmt"
)

// flagValue holds a flag's text until Load parses it, so that a bad flag is
// reported by Load in the same words as a bad env variable or file entry.
type flagValue struct {
	spec *spec
	def  string
	raw  string
	set  bool
}

func (v *flagValue) String() string {
	if v == nil {
		return ""
	}
	if v.set {
		return v.raw
	}
	return v.def
}

func (v *flagValue) Set(s string) error {
	v.raw, v.set = s, true
	return nil
}

// IsBoolFlag lets --allow-private stand alone, as boolean flags do.
func (v *flagValue) IsBoolFlag() bool { return v != nil && v.spec != nil && v.spec.isBool }

// RegisterFlags defines a flag for each named setting (all of them when no
// name is given): --min-gap for MIN_GAP and so on. Commands that need only
// some settings, such as --db, name them. An unknown name panics, as it is a
// programming error.
func RegisterFlags(fs *flag.FlagSet, names ...string) {
	for _, p := range selected(names) {
		fs.Var(&flagValue{spec: p, def: p.show(Defaults())}, p.flagName(), p.help)
	}
}

func selected(names []string) []*spec {
	var out []*spec
	if len(names) == 0 {
		for i := range table {
			out = append(out, &table[i])
		}
		return out
	}
	for _, name := range names {
		i := indexOf(name)
		if i < 0 {
			panic(fmt.Sprintf("config.RegisterFlags: unknown setting %q", name))
		}
		out = append(out, &table[i])
	}
	return out
}

// applyFlags takes only flags set on the command line (fs.Visit), so that a
// flag's default never hides a value from the file or the environment.
func applyFlags(s *Settings, fs *flag.FlagSet) error {
	var first error
	fs.Visit(func(f *flag.Flag) {
		v, ok := f.Value.(*flagValue)
		if !ok || first != nil {
			return
		}
		if err := v.spec.apply(s, v.raw); err != nil {
			first = &SettingError{Name: v.spec.name, Source: "flag --" + f.Name, Err: err}
		}
	})
	return first
}
