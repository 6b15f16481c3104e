package dates

import "strings"

var months = [...]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// monthOf accepts a month's full English name or any abbreviation of at
// least three letters ("Sep", "Sept").
func monthOf(word string) (int, bool) {
	if len(word) < 3 {
		return 0, false
	}
	for i, m := range months {
		if strings.HasPrefix(m, word) {
			return i + 1, true
		}
	}
	return 0, false
}

var dayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

func isDayName(word string) bool {
	if len(word) < 3 {
		return false
	}
	for _, d := range dayNames {
		if strings.HasPrefix(d, word) {
			return true
		}
	}
	return false
}

// zones maps the abbreviations feeds use to their offsets in minutes. Go's
// time.Parse accepts any abbreviation and gives the unknown ones offset 0,
// which moves an EST date by five hours. Where an abbreviation is ambiguous
// the reading most common in feeds is taken (IST as India, BST as British
// Summer Time).
var zones = map[string]int{
	"ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0,
	"est": -5 * 60, "edt": -4 * 60, "cst": -6 * 60, "cdt": -5 * 60,
	"mst": -7 * 60, "mdt": -6 * 60, "pst": -8 * 60, "pdt": -7 * 60,
	"akst": -9 * 60, "akdt": -8 * 60, "hst": -10 * 60, "ast": -4 * 60, "adt": -3 * 60,
	"nst": -(3*60 + 30), "ndt": -(2*60 + 30), "brt": -3 * 60, "art": -3 * 60,
	"bst": 60, "cet": 60, "cest": 2 * 60, "met": 60, "mest": 2 * 60, "west": 60,
	"eet": 2 * 60, "eest": 3 * 60, "msk": 3 * 60, "ist": 5*60 + 30,
	"sgt": 8 * 60, "hkt": 8 * 60, "awst": 8 * 60, "jst": 9 * 60, "kst": 9 * 60,
	"acst": 9*60 + 30, "aest": 10 * 60, "aedt": 11 * 60, "nzst": 12 * 60, "nzdt": 13 * 60,
}

// zoneOffset knows the named zones above and treats RFC 822's military
// letters other than Z as unknown, which RFC 5322 §4.3 says means -0000.
func zoneOffset(word string) (int, bool) {
	if m, ok := zones[word]; ok {
		return m * 60, true
	}
	if len(word) == 1 && word[0] >= 'a' && word[0] <= 'z' && word != "j" {
		return 0, true
	}
	return 0, false
}
