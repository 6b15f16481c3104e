package main

import (
	"flag"
	"fmt"

	"corpus.blog/corpusbot/internal/config"
)

// loadSettings reads the settings from the config file, the environment and
// whichever setting flags fs registered and the command line set. A value
// accepted but unfit for the real web (an interval compressed for a
// simulation) is said once on stderr, and so is a CORPUSBOT_ variable that
// names no setting (a typo would otherwise be ignored silently); stdout
// stays the command's output.
func loadSettings(env environment, configPath string, fs *flag.FlagSet) (config.Settings, error) {
	s, err := config.Load(env.lookupEnv, configPath, fs)
	if err != nil {
		return s, err
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(env.stderr, "corpusbot: warning: %s\n", w)
	}
	if env.environ != nil {
		for _, w := range config.UnknownEnv(env.environ()) {
			fmt.Fprintf(env.stderr, "corpusbot: warning: %s\n", w)
		}
	}
	return s, nil
}
