package extract

import (
	"strings"
	"testing"
)

func TestDetectLanguage(t *testing.T) {
	en := strings.Repeat("The committee met on Tuesday to talk about the water troughs, and it was agreed that the pump is on loan. ", 4)
	de := strings.Repeat("Der Ausschuss traf sich am Dienstag, um über die Wassertröge zu sprechen, und es wurde eine Pumpe geliehen. ", 4)
	ru := strings.Repeat("Комитет садоводов собрался во вторник вечером, чтобы обсудить протекающие корыта для воды. ", 4)
	no := strings.Repeat("Komiteen møttes tirsdag for å snakke om vanntrauene, som lekker hver sommer og som ingen har reparert. ", 4)
	for _, c := range []struct{ declared, text, want string }{
		{"en", en, "en"},
		{"", en, "en"},        // none declared: detected
		{"en", de, "de"},      // a theme's default on German text: overruled
		{"ru", en, "en"},      // the script contradicts the declaration
		{"de", en, "de"},      // a declaration other than the default stands unless the script says otherwise
		{"da", no, "da"},      // close neighbours: the declaration stands
		{"fr", "court", "fr"}, // too little text to judge
		{"", "short", ""},     // and nothing made up
		{"en", ru, "ru"},
	} {
		if got := detectLanguage(c.declared, c.text); got != c.want {
			t.Errorf("detectLanguage(%q, %.30q…) = %q, want %q", c.declared, c.text, got, c.want)
		}
	}
}

func TestPrimaryLanguage(t *testing.T) {
	for in, want := range map[string]string{"en-GB": "en", "en_US": "en", "pt-BR, en": "pt", "zh-Hant-TW": "zh", "i-klingon": "tlh", "xx-nonsense-": "", "": "", "und": ""} {
		if got := primaryLanguage(in); got != want {
			t.Errorf("primaryLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}
