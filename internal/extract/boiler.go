package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxBoilerBlock is the longest block judged by its words alone: bylines,
// credits and labels are short, and a paragraph of the article that
// happens to start with "By" is not. maxPitch is the longest judged by its
// opening words: a newsletter or membership pitch runs to a few sentences.
const (
	maxBoilerBlock = 160
	maxPitch       = 400
)

// Words that open a block that is not the article's text (lower case):
// promotions and pointers away from the article, and datelines (when a
// digit follows).
var (
	// Pointers away from the article and widget labels: short blocks only.
	promoStarts = []string{"see more", "read more", "read also", "also read", "don't miss", "dont miss",
		"related:", "related stories", "related articles", "related posts", "related content", "related coverage",
		"related links", "related reading", "recommended:", "recommended for you", "recommended reading",
		"you may also like", "more stories", "advertisement", "advert", "continue reading below",
		"this slideshow requires javascript", "click here to", "follow us", "share this", "tell us what you think",
		// "Read also" in the languages of most blogs.
		"leggi anche", "lesen sie auch", "lire aussi", "à lire aussi", "leia também", "lee también", "lea también",
		"[related", "(related", "[read more", "(read more", "(leggi anche", "(lire aussi"}
	// Pitches, credits and notices, which run to a few sentences: judged by
	// their opening words up to maxPitch.
	pitchStarts = []string{"subscribe to", "sign up for", "sign up to", "join our", "get breaking news",
		"if you enjoyed this", "get access to", "get the latest",
		"reporting by", "(reporting by", "additional reporting", "editing by", "(editing by",
		"this website uses cookies", "we use cookies", "this site uses cookies", "this post may contain affiliate",
		"this article contains affiliate", "we may earn", "have a tip", "got a tip"}
	datelineStarts = []string{"updated", "published", "posted", "last updated", "modified"}
	bylineWords    = map[string]bool{"by": true, "von": true, "par": true, "por": true, "door": true}
	// A caption's credit names its source after one of these…
	creditLabels = []string{"credit:", "image:", "photo:", "picture:", "foto:", "bild:", "images:", "photos:"}
	// …or is an agency's.
	agencies = []string{"getty images", "shutterstock", "ap photo", "afp photo", "reuters/", "/reuters", "/afp", "/epa", "/ap)"}
)

// uiBlocks are the whole text of a widget's control, not of an article.
var uiBlocks = map[string]bool{
	"caption": true, "close": true, "sign in": true, "log in": true, "menu": true, "search": true,
	"previous": true, "next": true, "comments": true, "advertisement": true, "expand": true,
	"show more": true, "load more": true, "back to top": true, "skip ad": true,
}

// tagStarts open a list of the post's tags or categories.
var tagStarts = []string{"tags", "tagged", "filed under", "categories", "category", "topics"}

// shareWords are what a share bar says.
var shareWords = map[string]bool{
	"facebook": true, "twitter": true, "whatsapp": true, "pinterest": true, "pint": true, "linkedin": true,
	"email": true, "e-mail": true, "share": true, "tweet": true, "reddit": true, "print": true, "copy": true,
	"link": true, "telegram": true, "messenger": true, "sms": true, "baixar": true, "compartilhar": true,
	"teilen": true, "partager": true, "compartir": true, "x": true, "mail": true, "flipboard": true,
}

