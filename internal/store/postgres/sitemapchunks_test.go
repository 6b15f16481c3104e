package postgres_test

import (
	"testing"

	"corpus.blog/corpusbot/internal/store"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestSitemapChunkSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	storetest.RunSitemapChunkSuite(t, func(t *testing.T) *store.DB { return open(t, testDSN(t)).DB })
}
