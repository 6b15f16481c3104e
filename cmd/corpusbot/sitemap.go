package main

import "errors"

func sitemapParse(env environment, args []string) error {
	return errors.New("not implemented yet")
}
