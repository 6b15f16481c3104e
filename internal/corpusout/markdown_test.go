package corpusout

import "testing"

func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"A paragraph.\n\nAnother one.", "A paragraph.\n\nAnother one."},
		{"# not a heading", `\# not a heading`},
		{"- not a list\n\n> not a quote", "\\- not a list\n\n\\> not a quote"},
		{"1. not a list\n\n2026) neither", "1\\. not a list\n\n2026\\) neither"},
		{"    not code", "not code"},
		{"*stars* and _under_ [link](x) `tick` a|b <tag> back\\slash", `\*stars\* and \_under\_ \[link\](x) \` + "`" + `tick\` + "`" + ` a\|b \<tag> back\\slash`},
		{"Ordinary 3.5 text", "Ordinary 3.5 text"},
	} {
		if got := Markdown(tc.in); got != tc.want {
			t.Errorf("Markdown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
