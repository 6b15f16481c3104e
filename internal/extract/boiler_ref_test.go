package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The block tests as they were before their scans were cut short by
// cheaper checks, kept as the reference the faster ones must agree with.

func referenceBoilerBlock(b string, heading bool) bool {
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
	if tagLine(lower) || contributed(lower) || creditedCaption(lower) || metaLineSlow(lower) || shortcodeBlock(b) || referencePitchEnd(lower) {
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
	if strings.HasPrefix(b, "©") || uiBlocks[strings.Trim(lower, " .:…")] || referenceCounter(lower) || contactLine(lower) {
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
	// every short block.
	var first, second string
	words := 0
	for w := range strings.FieldsSeq(b) {
		switch words {
		case 0:
			first = w
		case 1:
			second = w
		}
		words++
	}
	if words >= 2 && bylineWords[strings.ToLower(first)] {
		r, _ := utf8.DecodeRuneInString(second)
		// "By Jane Doe", or a byline run into a dateline: "By HNN Staff |
		// November 18, 2019 at 2:26 PM HST - Updated November 18".
		if unicode.IsUpper(r) && ((words <= 12 && !strings.ContainsAny(b, ".!?")) ||
			(words <= 30 && strings.ContainsAny(b, "|") && strings.ContainsAny(b, "0123456789"))) {
			return true
		}
	}
	for _, l := range creditLabels {
		if !strings.Contains(lower, l) {
			continue
		}
		if i := strings.LastIndex(lower, l); i == 0 || !strings.Contains(lower[i:], ".") {
			return true
		}
	}
	for _, a := range agencies {
		if !strings.Contains(lower, a) {
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
	return words > 0
}

func referenceCounter(lower string) bool {
	if !strings.Contains(lower, "of") {
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

func referencePitchEnd(lower string) bool {
	if !strings.Contains(lower, "newsletter") && !strings.Contains(lower, "inbox") {
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

// FuzzBoilerBlockMatchesReference: boilerBlock, with its searches skipped
// where a byte they need is missing, judges every block as the reference
// does.
func FuzzBoilerBlockMatchesReference(f *testing.F) {
	for _, b := range []string{
		"Image 3 of 9", " /Photo 1/12", "photo 1 of", "Slide 2 of 10", "images 1 of 2",
		"05/10/2018 - Publicado por: Clarissa - Categoria: Saúde", "By Jane | Nov 18, 2019", "a – b · c • d",
		"Credit: EPA", "A dog. (Image: GETTY)", "A dog. Photo: x. More.", "… | Getty Images", "(AP Photo/David)",
		"REUTERS/Jane Doe", "Jane/AFP", "x/EPA.", "Share this: Facebook Twitter", "Email x at y@z.com",
		"By Jane Doe", "BY JANE DOE", "by  jane", "By\u00a0Jane Doe", "Von Max Muster | 12.3.2024", "By", "  ", "",
		"Start your day. Sign up for our Newsletter.", "Get it in your INBOX. Subscribe.", "Facebook Twitter Email",
	} {
		f.Add(b, false)
		f.Add(b, true)
	}
	names, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		for b := range strings.SplitSeq(string(text), "\n\n") {
			if len(b) <= maxPitch {
				f.Add(b, false)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b string, heading bool) {
		if got, want := boilerBlock(b, heading), referenceBoilerBlock(b, heading); got != want {
			t.Fatalf("boilerBlock(%q, %v) = %v, reference %v", b, heading, got, want)
		}
	})
}
