package kustomize

import (
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/repofs"
)

// TestLineIndexFind: a built object is matched to a document of its own
// kind only, by exact name, else by the only name it contains, else as the
// only document of its kind.
func TestLineIndexFind(t *testing.T) {
	const (
		hpaA = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: a\n"
		hpaB = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: b\n"
		cm   = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	)
	cases := []struct {
		name, file, kind, object string
		wantLine                 int // 0: no match
	}{
		{"single document of another kind", cm, "HorizontalPodAutoscaler", "a", 0},
		{"single document of another kind, other name", cm, "HorizontalPodAutoscaler", "p-x", 0},
		{"single document of the kind, exact name", hpaA, "HorizontalPodAutoscaler", "a", 1},
		{"single document of the kind, renamed", hpaA, "HorizontalPodAutoscaler", "zzz", 1},
		{"exact name among several", hpaA + "---\n" + hpaB, "HorizontalPodAutoscaler", "b", 6},
		{"the only name contained", hpaA + "---\n" + hpaB, "HorizontalPodAutoscaler", "p-b-s", 6},
		{"several of the kind, none named", hpaA + "---\n" + hpaB, "HorizontalPodAutoscaler", "zzz", 0},
		{"the only one of the kind among others", cm + "---\n" + hpaB, "HorizontalPodAutoscaler", "zzz", 6},
		{"another kind by the same name is skipped", cm + "---\n" + hpaB, "HorizontalPodAutoscaler", "a", 6},
		{"no documents", "# empty\n", "HorizontalPodAutoscaler", "a", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := filesys.MakeFsInMemory()
			if err := fsys.MkdirAll("/repo"); err != nil {
				t.Fatal(err)
			}
			if err := fsys.WriteFile("/repo/r.yaml", []byte(c.file)); err != nil {
				t.Fatal(err)
			}
			r, err := repofs.Open(fsys, false, "/repo", 10<<20)
			if err != nil {
				t.Fatal(err)
			}
			li := NewLineIndex(r, 10000, nil)
			d, ok := li.find(filepath.Join(r.Root, "r.yaml"), c.kind, c.object)
			if c.wantLine == 0 {
				if ok {
					t.Errorf("matched %+v, want no match", d)
				}
				return
			}
			if !ok || d.line != c.wantLine || d.kind != c.kind {
				t.Errorf("got %+v, %v; want the %s at line %d", d, ok, c.kind, c.wantLine)
			}
		})
	}
}
