package kustomize

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// What krusty reads through an FS: the repository's files and the
// overlay, nothing outside the root (a symlink out is refused and recorded
// as the build's violation), no alias bomb, and nothing written.
func TestFSConfinesKrusty(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "app", "cm.yaml"), "kind: ConfigMap\n")
	write(filepath.Join(out, "secret.yaml"), "kind: Secret\n")
	write(filepath.Join(root, "app", "bomb.yaml"), "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n")
	if err := os.Symlink(filepath.Join(out, "secret.yaml"), filepath.Join(root, "app", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	r, err := repofs.Open(filesys.MakeFsOnDisk(), true, root, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(r.Root, "app", "kustomization.yaml")
	fs := NewFS(r, map[string][]byte{overlay: []byte("resources: [cm.yaml]\n")})
	if data, err := fs.ReadFile(filepath.Join(r.Root, "app", "cm.yaml")); err != nil || string(data) != "kind: ConfigMap\n" {
		t.Errorf("a file of the repository reads %q, %v", data, err)
	}
	if data, err := fs.ReadFile(overlay); err != nil || string(data) != "resources: [cm.yaml]\n" {
		t.Errorf("the overlay reads %q, %v", data, err)
	}
	if fs.FirstViolation() != nil {
		t.Fatalf("a violation before any: %v", fs.FirstViolation())
	}
	if data, err := fs.ReadFile(filepath.Join(r.Root, "app", "link.yaml")); err == nil {
		t.Errorf("a symlink out of the root read %q", data)
	}
	var pe *repofs.PathError
	if v := fs.FirstViolation(); !errors.As(v, &pe) {
		t.Errorf("the escape was recorded as %v, want a repofs.PathError", v)
	}
	if _, err := fs.ReadFile(filepath.Join(r.Root, "app", "bomb.yaml")); !errors.Is(err, yamldoc.ErrAliasBudget) {
		t.Errorf("an alias bomb read with %v, want the alias budget's refusal", err)
	}
	if err := fs.WriteFile(filepath.Join(r.Root, "app", "new.yaml"), nil); err == nil {
		t.Error("krusty wrote into the repository")
	}
	if !fs.Exists(overlay) || !fs.IsDir(filepath.Join(r.Root, "app")) || fs.Exists(filepath.Join(r.Root, "app", "none.yaml")) {
		t.Error("Exists and IsDir do not see the repository and its overlay as they are")
	}
}