// boilerBlock reports whether a short block of the chosen text is about
// the article rather than of it, by its words: a byline or dateline
// ("By Jane Doe", "Updated Nov 19, 6:55 AM"), a picture's caption credit
// ("(Image: GETTY)", "Credit: EPA", "© Aaron Schwartz", "… | Getty
// Images"), a promotion ("READ MORE …", "You may also like…"), a share bar.
// Plain string tests, not regular expressions: this runs on every block.
//
// A heading is not judged a byline or a dateline: "By Train Through the
// Alps" is a title.
func boilerBlock(b string, heading bool) bool {
	if len(b) > maxPitch {
		return false
	}
	lower := strings.ToLower(b)
	// A pitch, a tag list or a credit line may run longer than a byline;
	// its opening words say what it is.
	for _, p := range pitchStarts {
		if startsWord(lower, p) {
			return true
		}
	}
	if tagLine(lower) || contributed(lower) || creditedCaption(lower) || metaLine(lower) || shortcodeBlock(b) || pitchEnd(lower) {
		return true
	}
	if len(b) > maxBoilerBlock {
		return false
	}
	for _, p := range promoStarts {
		if startsWord(lower, p) {
			return true
		}
	}
	if strings.HasPrefix(b, "©") || uiBlocks[strings.Trim(lower, " .:…")] || counter(lower) || contactLine(lower) {
		return true
	}
	if heading {
		return false
	}
	for _, p := range datelineStarts {
		if startsWord(lower, p) && strings.ContainsAny(b, "0123456789") {
			return true
		}
	}
	// The words are walked rather than split into a slice: this runs on
	// every short block. The first is read lowercased from lower (its
	// words are b's, each lowercased: no rune lowercases into or out of
	// white space), and the rest only after a byline's first word.
	var firstLower string
	for w := range strings.FieldsSeq(lower) {
		firstLower = w
		break
	}
	var second string
	words := 0
	if bylineWords[firstLower] {
		for w := range strings.FieldsSeq(b) {
			if words == 1 {
				second = w
			}
			words++
		}
	}
	if words >= 2 {
		r, _ := utf8.DecodeRuneInString(second)
		// "By Jane Doe", or a byline run into a dateline: "By HNN Staff |
		// November 18, 2019 at 2:26 PM HST - Updated November 18".
		if unicode.IsUpper(r) && ((words <= 12 && !strings.ContainsAny(b, ".!?")) ||
			(words <= 30 && strings.ContainsAny(b, "|") && strings.ContainsAny(b, "0123456789"))) {
			return true
		}
	}
	// Every credit label ends with a colon, and most of the agencies'
	// names hold a slash: a block without one skips those searches, each
	// a scan of the block.
	hasColon, hasSlash := strings.IndexByte(lower, ':') >= 0, strings.IndexByte(lower, '/') >= 0
	for _, l := range creditLabels {
		if !hasColon || !strings.Contains(lower, l) {
			continue
		}
		if i := strings.LastIndex(lower, l); i == 0 || !strings.Contains(lower[i:], ".") {
			return true
		}
	}
	for _, a := range agencies {
		if !hasSlash && strings.IndexByte(a, '/') >= 0 || !strings.Contains(lower, a) {
			continue
		}
		if i := strings.LastIndex(lower, a); !strings.Contains(lower[i+len(a):], ".") {
			return true
		}
	}
	if strings.HasSuffix(b, ")") {
		if i := strings.LastIndexByte(lower, '('); i >= 0 {
			for _, w := range []string{"image", "photo", "picture", "foto"} {
				if strings.HasPrefix(lower[i+1:], w) {
					return true
				}
			}
		}
	}
	for w := range strings.FieldsSeq(b) {
		if !shareWords[strings.ToLower(strings.Trim(w, ".,:;|•·"))] {
			return false
		}
	}
	return firstLower != "" // a word, all of them a share bar's
}

// creditedCaption reports whether a block ends with a picture's credit in
// parentheses, as a news caption does: "… sits at a dealership in
// Littleton, Colo. (AP Photo/David Zalubowski)".
func creditedCaption(lower string) bool {
	lower = strings.TrimSpace(lower)
	if !strings.HasSuffix(lower, ")") {
		return false
	}
	i := strings.LastIndexByte(lower, '(')
	if i < 0 || len(lower)-i > 60 {
		return false
	}
	credit := lower[i+1:]
	for _, w := range []string{"image", "photo", "picture", "foto", "credit"} {
		if strings.HasPrefix(credit, w) {
			return true
		}
	}
	for _, a := range []string{"ap photo", "getty images", "afp", "reuters", "shutterstock", "epa"} {
		if strings.Contains(credit, a) && strings.Contains(credit, "/") {
			return true
		}
	}
	return false
}

