package main

import (
	"flag"

	"corpus.blog/corpusbot/internal/config"
)

// loadSettings reads the settings from the config file, the environment and
// whichever setting flags fs registered and the command line set.
func loadSettings(env environment, configPath string, fs *flag.FlagSet) (config.Settings, error) {
	return config.Load(env.lookupEnv, configPath, fs)
}
