package extract

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/abadojack/whatlanggo"
	"golang.org/x/text/language"
)

// Bounds on metadata, so that a page stuffed with it cannot bloat a record.
const (
	maxTags     = 32
	maxTagLen   = 64
	maxFieldLen = 1024 // author, description, site name
)

// metadata fills p's metadata from what the page states (f, ld) and, where
// it says nothing, from what readability found (byline, site name,
// excerpt), in the orders of the package doc.
// It returns the declared language, for detectLanguage to judge.
func (p *Page) metadata(f *facts, ld ldFacts, base *url.URL, rd readabilityFacts) (declared string) {
	parsely := parselyPage(f.meta["parsely-page"])
	p.Author = bounded(firstName(
		ld.author, f.meta["author"], nonURL(f.meta["article:author"]), f.meta["parsely-author"], parsely.Author,
		f.meta["dc.creator"], f.meta["dcterms.creator"], f.itemprop["author"], f.relAuthor, byline(f.byline), byline(rd.byline)))
	p.Published = firstDate(f.meta["article:published_time"], ld.published, f.meta["parsely-pub-date"], parsely.PubDate,
		f.itemprop["datepublished"], f.marked, f.inArticle)
	p.Modified = firstDate(f.meta["article:modified_time"], ld.modified, f.meta["og:updated_time"], f.itemprop["datemodified"])
	p.Description = bounded(clean(strOr(f.meta["description"], f.meta["og:description"], ld.description, f.meta["twitter:description"])))
	p.SiteName = bounded(clean(strOr(nameNotURL(f.meta["og:site_name"]), nameNotURL(ld.siteName), nameNotURL(rd.siteName))))
	p.License = resolveHTTP(base, strOr(f.license, ld.license))
	p.Image = strOr(resolveHTTP(base, f.meta["og:image"]), resolveHTTP(base, ld.image),
		resolveHTTP(base, strOr(f.meta["twitter:image"], f.meta["twitter:image:src"])))
	p.Tags = tagList(f.tags, ld.keywords, strings.Split(f.meta["parsely-tags"], ","), parsely.Tags)
	return primaryLanguage(strOr(f.lang, f.meta["content-language"], ld.language, f.meta["dc.language"], f.meta["og:locale"]))
}

// readabilityFacts are what readability read of the page that is used
// where the page states nothing more directly.
type readabilityFacts struct{ byline, siteName string }

type parsely struct {
	Author  any      `json:"author"`
	PubDate string   `json:"pub_date"`
	Tags    []string `json:"tags"`
}

type parselyFields struct {
	Author, PubDate string
	Tags            []string
}

// parselyPage reads Parse.ly's older <meta name="parsely-page"> JSON.
func parselyPage(s string) parselyFields {
	if s == "" {
		return parselyFields{}
	}
	var v parsely
	if json.Unmarshal([]byte(s), &v) != nil {
		return parselyFields{}
	}
	return parselyFields{Author: names(v.Author, nil, 0), PubDate: v.PubDate, Tags: v.Tags}
}

// firstName is the first candidate that reads as a name, without the
// "By " that many sites write into their author meta too.
func firstName(cands ...string) string {
	for _, c := range cands {
		c = stripBy(clean(c))
		if c != "" && !strings.Contains(c, "://") && strings.ContainsFunc(c, unicode.IsLetter) {
			return c
		}
	}
	return ""
}

func nonURL(s string) string {
	if strings.Contains(s, "://") {
		return ""
	}
	return s
}

// byline is a byline element's text as a name: "By Jane Doe" is Jane Doe.
// A byline that carries more than a name (a date, a place) is not one.
func byline(s string) string {
	s = stripBy(clean(s))
	if s == "" || len(s) > 80 || strings.ContainsAny(s, "|•·0123456789@") || len(strings.Fields(s)) > 8 {
		return ""
	}
	return s
}

func stripBy(s string) string {
	for _, p := range []string{"by ", "By ", "BY ", "Von ", "von ", "Par ", "par ", "Por ", "por ", "Door ", "door "} {
		s = strings.TrimPrefix(s, p)
	}
	return strings.TrimSpace(s)
}

// nameNotURL is s unless it is an address rather than a name.
func nameNotURL(s string) string {
	if strings.Contains(s, "://") || strings.HasPrefix(s, "www.") {
		return ""
	}
	return s
}

func firstDate(cands ...string) time.Time {
	for _, c := range cands {
		if t, ok := readDate(c); ok {
			return t
		}
	}
	return time.Time{}
}