// metaLabels open the parts of a post's meta line.
var metaLabels = []string{"posted by", "published by", "written by", "publicado por", "postado por", "escrito por",
	"publié par", "veröffentlicht von", "pubblicato da", "by", "por", "par", "von", "author:", "autor:", "auteur:",
	"category:", "categories:", "categoria:", "categorias:", "categoría:", "catégorie:", "kategorie:", "categorie:",
	"tags:", "tagged:", "etiquetas:", "filed under", "posted in", "publicado em", "publicado en", "comments", "comentários", "comentarios"}

// metaSeparators turns the separators of a meta line's parts into NULs,
// to split on. Built once: a Replacer's tables cost more than the lines
// it is used on.
var metaSeparators = strings.NewReplacer(" - ", "\x00", " – ", "\x00", "|", "\x00", "•", "\x00", "·", "\x00")

// metaLine reports whether a short block is a post's meta line: parts
// split by " - ", "|", "•" or "·", two or more of them a date or a
// labelled author, category, tag or comment count ("05/10/2018 - Publicado
// por: Clarissa Borba - Categoria: Saúde - Tags: …").
func metaLine(lower string) bool {
	// Without a separator (or a NUL, which splits too) there is one part.
	// Dashes split only with a space either side: a hyphenated word alone
	// makes no second part, and costs no replacing and splitting. Each
	// separator is looked for as bytes: strings.ContainsAny with runes
	// past ASCII tests every rune of the line against each of them.
	// " - " is looked for only where there is a dash: it starts with a
	// space, and a search for it stops at every space of the line.
	if len(lower) > 300 || !(strings.IndexByte(lower, '-') >= 0 && strings.Contains(lower, " - ")) && !strings.Contains(lower, " – ") && strings.IndexByte(lower, '|') < 0 &&
		!strings.Contains(lower, "•") && !strings.Contains(lower, "·") && strings.IndexByte(lower, 0) < 0 {
		return false
	}
	parts := strings.FieldsFunc(metaSeparators.Replace(lower), func(r rune) bool { return r == 0 })
	if len(parts) < 2 {
		return false
	}
	meta := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if dateLike(p) {
			meta++
			continue
		}
		for _, l := range metaLabels {
			if startsWord(p, l) && len(p) > len(l) {
				meta++
				break
			}
		}
	}
	return meta >= 2 && meta*3 >= len(parts)*2
}

// dateLike reports whether s is a short numeric date: 05/10/2018,
// 2018-10-05, 5.10.2018.
func dateLike(s string) bool {
	if len(s) < 6 || len(s) > 10 {
		return false
	}
	digits, seps := 0, 0
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '/' || r == '-' || r == '.':
			seps++
		default:
			return false
		}
	}
	return seps == 2 && digits >= 4
}

// shortcodeBlock reports whether b is an unrendered WordPress shortcode
// and its label: "[button link=… type=…] Send us your review[/button]".
func shortcodeBlock(b string) bool {
	if len(b) > maxBoilerBlock*2 || !strings.HasPrefix(b, "[") || !strings.HasSuffix(b, "]") {
		return false
	}
	end := strings.IndexByte(b, ']')
	name, attrs, _ := strings.Cut(b[1:end], " ")
	if name == "" || !strings.Contains(attrs, "=") {
		return false
	}
	return strings.HasSuffix(b, "[/"+name+"]")
}

// startsWord reports whether s starts with the words p, followed by
// something other than a letter.
func startsWord(s, p string) bool {
	if !strings.HasPrefix(s, p) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[len(p):])
	return len(s) == len(p) || !unicode.IsLetter(r)
}

// tagLine reports whether a block, in lower case, is a list of tags:
// "Tags: a, b, c", "Filed under a, b".
func tagLine(lower string) bool {
	if len(lower) > 600 {
		return false
	}
	for _, p := range tagStarts {
		if startsWord(lower, p) {
			rest := strings.TrimSpace(lower[len(p):])
			return strings.HasPrefix(rest, ":") || strings.Count(rest, ",") >= 2
		}
	}
	return false
}

