package housestyle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// raisers reads every production Go file of the module and returns, for
// each check ID constant (check.X), the functions that name it other than
// to compare with it: "pkg.Func" or "pkg.Type.Method", the package as its
// path below the module ("render", "render/internal/kustscan").
func raisers(t *testing.T, root string) map[string][]string {
	t.Helper()
	ids := checkConstants(t, filepath.Join(root, "check", "check.go"))
	found := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "internal/upstreamdiff" || rel == "check" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			for _, name := range namedIDs(fd.Body) {
				id, ok := ids[name]
				if !ok {
					continue
				}
				if found[id] == nil {
					found[id] = map[string]bool{}
				}
				found[id][pkg+"."+funcName(fd)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for id, fns := range found {
		for fn := range fns {
			out[id] = append(out[id], fn)
		}
		slices.Sort(out[id])
	}
	return out
}

// checkConstants maps the names of check.go's ID constants (its string
// constants but the severities) to their values.
func checkConstants(t *testing.T, path string) map[string]string {
	t.Helper()
	return testutil.StringConsts(t, path, check.SeverityError, check.SeverityWarning, check.SeverityInfo)
}

// namedIDs lists the check.X selectors in body, leaving out those that
// are compared with (==, !=, a switch case): those functions classify a
// finding, they do not raise one.
func namedIDs(body *ast.BlockStmt) []string {
	compared := map[ast.Expr]bool{}
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				compared[n.X], compared[n.Y] = true, true
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				compared[e] = true
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "check" && !compared[n] {
				out = append(out, n.Sel.Name)
			}
		}
		return true
	})
	return out
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// TestRaisedBy holds each registry entry's RaisedBy to the source: the
// functions that name the check (other than to compare with it) are
// exactly the ones it lists.
func TestRaisedBy(t *testing.T) {
	got := raisers(t, "../..")
	for _, c := range check.All() {
		if !slices.Equal(c.RaisedBy, got[c.ID]) {
			t.Errorf("check %q: the registry says it is raised by %q, the source by %q", c.ID, c.RaisedBy, got[c.ID])
		}
		delete(got, c.ID)
	}
	for id, fns := range got {
		t.Errorf("%s name %q, which is not registered", fns, id)
	}
}
