package dates

import "strings"

// monthNames lists each month's full name in the languages feeds are
// commonly written in (English, German, French, Spanish, Italian, Dutch,
// Portuguese). A word names a month when it is one of these names or a
// prefix of one at least three bytes long ("Sep", "Sept", "févr", "Okt"),
// or one of the few abbreviations that are not prefixes ("mrt").
var monthNames = [12][]string{
	{"january", "januar", "janvier", "enero", "gennaio", "januari", "janeiro"},
	{"february", "februar", "février", "fevrier", "febrero", "febbraio", "februari", "fevereiro"},
	{"march", "märz", "maerz", "mars", "marzo", "maart", "março", "mrt"},
	{"april", "avril", "abril", "aprile"},
	{"may", "mai", "mayo", "maggio", "mei", "maio"},
	{"june", "juni", "juin", "junio", "giugno", "junho"},
	{"july", "juli", "juillet", "julio", "luglio", "julho"},
	{"august", "août", "aout", "agosto", "augustus"},
	{"september", "septembre", "septiembre", "settembre", "setembro"},
	{"october", "oktober", "octobre", "octubre", "ottobre", "outubro"},
	{"november", "novembre", "noviembre", "novembro"},
	{"december", "dezember", "décembre", "decembre", "diciembre", "dicembre", "dezembro"},
}

// dayNames are matched the same way, and also by the two-letter German
// abbreviations ("Di, 03 Jun 2025").
var dayNames = []string{
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
	"lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
	"lunes", "martes", "miércoles", "miercoles", "jueves", "viernes", "sábado", "sabado", "domingo",
	"lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica",
	"maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag",
	"segunda", "terça", "quarta", "quinta", "sexta",
}

var twoLetterDays = []string{"mo", "di", "mi", "do", "fr", "sa", "so"}

// names reports whether word (lower-case, without a trailing dot) can be
// read as a month, and which, and whether it can be read as a day name.
// "mar" is both: March, and Tuesday in French and Spanish.
func names(word string) (month int, isMonth, isDay bool) {
	for i, list := range monthNames {
		if namedBy(list, word) {
			month, isMonth = i+1, true
			break
		}
	}
	isDay = namedBy(dayNames, word)
	for _, d := range twoLetterDays {
		isDay = isDay || word == d
	}
	return month, isMonth, isDay
}

func namedBy(list []string, word string) bool {
	for _, name := range list {
		if word == name || len(word) >= 3 && strings.HasPrefix(name, word) {
			return true
		}
	}
	return false
}

// zones maps the abbreviations feeds use to their offsets in minutes. Go's
// time.Parse accepts any abbreviation and gives the unknown ones offset 0,
// which moves an EST date by five hours. Where an abbreviation is ambiguous
// the reading most common in feeds is taken (IST as India, BST as British
// Summer Time). The bare North American names ET, CT, MT and PT are read as
// standard time, as feedparser's table reads them; AT (Atlantic, -4) is read
// in parseParts, since "at" is also a word dates are written with.
var zones = map[string]int{
	"ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0,
	"et": -5 * 60, "ct": -6 * 60, "mt": -7 * 60, "pt": -8 * 60,
	"est": -5 * 60, "edt": -4 * 60, "cst": -6 * 60, "cdt": -5 * 60,
	"mst": -7 * 60, "mdt": -6 * 60, "pst": -8 * 60, "pdt": -7 * 60,
	"akst": -9 * 60, "akdt": -8 * 60, "hst": -10 * 60, "ast": -4 * 60, "adt": -3 * 60,
	"nst": -(3*60 + 30), "ndt": -(2*60 + 30), "brt": -3 * 60, "art": -3 * 60,
	"bst": 60, "cet": 60, "cest": 2 * 60, "met": 60, "mest": 2 * 60, "west": 60,
	"eet": 2 * 60, "eest": 3 * 60, "msk": 3 * 60, "ist": 5*60 + 30,
	"sgt": 8 * 60, "hkt": 8 * 60, "awst": 8 * 60, "jst": 9 * 60, "kst": 9 * 60,
	"acst": 9*60 + 30, "aest": 10 * 60, "aedt": 11 * 60, "nzst": 12 * 60, "nzdt": 13 * 60,
}

// zoneOffset knows the named zones above, "GMT+2" and "UTC-05:00" forms, and
// treats RFC 822's military letters other than Z as unknown, which RFC 5322
// §4.3 says means -0000.
func zoneOffset(word string) (int, bool) {
	if m, ok := zones[word]; ok {
		return m * 60, true
	}
	if len(word) == 1 && word[0] >= 'a' && word[0] <= 'z' && word != "j" {
		return 0, true
	}
	if rest, ok := strings.CutPrefix(word, "etc/"); ok {
		// The tz database's fixed zones. Their signs are POSIX's, the
		// inverse of ISO's: Etc/GMT+5 is five hours behind UTC.
		switch rest {
		case "gmt", "utc", "ut", "uct", "zulu", "universal", "greenwich":
			return 0, true
		}
		if r, ok := strings.CutPrefix(rest, "gmt"); ok && len(r) > 1 && (r[0] == '+' || r[0] == '-') {
			off, ok := numericZone(r[1:])
			if r[0] == '+' {
				off = -off
			}
			return off, ok
		}
		return 0, false
	}
	for _, base := range []string{"gmt", "utc", "ut"} {
		if rest, ok := strings.CutPrefix(word, base); ok && len(rest) > 1 && (rest[0] == '+' || rest[0] == '-') {
			off, ok := numericZone(rest[1:])
			if rest[0] == '-' {
				off = -off
			}
			return off, ok
		}
	}
	return 0, false
}
