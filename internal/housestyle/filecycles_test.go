package housestyle

import (
	"fmt"
	"go/ast"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/capreport/capreport/internal/testutil"
)

// fileCycles are the packages whose production files still depend on
// each other in a circle (issue 32: "files call down, not up"), with the
// files of each circle. The list may only shrink: a new circle, or a
// circle that grew, fails TestFileCycles, and so does one that shrank or
// went without the list being brought down to it.
var fileCycles = map[string][][]string{}

// TestFileCycles holds the files of each package to depend on each other
// one way: a file that uses what another file of its package declares (a
// function, type, method, field, variable or constant) depends on it, and
// no chain of such uses may lead back. It reads the module with its type
// information, so a use is resolved as the compiler resolves it.
func TestFileCycles(t *testing.T) {
	root := testutil.RepoRoot(t)
	cfg := &packages.Config{Dir: root,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	got, edges := map[string][][]string{}, map[string]string{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		deps := fileDeps(p)
		if cycles := stronglyConnected(deps); len(cycles) > 0 {
			pkg := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
			got[pkg], edges[pkg] = cycles, cycleEdges(deps, cycles)
		}
	}
	for pkg, cycles := range got {
		if want, ok := fileCycles[pkg]; !ok || !slices.EqualFunc(want, cycles, slices.Equal) {
			t.Errorf("%s: files that depend on each other in a circle: %s\n(want %s; move what the lower file needs down into it, or into a file of its own, so uses run one way); the uses:%s",
				pkg, describeCycles(cycles), describeCycles(want), edges[pkg])
		}
		if os.Getenv("FILECYCLES") == pkg {
			t.Logf("%s's circles and the uses that close them:%s", pkg, edges[pkg])
		}
	}
	for pkg, want := range fileCycles {
		if _, ok := got[pkg]; !ok {
			t.Errorf("%s: no circle among its files any more (want %s): delete its entry from fileCycles", pkg, describeCycles(want))
		}
	}
}

// fileDeps maps each production file of p (by base name) to the files of
// p whose declarations it uses, with the names it uses from each.
func fileDeps(p *packages.Package) map[string]map[string][]string {
	deps := map[string]map[string][]string{}
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		deps[from] = map[string][]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !declaredAtFileLevel(obj, p.Types) {
				return true
			}
			if to := filepath.Base(p.Fset.Position(obj.Pos()).Filename); to != from && !slices.Contains(deps[from][to], id.Name) {
				deps[from][to] = append(deps[from][to], id.Name)
			}
			return true
		})
	}
	return deps
}

// cycleEdges spells the uses that close each circle, file → file: names.
func cycleEdges(deps map[string]map[string][]string, cycles [][]string) string {
	var b strings.Builder
	for _, c := range cycles {
		for _, from := range c {
			for _, to := range slices.Sorted(maps.Keys(deps[from])) {
				if slices.Contains(c, to) {
					fmt.Fprintf(&b, "\n\t%s → %s: %s", from, to, strings.Join(deps[from][to], ", "))
				}
			}
		}
	}
	return b.String()
}

// declaredAtFileLevel says whether obj is one a file declares for the
// package (what another file can use): a package-level name, a method,
// or a field of a struct type; not a local, a parameter or a label.
func declaredAtFileLevel(obj types.Object, pkg *types.Package) bool {
	switch o := obj.(type) {
	case *types.Func:
		return o.Parent() == pkg.Scope() || o.Type().(*types.Signature).Recv() != nil
	case *types.Var:
		return o.IsField() || o.Parent() == pkg.Scope()
	case *types.TypeName, *types.Const:
		return obj.Parent() == pkg.Scope()
	}
	return false
}

// stronglyConnected returns the circles of g (its strongly connected
// components of more than one node), each sorted, in order.
func stronglyConnected[V any](g map[string]map[string]V) [][]string {
	index, low, on := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		on[v] = true
		for _, w := range slices.Sorted(maps.Keys(g[v])) {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if on[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			on[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 {
			slices.Sort(scc)
			out = append(out, scc)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(g)) {
		if _, seen := index[v]; !seen {
			visit(v)
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out
}

func describeCycles(cycles [][]string) string {
	if len(cycles) == 0 {
		return "none"
	}
	var parts []string
	for _, c := range cycles {
		parts = append(parts, fmt.Sprintf("{%s}", strings.Join(c, " ")))
	}
	return strings.Join(parts, ", ")
}

// TestStronglyConnected: the circle finder on small graphs.
func TestStronglyConnected(t *testing.T) {
	g := func(edges ...string) map[string]map[string]bool {
		out := map[string]map[string]bool{}
		for _, e := range edges {
			from, to, _ := strings.Cut(e, ">")
			if out[from] == nil {
				out[from] = map[string]bool{}
			}
			out[from][to] = true
		}
		return out
	}
	for _, tc := range []struct {
		graph map[string]map[string]bool
		want  string
	}{
		{g("a>b", "b>c"), "none"},
		{g("a>b", "b>a"), "{a b}"},
		{g("a>b", "b>c", "c>a", "c>d", "d>e", "e>d"), "{a b c}, {d e}"},
		{g("x>x"), "none"}, // a file using itself is no circle
	} {
		if got := describeCycles(stronglyConnected(tc.graph)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.graph, got, tc.want)
		}
	}
}
