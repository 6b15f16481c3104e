package extract

import (
	"regexp"
	"strings"
)

// maxBoilerBlock is the longest block judged by its words alone: bylines,
// credits and promos are short, and a paragraph of the article that
// happens to start with "By" is not.
const maxBoilerBlock = 160

var (
	// A byline or a dateline: "By Jane Doe", "Updated Nov 19, 6:55 AM",
	// "PUBLISHED: 10:48, Tue, Nov 19, 2019 | UPDATED: …", "Published 1 day ago".
	bylineRE = regexp.MustCompile(`^(?i:by|von|par|por|door)\s+\p{Lu}[^.!?]*$|^(?i:updated|published|posted|last updated|modified)\b.*\d`)
	// A picture's caption or credit: "(Image: GETTY)", "Credit: EPA",
	// "© Aaron Schwartz", "Alex Wong | Getty Images", "(AP Photo/…)".
	creditRE = regexp.MustCompile(`^©|^(?i:photo|image|picture|credit|foto|bild)s?(\s+credit)?\s*:|(?i:credit|image|photo)\s*:\s*[^.]*\)?$|\((?i:image|photo|picture|foto)s?:?[^)]*\)$|(?i:getty images|shutterstock|ap photo|afp photo|reuters/|/reuters|/afp|/epa|/ap)\b[^.]*\)?$`)
	// A promotion or a pointer away from the article.
	promoRE = regexp.MustCompile(`^(?i:see more|read more|read also|also read|don'?t miss|related|recommended|you may also like|more from|more stories|sign up|subscribe|advertisement|advert|continue reading below|this slideshow requires javascript|click here|get the latest|follow us|share this|tell us what you think)\b`)
)

// shareWords are what a share bar says.
var shareWords = map[string]bool{
	"facebook": true, "twitter": true, "whatsapp": true, "pinterest": true, "pint": true, "linkedin": true,
	"email": true, "e-mail": true, "share": true, "tweet": true, "reddit": true, "print": true, "copy": true,
	"link": true, "telegram": true, "messenger": true, "sms": true, "baixar": true, "compartilhar": true,
	"teilen": true, "partager": true, "compartir": true, "x": true, "mail": true, "flipboard": true,
}

// boilerBlock reports whether a block of the chosen text is about the
// article rather than of it, by its words: a byline or dateline, a credit
// or caption, a promotion, a share bar.
func boilerBlock(b string) bool {
	if len(b) > maxBoilerBlock {
		return false
	}
	if bylineRE.MatchString(b) || creditRE.MatchString(b) || promoRE.MatchString(b) {
		return true
	}
	words := strings.Fields(strings.ToLower(b))
	for _, w := range words {
		if !shareWords[strings.Trim(w, ".,:;|•·")] {
			return false
		}
	}
	return len(words) > 0
}
