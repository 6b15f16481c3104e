package main

import "errors"

func feedParse(env environment, args []string) error {
	return errors.New("not implemented yet")
}
