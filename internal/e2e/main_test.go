// Package e2e holds the end-to-end checks that drive only the built
// binary (package binarytest): exit codes, output, files, and what the
// simulated sites saw through the loopback proxy.
package e2e

import (
	"os"
	"testing"

	"corpus.blog/corpusbot/internal/binarytest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	binarytest.Cleanup()
	os.Exit(code)
}