// bounded is s cut to maxFieldLen bytes, on a character boundary.
func bounded(s string) string {
	if len(s) <= maxFieldLen {
		return s
	}
	return strings.ToValidUTF8(s[:maxFieldLen], "")
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tagList merges the tag lists in order, trimmed, without duplicates
// (case-insensitively), at most maxTags; never nil.
func tagList(lists ...[]string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, l := range lists {
		for _, t := range l {
			t = clean(t)
			k := strings.ToLower(t)
			if t == "" || len(t) > maxTagLen || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, t)
			if len(out) == maxTags {
				return out
			}
		}
	}
	return out
}

// primaryLanguage is the primary language subtag of a declared tag ("en"
// of "en-GB" or "en_US"), or "" when it is not a known language.
func primaryLanguage(tag string) string {
	tag = strings.TrimSpace(tag)
	if i := strings.IndexAny(tag, ", "); i >= 0 {
		tag = tag[:i] // Content-Language may list several; the first is the main one
	}
	if tag == "" {
		return ""
	}
	t, err := language.Parse(strings.ReplaceAll(tag, "_", "-"))
	if err != nil {
		return ""
	}
	b, conf := t.Base()
	if conf == language.No || b.String() == "und" {
		return ""
	}
	return b.String()
}

// Language detection: the text read, and how much there must be.
const (
	detectBytes = 1024
	detectMin   = 200 // bytes of text below which no language is detected
)

// confusable groups are languages the detector tells apart badly: a
// declaration naming one of them is not overruled by another.
var confusable = [][]string{{"no", "nb", "nn", "da", "sv"}, {"hr", "bs", "sr"}, {"id", "ms"}, {"cs", "sk"},
	{"es", "gl", "ca", "pt"}, {"ru", "uk", "be", "bg"}, {"zh", "ja"}, {"hi", "mr", "ne"}, {"fa", "ar", "ur"}}

// nonLatin are languages not written in the Latin script.
var nonLatin = map[string]bool{
	"ru": true, "uk": true, "bg": true, "be": true, "mk": true, "kk": true, "ky": true, "mn": true, "tg": true,
	"ar": true, "fa": true, "ur": true, "ps": true, "he": true, "yi": true, "zh": true, "ja": true, "ko": true,
	"hi": true, "mr": true, "ne": true, "bn": true, "pa": true, "gu": true, "ta": true, "te": true, "kn": true,
	"ml": true, "si": true, "el": true, "th": true, "lo": true, "km": true, "my": true, "ka": true, "hy": true, "am": true,
}

// detectLanguage decides the page's language from the declaration and the
// text, with github.com/abadojack/whatlanggo (trigram profiles of 84
// languages, pure Go, no model to load): the declaration, unless the text
// plainly contradicts it; the detected language when nothing is declared
// and the detector is sure; else "".
//
// The detector costs about a millisecond per page on 2 KB, a third of the
// whole parse, so it only runs where there is doubt: no declaration; a
// declaration whose script the text does not match (lang="ru" on Latin
// text); or "en", the default of most themes, on text with few English
// function words. A declaration is overruled only by a certain detection of
// a language that is not its close neighbour.
func detectLanguage(declared, text string) string {
	if len(text) < detectMin {
		return declared
	}
	text = prefix(text, detectBytes)
	if declared != "" {
		script := whatlanggo.DetectScript(text)
		latin := script == unicode.Latin
		switch {
		case script == nil:
			return declared
		case nonLatin[declared] == latin:
			// the script contradicts the declaration: detect
		case declared == "en" && englishLike(text):
			return declared
		case declared != "en":
			return declared
		}
	}
	info := whatlanggo.Detect(text)
	if info.Lang < 0 || !info.IsReliable() {
		return declared
	}
	detected := info.Lang.Iso6391()
	if detected == "" || declared == detected {
		return strOr(declared, detected)
	}
	if declared == "" {
		return detected
	}
	if info.Confidence < 1 {
		return declared
	}
	for _, group := range confusable {
		if contains(group, declared) && contains(group, detected) {
			return declared
		}
	}
	return detected
}

// englishWords are frequent English function words; in English prose they
// are about a fifth of the words, in other languages next to none.
var englishWords = map[string]bool{"the": true, "and": true, "of": true, "to": true, "is": true, "in": true,
	"that": true, "for": true, "it": true, "with": true, "was": true, "on": true, "are": true, "this": true}

func englishLike(text string) bool {
	words, hits := 0, 0
	for _, w := range strings.Fields(text) {
		words++
		if englishWords[strings.ToLower(strings.Trim(w, ".,;:!?\"'()“”‘’"))] {
			hits++
		}
	}
	return words > 0 && hits*100 >= words*8
}

// prefix is s cut to at most n bytes on a character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
