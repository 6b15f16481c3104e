package extract

import (
	"bytes"
	"fmt"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// parseHTML decodes the first MaxBytes of body as a browser would and parses
// them. Truncating mid-tag is harmless: the HTML parser closes what is open.
// Even UTF-8 goes through the decoder, which turns invalid bytes into U+FFFD
// so that nothing downstream sees them.
func parseHTML(body []byte, contentType string) (*html.Node, error) {
	if len(body) > MaxBytes {
		body = body[:MaxBytes]
	}
	enc, _, _ := charset.DetermineEncoding(body, contentType)
	doc, err := html.Parse(enc.NewDecoder().Reader(bytes.NewReader(body)))
	if err != nil {
		return nil, fmt.Errorf("parse html: %w", err)
	}
	return doc, nil
}
