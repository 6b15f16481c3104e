package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// declared returns the values of the constants of type typ declared in
// vocabulary.go, by name.
func declared(t *testing.T, typ string) map[string]string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "vocabulary.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range file.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			for i, name := range v.Names {
				lit, ok := v.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: not a string literal", name.Name)
				}
				out[name.Name] = lit.Value[1 : len(lit.Value)-1]
			}
		}
	}
	return out
}

// TestVocabularyListsEveryConstant: a Purpose or an Outcome added to
// vocabulary.go but not to the lists would be a word the metrics never start
// at zero and the dashboard never names.
func TestVocabularyListsEveryConstant(t *testing.T) {
	purposes := declared(t, "Purpose")
	if len(purposes) != len(Purposes()) {
		t.Errorf("vocabulary.go declares %d purposes, Purposes lists %d", len(purposes), len(Purposes()))
	}
	for name, v := range purposes {
		if !slices.Contains(Purposes(), Purpose(v)) {
			t.Errorf("Purposes lacks %s (%q)", name, v)
		}
	}
	outcomes := declared(t, "Outcome")
	if len(outcomes) != len(Outcomes()) {
		t.Errorf("vocabulary.go declares %d outcomes, Outcomes lists %d", len(outcomes), len(Outcomes()))
	}
	for name, v := range outcomes {
		if !slices.Contains(Outcomes(), Outcome(v)) {
			t.Errorf("Outcomes lacks %s (%q)", name, v)
		}
	}
}

func TestDeclined(t *testing.T) {
	var declined []Outcome
	for _, o := range Outcomes() {
		if o.Declined() {
			declined = append(declined, o)
		}
	}
	want := []Outcome{OutcomeDisallowed, OutcomeRefused, OutcomeOptedOut, OutcomeWaiting}
	if !slices.Equal(declined, want) {
		t.Errorf("declined outcomes %v, want %v", declined, want)
	}
}
