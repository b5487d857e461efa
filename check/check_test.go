package check

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// declaredIDs are the check IDs check.go declares: every string constant
// but the severities.
func declaredIDs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "check.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("%s: not a string literal", v.Names[0])
			}
			val, _ := strconv.Unquote(lit.Value)
			switch val {
			case SeverityError, SeverityWarning, SeverityInfo:
				continue
			}
			ids[v.Names[0].Name] = val
		}
	}
	return ids
}

// Every check any layer can raise has a complete registry entry (SARIF
// rules, the README table and help text come from it), no ID is listed
// twice, and the registry holds nothing that is not declared.
func TestRegistryCoversEveryCheck(t *testing.T) {
	ids := declaredIDs(t)
	if len(ids) < 60 {
		t.Fatalf("only %d IDs declared: %v", len(ids), ids)
	}
	for name, id := range ids {
		info, ok := Lookup(id)
		if !ok {
			t.Errorf("check %s (%q) has no registry entry", name, id)
			continue
		}
		if info.Title == "" || info.Description == "" || info.Remediation == "" {
			t.Errorf("check %q: incomplete entry %+v", id, info)
		}
		switch info.Severity {
		case SeverityError, SeverityWarning, SeverityInfo:
		default:
			t.Errorf("check %q: severity %q", id, info.Severity)
		}
	}
	seen := map[string]bool{}
	for _, c := range All() {
		if seen[c.ID] {
			t.Errorf("check %q listed twice", c.ID)
		}
		seen[c.ID] = true
	}
	if len(seen) != len(ids) {
		t.Errorf("registry has %d checks, check.go declares %d", len(seen), len(ids))
	}
}

// Lookup fails closed: an ID that is not a check finds nothing.
func TestLookupUnknown(t *testing.T) {
	for _, id := range []string{"", "no-such-check", "Dead-Band", " dead-band"} {
		if info, ok := Lookup(id); ok || info != (Info{}) {
			t.Errorf("Lookup(%q) = %+v, %v", id, info, ok)
		}
	}
}
