package extract

import (
	"strings"
)

// directives reads a robots content value. Tokens are split on commas and
// white space alike, so "noindex nofollow" counts as both.
func directives(content string) (noindex, nofollow bool) {
	for _, tok := range strings.FieldsFunc(content, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
	}) {
		switch strings.ToLower(tok) {
		case "noindex":
			noindex = true
		case "nofollow":
			nofollow = true
		case "none":
			noindex, nofollow = true, true
		}
	}
	return noindex, nofollow
}
