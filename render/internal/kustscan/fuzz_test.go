package kustscan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// kustFuzzTree is the repository FuzzKustomizeRewrite rewrites in: built
// once per worker, with a file and a directory outside the root.
func kustFuzzTree(f *testing.F) (*repofs.Repo, string) {
	base := f.TempDir()
	root := filepath.Join(base, "root")
	files := map[string]string{
		"root/app/deploy.yaml":             hpaDoc("web", "4"),
		"root/app/patch.yaml":              "kind: HorizontalPodAutoscaler\n",
		"root/app/base/kustomization.yaml": "resources: [hpa.yaml]\n",
		"root/app/base/hpa.yaml":           hpaDoc("b", "2"),
		"root/other/x.yaml":                hpaDoc("x", "2"),
		"outside/evil.yaml":                hpaDoc("evil", "2"),
		"outside/kustomization.yaml":       "resources: [evil.yaml]\n",
	}
	for p, s := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, p)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(base, p), []byte(s), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "app", "link")); err != nil {
		f.Fatal(err)
	}
	r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, 1<<20)
	if err != nil {
		f.Fatal(err)
	}
	return r, filepath.Join(r.Root, "app")
}

// gitUser is the user@ that makes krusty read an entry as an SCP-style git
// URL (kustomize api/internal/git extractUsername, after an optional
// git::). An "@" elsewhere ("@/..", "a/@b") is part of a local path.
var gitUser = regexp.MustCompile(`^(?i:git::)?[a-zA-Z][a-zA-Z0-9-]*@`)

// localEntry reports whether e, listed in the kustomization of dir, is a
// path that exists inside the root, symlinks evaluated, and nothing that
// could be fetched.
func localEntry(r *repofs.Repo, dir, e string) bool {
	t := strings.TrimSpace(e)
	if strings.Contains(e, "://") || gitUser.MatchString(t) || strings.HasPrefix(strings.ToLower(t), "git") || filepath.IsAbs(e) {
		return false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(e)))
	return err == nil && r.Within(real)
}

// FuzzKustomizeRewrite: whatever a kustomization lists, the copy the build
// reads (after the scan, when it refuses nothing) lists in resources,
// bases, components and crds only paths that exist inside the root: every
// remote, escaping or missing entry is dropped. Never a panic.
func FuzzKustomizeRewrite(f *testing.F) {
	r, dir := kustFuzzTree(f)
	for _, s := range [][4]string{
		{"deploy.yaml", "base", "https://github.com/o/r//x?ref=v1", "../other/x.yaml"},
		{"../../outside/evil.yaml", "link", "link/evil.yaml", "git@github.com:o/r.git"},
		{"github.com/o/r", "missing.yaml", "/etc/passwd", "./base/../deploy.yaml"},
		{" deploy.yaml", "base/", "ssh://h/r", "deploy.yaml"},
		{"@/..", "a@b.c:x/y", "base/@/..", "Git::user@h:r"}, // found by CI: "@/.." is local
	} {
		f.Add(s[0], s[1], s[2], s[3], uint8(0))
	}
	fields := []string{"resources", "bases", "components", "crds"}
	f.Fuzz(func(t *testing.T, e0, e1, e2, e3 string, shape uint8) {
		doc := map[string]any{"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
		for i, e := range []string{e0, e1, e2, e3} {
			field := fields[(int(shape)>>(2*i))%len(fields)]
			l, _ := doc[field].([]any)
			doc[field] = append(l, e)
		}
		sc := New(r)
		sc.Override[dir] = &Kustomization{File: filepath.Join(dir, "kustomization.yaml"), Doc: doc}
		sc.Scan(dir, false)
		if len(sc.Refusals) > 0 {
			return // the root is refused, nothing is built
		}
		overlay, err := sc.Rewrite(func(string, *Kustomization, map[string]any, map[string]any) ([]byte, error) {
			t.Fatal("no kustomization of this tree has helmCharts")
			return nil, nil
		}, Tracing{Krusty: true})
		if err != nil {
			return
		}
		for p, data := range overlay {
			var k map[string]any
			if err := sigsyaml.Unmarshal(data, &k); err != nil {
				t.Fatalf("%s: the rewrite is not YAML: %v", p, err)
			}
			for _, field := range fields {
				for _, e := range yamldoc.StrList(k[field]) {
					if !localEntry(r, filepath.Dir(p), e) {
						t.Fatalf("%s: %s keeps %q\n%s", r.Rel(p), field, e, data)
					}
				}
			}
		}
	})
}

// hpaDoc is a minimal HPA manifest (render's test helper of the same name).
func hpaDoc(name, max string) string {
	return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
		"\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: " + name + "\n  minReplicas: 1\n  maxReplicas: " + max + "\n"
}
