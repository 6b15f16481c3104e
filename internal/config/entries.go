package config

import "strings"

// Entry describes one setting for people: help output, the crawler page.
type Entry struct {
	Name    string // MIN_GAP
	Env     string // CORPUSBOT_MIN_GAP
	Flag    string // min-gap, without the dashes
	Help    string // purpose, accepted forms and bounds
	Default string
	Value   string // for display: credentials in a database URL are masked
}

// Entries lists every setting with its value in s, in the contract's order.
func (s Settings) Entries() []Entry {
	def := Defaults()
	out := make([]Entry, 0, len(table))
	for _, p := range table {
		out = append(out, Entry{
			Name:    p.name,
			Env:     p.envName(),
			Flag:    p.flagName(),
			Help:    strings.ReplaceAll(p.help, "`", ""),
			Default: p.show(def),
			Value:   p.show(s),
		})
	}
	return out
}
