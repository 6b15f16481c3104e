package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// applyFile reads a flat TOML file whose keys are setting names. It rejects
// what it does not know, since a misspelt key silently ignored is a setting
// the operator believes is in force and is not.
func applyFile(s *Settings, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	var doc map[string]any
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return fmt.Errorf("config file %s line %d: %s", path, perr.Position.Line, perr.Message)
		}
		return fmt.Errorf("config file %s: %w", path, err)
	}

	source := "config file " + path
	spelling := map[string]string{} // canonical name -> key as written
	// md.Keys is in file order, which makes the first error reported the
	// first one in the file; a map range would pick one at random.
	for _, key := range md.Keys() {
		written := key[0]
		if _, pending := doc[written]; !pending {
			continue
		}
		raw := doc[written]
		delete(doc, written)

		name := canonicalName(written)
		p, ok := lookup(name)
		if !ok {
			return fmt.Errorf("config file %s: unknown setting %q%s", path, written, suggest(name))
		}
		if prev, dup := spelling[name]; dup {
			return fmt.Errorf("config file %s: setting %s is given twice, as %q and %q", path, name, prev, written)
		}
		spelling[name] = written
		if err := p.apply(s, raw); err != nil {
			return &SettingError{Name: name, Source: source, Err: err}
		}
	}
	return nil
}

// canonicalName lets the file use min_gap, MIN_GAP or min-gap: the env, the
// flag and the documentation each suggest a different spelling.
func canonicalName(key string) string {
	return strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}
