package config

import (
	"fmt"
	"math"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// kind is how one Go type is read and written. raw is a string when it comes
// from the environment, a flag or a TOML string, and a native TOML value
// (int64, bool, ...) otherwise, so every source shares one parser.
type kind[T any] struct {
	// desc says which forms are accepted (a duration's units, a size's), or
	// is empty when any text is one (strings: the rule says what is
	// accepted). Its `backquoted` word is what flag.PrintDefaults shows as
	// the argument name.
	desc   string
	isBool bool
	parse  func(raw any) (T, error)
	format func(T) string
}

var durationKind = kind[time.Duration]{
	desc:   "a `duration` such as 90s or 1h30m, or whole seconds",
	parse:  parseDuration,
	format: formatDuration,
}

var sizeKind = kind[int64]{
	desc:   "a `size` in bytes, or with a unit: KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024)",
	parse:  parseSize,
	format: formatSize,
}

var intKind = kind[int]{
	desc:   "a whole `number`",
	parse:  parseInt,
	format: strconv.Itoa,
}

var boolKind = kind[bool]{
	desc:   "true or false (or 1 or 0)",
	isBool: true,
	parse:  parseBool,
	format: strconv.FormatBool,
}

// stringKind has no desc: any text parses as a string, so what a string
// setting accepts is its rule's to say (and check), once. A kind that
// described the values too would repeat the rule in the help.
var stringKind = kind[string]{
	parse:  parseString,
	format: func(s string) string { return s },
}

// dsnKind masks credentials when shown, because the crawler page lists every
// setting's value in public. Like stringKind, it leaves the description of
// what is accepted to its rule (dbRule).
var dsnKind = kind[string]{
	parse:  parseString,
	format: redactDSN,
}

func parseDuration(raw any) (time.Duration, error) {
	switch v := raw.(type) {
	case int64:
		return secondsToDuration(v)
	case string:
		s := strings.TrimSpace(v)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return secondsToDuration(n)
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q (want e.g. \"90s\", \"1h30m\" or whole seconds)", v)
		}
		if d < 0 {
			return 0, fmt.Errorf("negative duration %q", v)
		}
		return d, nil
	}
	return 0, wrongType("a duration string or whole seconds", raw)
}

func secondsToDuration(n int64) (time.Duration, error) {
	if n < 0 {
		return 0, fmt.Errorf("negative duration %d seconds", n)
	}
	if n > math.MaxInt64/int64(time.Second) {
		return 0, fmt.Errorf("duration %d seconds is too long", n)
	}
	return time.Duration(n) * time.Second, nil
}

// formatDuration drops the zero tails Duration.String adds ("24h0m0s"), so a
// listing reads the way an operator writes the value; the result still parses.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// sizeUnits is keyed by lower case: units are accepted in any case, and
// nobody configures a body limit in bits.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

func parseSize(raw any) (int64, error) {
	switch v := raw.(type) {
	case int64:
		if v < 0 {
			return 0, fmt.Errorf("negative size %d", v)
		}
		return v, nil
	case string:
		return parseSizeString(v)
	}
	return 0, wrongType("a size such as \"5MB\" or a number of bytes", raw)
}

// parseSizeString is exact: "1.5KiB" is 1536 bytes, and a value that is not a
// whole number of bytes is an error rather than silently rounded.
func parseSizeString(s string) (int64, error) {
	t := strings.TrimSpace(s)
	split := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if split >= 0 {
		num, unit = t[:split], strings.TrimSpace(t[split:])
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (want B, KB, MB, GB, KiB, MiB or GiB)", s, unit)
	}
	r, ok := new(big.Rat).SetString(num)
	if num == "" || !ok {
		return 0, fmt.Errorf("invalid size %q (want e.g. \"5MB\", \"512KiB\" or a number of bytes)", s)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("invalid size %q: not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return r.Num().Int64(), nil
}

// formatSize picks the largest unit that divides the size exactly, so the
// listing shows "5MB" rather than 5000000 and still parses back.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{
		{"TB", 1e12}, {"TiB", 1 << 40}, {"GB", 1e9}, {"GiB", 1 << 30},
		{"MB", 1e6}, {"MiB", 1 << 20}, {"KB", 1e3}, {"KiB", 1 << 10},
	} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

func parseInt(raw any) (int, error) {
	switch v := raw.(type) {
	case int64:
		if v < math.MinInt || v > math.MaxInt {
			return 0, fmt.Errorf("integer %d out of range", v)
		}
		return int(v), nil
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("invalid integer %q", v)
		}
		return n, nil
	}
	return 0, wrongType("an integer", raw)
}

// parseBool accepts fewer spellings than strconv.ParseBool on purpose: "t" or
// "F" in a config file is more likely a slip than a decision.
func parseBool(raw any) (bool, error) {
	switch v := raw.(type) {
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return false, fmt.Errorf("invalid boolean %q (want true, false, 1 or 0)", v)
	}
	return false, wrongType("true or false", raw)
}

func parseString(raw any) (string, error) {
	if v, ok := raw.(string); ok {
		return v, nil
	}
	return "", wrongType("a string", raw)
}

func redactDSN(dsn string) string {
	if !strings.Contains(dsn, "://") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

func wrongType(want string, raw any) error {
	switch raw.(type) {
	case map[string]any, []any, []map[string]any:
		return fmt.Errorf("want %s, got a %s", want, tomlType(raw))
	}
	return fmt.Errorf("want %s, got %s %v", want, tomlType(raw), raw)
}

// tomlType names a decoded value the way the TOML spec does, since the file
// is the only source that produces anything but strings.
func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case map[string]any:
		return "table"
	case []any, []map[string]any:
		return "array"
	case time.Time:
		return "datetime"
	}
	return fmt.Sprintf("%T", v)
}
