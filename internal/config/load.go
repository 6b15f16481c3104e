package config

import (
	"flag"
	"fmt"
)

// SettingError is a value that failed to parse or to pass its bounds.
type SettingError struct {
	Name   string // the setting, e.g. MIN_GAP
	Source string // where the value came from, e.g. "env CORPUSBOT_MIN_GAP"
	Err    error
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("setting %s (from %s): %v", e.Name, e.Source, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }

// Load starts from Defaults and applies, each overriding the one before: the
// TOML file at configPath (skipped when empty), the environment variables
// CORPUSBOT_<NAME> found by lookupEnv (nil means none), and the flags that
// RegisterFlags put on fs and that were set on the command line (fs may be
// nil; call it after fs.Parse).
//
// Every source is checked, including values a later source overrides: a bad
// line in the config file is an error even when a flag covers it, so it does
// not lie in wait for the day the flag is dropped.
//
// Pass os.LookupEnv in production and a map's lookup in tests.
func Load(lookupEnv func(string) (string, bool), configPath string, fs *flag.FlagSet) (Settings, error) {
	s := Defaults()
	if configPath != "" {
		if err := applyFile(&s, configPath); err != nil {
			return Settings{}, err
		}
	}
	if lookupEnv != nil {
		if err := applyEnv(&s, lookupEnv); err != nil {
			return Settings{}, err
		}
	}
	if fs != nil {
		if err := applyFlags(&s, fs); err != nil {
			return Settings{}, err
		}
	}
	return s, nil
}

// applyEnv treats an empty variable as unset: compose files, systemd units
// and `VAR= cmd` leave variables empty to mean "not given".
func applyEnv(s *Settings, lookupEnv func(string) (string, bool)) error {
	for _, p := range table {
		v, ok := lookupEnv(p.envName())
		if !ok || v == "" {
			continue
		}
		if err := p.apply(s, v); err != nil {
			return &SettingError{Name: p.name, Source: "env " + p.envName(), Err: err}
		}
	}
	return nil
}
