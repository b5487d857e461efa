// Package housestyle holds tests of the house rules of ../shared/design/style.md
// that the compiler and the linters do not check, and docs/architecture.md.
package housestyle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the house limit on a function, signature to closing brace.
const maxFuncLines = 80

// No production function is longer than maxFuncLines. Tests, testdata and
// the byte-identical upstream copies in internal/upstreamdiff and
// internal/kedadiff are exempt.
func TestFunctionLength(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "upstreamdiff", "kedadiff", ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d: %s is %d lines (at most %d)", rel, start.Line, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