// counter reports whether b is a gallery's counter: "Image 1 of 9".
func counter(lower string) bool {
	// Its first word is one of four, checked before the words are split
	// apart (most blocks hold an "of").
	first := strings.TrimLeftFunc(lower, func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
	if !strings.HasPrefix(first, "image") && !strings.HasPrefix(first, "photo") && !strings.HasPrefix(first, "picture") && !strings.HasPrefix(first, "slide") ||
		!strings.Contains(lower, "of") {
		return false
	}
	f := strings.Fields(strings.ReplaceAll(lower, "/", " "))
	if len(f) != 4 || f[2] != "of" {
		return false
	}
	switch f[0] {
	case "image", "photo", "picture", "slide":
	default:
		return false
	}
	return isDigits(f[1]) && isDigits(f[3])
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// headlineLink reports whether a block is one link set in capitals: the
// headline of another story put between two paragraphs ("TAYLOR SWIFT
// CLEARED TO PERFORM…"), a news site's in-text promotion.
func headlineLink(b string, linked int) bool {
	if linked*10 < len(b)*8 || len(strings.Fields(b)) < 4 { // linked counts words, not the spaces between
		return false
	}
	letters, upper := 0, 0
	for _, r := range b {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters > 0 && upper*10 >= letters*9
}

// pitchEnd reports whether a short block closes on a newsletter pitch:
// "Start your day with the Opening Bell. … Sign up for the free daily
// newsletter." Its last sentence asks the reader to sign up, subscribe or
// join, and the block names a newsletter or an inbox.
func pitchEnd(lower string) bool {
	// Each word looked for only where its rarest letter is: a search
	// for "newsletter" or "inbox" stops at every n or i.
	if !(strings.IndexByte(lower, 'w') >= 0 && strings.Contains(lower, "newsletter")) &&
		!(strings.IndexByte(lower, 'x') >= 0 && strings.Contains(lower, "inbox")) {
		return false
	}
	body := strings.TrimRight(lower, " .!")
	i := strings.LastIndexAny(body, ".!?")
	last := strings.TrimSpace(body[i+1:])
	for _, p := range []string{"sign up", "subscribe", "join", "get our", "get the"} {
		if startsWord(last, p) {
			return true
		}
	}
	return false
}

// linkCluster reports whether a block is a run of headlines of other
// stories set as one paragraph ("DON'T MISS: A headline [INSIGHT] Another
// [VIDEO] …"): three links or more, seven tenths of its text or more, and
// headline-long (25 bytes a link on average), not ended as a sentence is.
// A sentence citing its sources, or a list of short names, is not one.
func linkCluster(b string, linked, links int) bool {
	if links < 3 || linked < links*25 || strings.HasSuffix(b, ".") || strings.HasSuffix(b, "!") || strings.HasSuffix(b, "?") || strings.HasSuffix(b, "…") {
		return false // a sentence that cites its sources
	}
	words := len(b) - strings.Count(b, " ") - strings.Count(b, "\n") // linked counts words, not the spaces between
	return linked*10 >= words*7
}

// contributed reports whether a block is a news story's closing credit:
// "Associated Press writers X and Y contributed to this report."
func contributed(lower string) bool {
	lower = strings.TrimRight(lower, " .)")
	return strings.HasSuffix(lower, "contributed to this report") || strings.HasSuffix(lower, "contributed to this story") ||
		strings.HasSuffix(lower, "contributed reporting")
}

// contactLine reports whether a short block is a reporter's contact line:
// "Email Tariq Malik at tmalik@space.com or follow him @tariqjmalik."
func contactLine(lower string) bool {
	if !strings.Contains(lower, "@") {
		return false
	}
	for _, p := range []string{"email", "e-mail", "follow", "reach", "contact", "write to"} {
		if startsWord(lower, p) {
			return true
		}
	}
	return false
}
