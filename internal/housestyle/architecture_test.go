package housestyle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/capreport/capreport"

// section is what docs/architecture.md says of one package.
type section struct {
	imports  []string // the capreport packages it may import
	noK8s    bool     // it says it links no Kubernetes, Helm or kustomize code
	importsL int      // the line of its Imports: line, 0 when it has none
}

var (
	headingRE  = regexp.MustCompile("^### `([^`]+)`$")
	backtickRE = regexp.MustCompile("`([^`]+)`")
)

// readArchitecture parses the sections of docs/architecture.md: a
// "### `pkg`" heading, then a paragraph that starts with "Imports:" and
// lists packages in backticks (or says "nothing of capreport's").
func readArchitecture(t *testing.T, path string) map[string]*section {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*section{}
	var cur *section
	var inImports bool
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := headingRE.FindStringSubmatch(line); m != nil {
			cur = &section{}
			out[m[1]] = cur
			inImports = false
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "Imports:") {
			inImports, cur.importsL = true, n
		} else if strings.TrimSpace(line) == "" {
			inImports = false
		}
		if !inImports {
			continue
		}
		text, _, noK8s := strings.Cut(line, "Links no Kubernetes")
		for _, m := range backtickRE.FindAllStringSubmatch(text, -1) {
			cur.imports = append(cur.imports, m[1])
		}
		cur.noK8s = cur.noK8s || noK8s
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// listedPackage is what `go list -json` says of one package.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// goList lists every package of the module with its imports and deps.
func goList(t *testing.T, root string) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// isK8s tells a Kubernetes, Helm or kustomize package.
func isK8s(path string) bool {
	return strings.HasPrefix(path, "k8s.io/") || strings.HasPrefix(path, "sigs.k8s.io/") || strings.HasPrefix(path, "helm.sh/")
}

// TestArchitecture holds the code to docs/architecture.md: every package of
// the module has a section, imports only the capreport packages its section
// lists, and links no Kubernetes, Helm or kustomize code where its section
// says so; every section names a package that exists.
func TestArchitecture(t *testing.T) {
	root := filepath.Join("..", "..")
	doc := readArchitecture(t, filepath.Join(root, "docs", "architecture.md"))
	seen := map[string]bool{}
	for _, p := range goList(t, root) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[rel] = true
		s, ok := doc[rel]
		if !ok {
			t.Errorf("%s has no section in docs/architecture.md", rel)
			continue
		}
		if s.importsL == 0 {
			t.Errorf("%s: its section has no Imports: line", rel)
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if ok && !slices.Contains(s.imports, dep) {
				t.Errorf("%s imports %s, which docs/architecture.md (line %d) does not list", rel, dep, s.importsL)
			}
		}
		if s.noK8s {
			for _, d := range p.Deps {
				if isK8s(d) {
					t.Errorf("%s links %s, but docs/architecture.md says it links no Kubernetes, Helm or kustomize code", rel, d)
					break
				}
			}
		}
	}
	for name := range doc {
		if !seen[name] {
			t.Errorf("docs/architecture.md has a section for %s, which is not a package of the module", name)
		}
	}
}
