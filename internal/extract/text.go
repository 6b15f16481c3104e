package extract

import (
	"strings"
)

// clean is s as a one-line title: valid UTF-8, normalised, white space
// collapsed.
func clean(s string) string {
	return strings.Join(strings.Fields(normalise(strings.ToValidUTF8(s, "\uFFFD"))), " ")
}

// tidyText trims each line of readability's text and keeps at most one blank
// line between paragraphs, so that the stored text does not depend on the
// page's indentation.
func tidyText(s string) string {
	s = normalise(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	blank := false
	for line := range strings.Lines(s) {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(line)
	}
	return b.String()
}
