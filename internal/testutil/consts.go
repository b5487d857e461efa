package testutil

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// StringConsts reads the Go file at path and returns its string constants,
// name to value, but those whose value is one of except; a constant whose
// value is not a string literal fails the test.
func StringConsts(tb testing.TB, path string, except ...string) map[string]string {
	tb.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				tb.Fatalf("%s: %s is not a string literal", path, v.Names[0])
			}
			val, err := strconv.Unquote(lit.Value)
			if err != nil {
				tb.Fatal(err)
			}
			if !slices.Contains(except, val) {
				out[v.Names[0].Name] = val
			}
		}
	}
	return out
}
