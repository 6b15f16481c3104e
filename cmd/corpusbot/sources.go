package main

import (
	"context"
	"fmt"
	"time"
)

func sourcesAdd(env environment, args []string) error {
	fs := newFlags("sources add", "sources add [--db FILE] URL...\n\n"+
		"Adds sources by their homepage URL. Adding a known source again changes nothing.")
	configPath := crawlFlags(fs, "DB")
	positional, err := fs.parse(args, env.stdout)
	if err != nil {
		return err
	}
	if len(positional) == 0 {
		return usageError("want at least one homepage URL (see --help)")
	}
	var urls []string
	for _, raw := range positional {
		u, err := absoluteURL("URL", raw)
		if err != nil {
			return err
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return usageError("URL %q is not http or https", raw)
		}
		if u.Path == "" {
			u.Path = "/"
		}
		urls = append(urls, u.String())
	}
	s, err := loadSettings(env, *configPath, fs.FlagSet)
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := openStore(ctx, s)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, u := range urls {
		_, isNew, err := st.AddSource(ctx, u, time.Now())
		if err != nil {
			return err
		}
		if isNew {
			fmt.Fprintf(env.stdout, "added %s\n", u)
		} else {
			fmt.Fprintf(env.stdout, "known %s\n", u)
		}
	}
	return nil
}
