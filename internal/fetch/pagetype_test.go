package fetch

import (
	"errors"
	"testing"
)

func TestCheckPage(t *testing.T) {
	for _, c := range []struct {
		ct, body string
		ok       bool
	}{
		{"text/html; charset=utf-8", "anything", true},
		{"application/xhtml+xml", "<?xml version='1.0'?><html/>", true},
		{"", "<!DOCTYPE html><p>x", true},
		{"", "\xef\xbb\xbf  <html><body>x", true},
		{"", "<!-- a comment --><div>x</div>", true},
		{"", "%PDF-1.7", false},
		{"", "<?xml version='1.0'?><rss/>", false},
		{"application/pdf", "<html>", false},
		{"image/png", "", false},
	} {
		err := CheckPage(c.ct, []byte(c.body))
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrNotPage)) {
			t.Errorf("CheckPage(%q, %q) = %v, want ok %v", c.ct, c.body, err, c.ok)
		}
	}
}
