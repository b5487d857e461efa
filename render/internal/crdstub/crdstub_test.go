package crdstub

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/capreport/capreport/render/internal/yamldoc"
)

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  labels: {app: w}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        description: |
          A widget.
          ---
          Not a separator: indented.
`

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
`

const stub = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  labels: {app: w}
capreport.io/crd-stub: "true"
`

// Cut replaces each CRD document by its stub and leaves every other
// document, and every CRD it cannot be sure of, byte for byte as it was.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		n              int
	}{
		{name: "no CRD", in: deployment, want: deployment},
		{name: "one CRD", in: crd, want: stub, n: 1},
		{name: "CRD between others", in: deployment + "---\n" + crd + "--- # next\n" + deployment,
			want: deployment + "---\n" + stub + "--- # next\n" + deployment, n: 1},
		{name: "leading separator", in: "---\n" + crd, want: stub, n: 1},
		{name: "windows line ends", in: strings.ReplaceAll(deployment+"---\n"+crd, "\n", "\r\n"), want: deployment + "---\n" + stub, n: 1},
		{name: "a separator kyaml refuses", in: crd + "--- junk\n" + deployment, want: crd + "--- junk\n" + deployment},
		{name: "an alias", in: strings.Replace(crd, "scope: Namespaced", "scope: &s Namespaced\n  other: *s", 1),
			want: strings.Replace(crd, "scope: Namespaced", "scope: &s Namespaced\n  other: *s", 1)},
		{name: "a merge key", in: crd + "  extra:\n    <<: {a: 1}\n", want: crd + "  extra:\n    <<: {a: 1}\n"},
		{name: "a duplicate key", in: crd + "kind: Other\n", want: crd + "kind: Other\n"},
		{name: "does not decode", in: crd + "  : [\n", want: crd + "  : [\n"},
		{name: "flow mapping", in: `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "a.b"}, "spec": {}}`,
			want: "\"apiVersion\": \"apiextensions.k8s.io/v1\"\n\"kind\": \"CustomResourceDefinition\"\n\"metadata\": {\"name\": \"a.b\"}\n" + Marker + ": \"true\"\n", n: 1},
		{name: "kind named elsewhere", in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {kind: CustomResourceDefinition}\n",
			want: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {kind: CustomResourceDefinition}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := Cut([]byte(tc.in))
			if string(got) != tc.want || n != tc.n {
				t.Errorf("Cut = %d stubs,\n%s\nwant %d,\n%s", n, got, tc.n, tc.want)
			}
		})
	}
}

// Touched: a stub that came out of the build as it went in, or with its
// metadata changed, is untouched; one with a field the stub left out, or
// of another kind, was touched.
func TestTouched(t *testing.T) {
	if Touched(Kind, []string{"apiVersion", "kind", "metadata", Marker}) {
		t.Error("an untouched stub reads as touched")
	}
	if !Touched(Kind, []string{"apiVersion", "kind", "metadata", "spec", Marker}) {
		t.Error("a stub a patch gave a spec reads as untouched")
	}
	if !Touched("Deployment", []string{"apiVersion", "kind", "metadata", Marker}) {
		t.Error("a stub patched into another kind reads as untouched")
	}
}

// FuzzCut checks Cut against kyaml's own reader, which krusty reads every
// file with: the file and its cut read alike (both fail, or both give the
// same objects in order), except that a stubbed object has exactly the
// apiVersion, kind and metadata of the CRD it stands for, and the marker.
func FuzzCut(f *testing.F) {
	for _, s := range []string{crd, deployment + "---\n" + crd, "---\n" + crd + "---\n" + deployment,
		crd + "  extra:\n    <<: {a: 1}\n", "kind: CustomResourceDefinition\nmetadata: &m {name: x}\nspec: *m\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// safeFS hands krusty no file over the alias budget (kyaml's
		// reader expands aliases, exponentially in their nesting).
		if len(data) > 1<<16 || yamldoc.CheckAliases(data) != nil {
			return
		}
		cut, _ := Cut(data)
		want, errWant := kio.FromBytes(data)
		got, errGot := kio.FromBytes(cut)
		if (errWant != nil) != (errGot != nil) {
			t.Fatalf("kyaml reads the file with error %v and its cut with error %v", errWant, errGot)
		}
		if errWant != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("kyaml reads %d objects from the file and %d from its cut", len(want), len(got))
		}
		for i := range want {
			if got[i].Field(Marker) == nil {
				if a, b := want[i].MustString(), got[i].MustString(); a != b {
					t.Fatalf("object %d changed:\n%s\nbecame\n%s", i, a, b)
				}
				continue
			}
			if k := want[i].GetKind(); k != Kind {
				t.Fatalf("object %d, a %s, was stubbed", i, k)
			}
			for _, field := range []string{"apiVersion", "kind", "metadata"} {
				if a, b := fieldString(want[i], field), fieldString(got[i], field); a != b {
					t.Fatalf("object %d: the stub's %s is %q, the CRD's %q", i, field, b, a)
				}
			}
			if fields, _ := got[i].Fields(); Touched(Kind, fields) {
				t.Fatalf("object %d: the stub holds %v", i, fields)
			}
		}
	})
}

func fieldString(n *kyaml.RNode, field string) string {
	v := n.Field(field)
	if v == nil {
		return "<absent>"
	}
	s, err := kyaml.NewRNode(v.Value.YNode()).String()
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}
