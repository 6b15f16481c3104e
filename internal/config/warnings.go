package config

// Warnings lists, one line each, the settings in s whose value is accepted
// but unfit for the real web: an interval or a TTL under its production
// floor, as a simulation sets them to run days in seconds, e.g.
// "ROBOTS_TTL=10s is below 1m: for simulations only". It judges the values
// in force, so a setting gets at most one warning however many sources
// gave it, and none when a later source raised it again. Defaults draw
// none. The caller shows them (cmd/corpusbot: on stderr, once per command).
func (s Settings) Warnings() []string {
	var out []string
	for _, p := range table {
		if w := p.warning(s); w != "" {
			out = append(out, w)
		}
	}
	return out
}
