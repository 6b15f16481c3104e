package mdtext

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain words, 3.5 of them", "plain words, 3.5 of them"},
		{"   # lead", `\# lead`},
		{"12) twelve", `12\) twelve`},
		{"a & b, AT&T, &amp; &#38;", `a & b, AT\&T, \&amp; \&#38;`},
		{"*a* _b_ [c] <d> `e` f|g h\\i", "\\*a\\* \\_b\\_ \\[c\\] \\<d> \\`e\\` f\\|g h\\\\i"},
		{"café ≠ cafe", "café ≠ cafe"},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFence(t *testing.T) {
	for in, want := range map[string]string{"x": "```", "a `b` c": "```", "```go": "````", "x ````` y": "``````"} {
		if got := Fence(in); got != want {
			t.Errorf("Fence(%q) = %q, want %q", in, got, want)
		}
	}
}
