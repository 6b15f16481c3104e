package extract

import (
	"strings"
)

// clean is s as a one-line title: valid UTF-8, normalised, white space
// collapsed.
func clean(s string) string {
	return strings.Join(strings.Fields(normalise(strings.ToValidUTF8(s, "\uFFFD"))), " ")
}
