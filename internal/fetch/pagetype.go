package fetch

import (
	"errors"
	"fmt"

	"corpus.blog/corpusbot/internal/model"
)

// ErrNotPage is what CheckPage says of a body the crawler would not read as
// a page.
var ErrNotPage = errors.New("not a page")

// CheckPage applies to a body already in hand the rule the fetcher applies
// to a page response: the Content-Type decides when it names HTML or
// something else, and the first bytes decide when it names nothing. It is
// exported so that `corpusbot page parse` refuses exactly what the crawler
// would have closed unread (OutcomeWrongType).
func CheckPage(contentType string, body []byte) error {
	mt := MediaType(contentType)
	switch judgeType(model.PurposePage, mt) {
	case typeRight:
		return nil
	case typeSniff:
		if sniffAccepts(model.PurposePage, sniff(body[:min(len(body), sniffLen)])) {
			return nil
		}
		return fmt.Errorf("%w: the first bytes do not look like HTML", ErrNotPage)
	}
	return fmt.Errorf("%w: Content-Type %q", ErrNotPage, contentType)
}
