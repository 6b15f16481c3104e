package postgres_test

import (
	"testing"

	"corpus.blog/corpusbot/internal/crawl"
	"corpus.blog/corpusbot/internal/store/storetest"
)

func TestSitemapChunkSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	storetest.RunSitemapChunkSuite(t, func(t *testing.T) crawl.Store { return open(t, testDSN(t)) })
}
