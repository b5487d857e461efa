package kustread

import (
	"fmt"
	"reflect"
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

// With Stub, Apply replaces each CRD document by its stub and leaves every
// other document, and every CRD it cannot be sure of, byte for byte as it
// was.
func TestStub(t *testing.T) {
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
			got, res := Rewrite{Stub: true}.Apply([]byte(tc.in))
			if string(got) != tc.want || res.Stubbed != tc.n || res.Unsure {
				t.Errorf("Apply = %+v,\n%s\nwant %d stubs,\n%s", res, got, tc.n, tc.want)
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

// FuzzRewrite checks Apply against kyaml's own reader, which krusty reads
// every file with: the file and its rewrite read alike (both fail, or both
// give the same objects in order), except that a stubbed object has
// exactly the apiVersion, kind and metadata of the CRD it stands for and
// the marker, and an annotated one is the same object with the file
// annotation. Unless the rewrite is unsure, every object but a stub is
// annotated.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{crd, deployment + "---\n" + crd, "---\n" + crd + "---\n" + deployment,
		crd + "  extra:\n    <<: {a: 1}\n", "kind: CustomResourceDefinition\nmetadata: &m {name: x}\nspec: *m\n",
		"kind: A\nmetadata: {name: &n a}\nspec: {x: *n, b: &b {p: 1}, c: {<<: *b, q: 2}}\n",
		"kind: A\nspec: {a: &a {x: y}}\nmetadata: {name: a, annotations: {<<: *a}}\n",
		"kind: A\nmetadata: {name: a, annotations: &a {x: y}}\nspec: {a: *a}\n",
		"kind: CustomResourceDefinition\nmetadata: {name: x, annotations: {}}\n",
		"kind: Service\nmetadata:\n  annotations:\n  name: s\n",
		"kind: A\nmetadata:\n  name: &app radicale\nspec:\n  values:\n    controllers:\n      *app :\n        strategy: Recreate\n",
		"kind: A\nmetadata: {name: &k {a: b}}\nspec: {*k : x, y: {*k : [*k]}}\n",
		"# head\napiVersion: v1 # line\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations: {a: b}\ndata:\n  k: |\n    text\n   # not a comment\n"} {
		f.Add([]byte(s), true, "dir/file.yaml")
	}
	f.Fuzz(func(t *testing.T, data []byte, stub bool, file string) {
		// render/kustomize.FS hands krusty no file over the alias budget (kyaml's
		// reader expands aliases, exponentially in their nesting).
		if len(data) > 1<<16 || yamldoc.CheckAliases(data) != nil {
			return
		}
		out, res := Rewrite{Stub: stub, File: file}.Apply(data)
		want, errWant := kio.FromBytes(data)
		got, errGot := kio.FromBytes(out)
		if (errWant != nil) != (errGot != nil) {
			t.Fatalf("kyaml reads the file with error %v and its rewrite with error %v", errWant, errGot)
		}
		if errWant != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("kyaml reads %d objects from the file and %d from its rewrite", len(want), len(got))
		}
		for i := range want {
			if got[i].Field(Marker) != nil {
				checkStub(t, i, want[i], got[i], file)
				continue
			}
			if want[i].YNode().Kind != kyaml.MappingNode {
				if a, b := want[i].MustString(), got[i].MustString(); a != b {
					t.Fatalf("object %d changed:\n%s\nbecame\n%s", i, a, b)
				}
				continue
			}
			annotations, ok := annotationsOf(got[i])
			if !ok {
				if _, okWant := annotationsOf(want[i]); okWant {
					t.Fatalf("kyaml reads the annotations of object %d but not of its rewrite:\n%s", i, out)
				}
				continue // kyaml cannot read this object's metadata, rewritten or not
			}
			annotated := annotations[FileAnnotation] == file && file != ""
			if file != "" && !res.Unsure && !annotated {
				t.Fatalf("object %d is not annotated, and the rewrite is sure:\n%s", i, out)
			}
			a, errA := mapOf(want[i], false)
			b, errB := mapOf(got[i], annotated)
			if (errA != nil) != (errB != nil) {
				t.Fatalf("object %d decodes with error %v, its rewrite with error %v", i, errA, errB)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("object %d changed:\n%v\nbecame\n%v", i, a, b)
			}
		}
	})
}

// checkStub fails unless got is the stub of the CRD want.
func checkStub(t *testing.T, i int, want, got *kyaml.RNode, file string) {
	t.Helper()
	if file != "" && got.GetAnnotations()[FileAnnotation] != file {
		t.Fatalf("object %d: the stub is not annotated", i)
	}
	if k := want.GetKind(); k != Kind {
		t.Fatalf("object %d, a %s, was stubbed", i, k)
	}
	for _, field := range []string{"apiVersion", "kind", "metadata"} {
		a, b := fieldValue(want, field), fieldValue(got, field)
		for _, v := range []any{a, b} {
			if md, ok := v.(map[string]any); ok && field == "metadata" {
				unannotate(md)
			}
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("object %d: the stub's %s is %v, the CRD's %v", i, field, b, a)
		}
	}
	if fields, _ := got.Fields(); Touched(Kind, fields) {
		t.Fatalf("object %d: the stub holds %v", i, fields)
	}
}

// mapOf is an object as krusty's output decodes, without the file
// annotation when unannotated is set, and without empty annotations (which
// krusty drops when it removes its own).
func mapOf(n *kyaml.RNode, unannotated bool) (map[string]any, error) {
	m, err := n.Map()
	if err != nil {
		return nil, err
	}
	md := stringKeyed(m["metadata"])
	if md == nil {
		return m, nil
	}
	m["metadata"] = md
	if unannotated {
		unannotate(md)
	}
	if v, present := md["annotations"]; present {
		if ann, isMap := v.(map[string]any); v == nil || isMap && len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	return m, nil
}

// stringKeyed is a decoded metadata mapping with its keys as strings: one
// with a key that is not a string (metadata: {0}) decodes as
// map[any]any, and the rewrite annotates it all the same.
func stringKeyed(v any) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = e
		}
		return out
	}
	return nil
}

// unannotate takes the file annotation, and the annotations it alone made,
// off a metadata map.
func unannotate(md map[string]any) {
	ann, isMap := md["annotations"].(map[string]any)
	delete(ann, FileAnnotation)
	if v, present := md["annotations"]; isMap && len(ann) == 0 || present && v == nil {
		delete(md, "annotations")
	}
}

// fieldValue is the value of a top-level field, decoded.
func fieldValue(n *kyaml.RNode, field string) any {
	v := n.Field(field)
	if v == nil {
		return "<absent>"
	}
	var out any
	if err := v.Value.YNode().Decode(&out); err != nil {
		return "<" + err.Error() + ">"
	}
	return out
}

// With File, Apply annotates every object with the file it came from, and
// is unsure of any document it cannot annotate: krusty would read the
// object but not its file.
func TestAnnotate(t *testing.T) {
	const ann = "  annotations:\n    " + FileAnnotation + ": \"f.yaml\"\n"
	for _, tc := range []struct {
		name, in, want string
		unsure         bool
	}{
		{name: "no annotations", in: "kind: A\nmetadata:\n  name: a\n", want: "kind: A\nmetadata:\n  name: a\n" + ann},
		{name: "null annotations", in: "kind: A\nmetadata:\n  annotations:\n  name: a\n", want: "kind: A\nmetadata:\n" + ann + "  name: a\n"},
		{name: "annotations kept, comments dropped", in: "# head\nkind: A # kind\nmetadata:\n  name: a\n  annotations: {x: y}\n",
			want: "kind: A\nmetadata:\n  name: a\n  annotations: {x: y, " + FileAnnotation + ": \"f.yaml\"}\n"},
		{name: "two documents, one empty", in: "kind: A\nmetadata: {name: a}\n---\n# nothing\n---\nkind: B\nmetadata: {name: b}\n",
			want: "kind: A\nmetadata: {name: a, annotations: {" + FileAnnotation + ": \"f.yaml\"}}\n---\n# nothing\n---\nkind: B\nmetadata: {name: b, annotations: {" + FileAnnotation + ": \"f.yaml\"}}\n"},
		{name: "a list", in: "kind: ConfigMapList\nmetadata: {}\nitems: []\n", want: "kind: ConfigMapList\nmetadata: {}\nitems: []\n", unsure: true},
		{name: "no metadata", in: "kind: A\n", want: "kind: A\n", unsure: true},
		// Aliases and merge keys elsewhere are printed back for kyaml to
		// expand (home-ops HelmReleases name a port once: &port 8080).
		{name: "an alias", in: "kind: A\nmetadata: {name: &n a}\nspec: {x: *n}\n",
			want: "kind: A\nmetadata: {name: &n a, annotations: {" + FileAnnotation + ": \"f.yaml\"}}\nspec: {x: *n}\n"},
		{name: "a merge key in the spec", in: "kind: A\nmetadata: {name: a}\nspec: {b: &b {x: 1}, c: {<<: *b, y: 2}}\n",
			want: "kind: A\nmetadata: {name: a, annotations: {" + FileAnnotation + ": \"f.yaml\"}}\nspec: {b: &b {x: 1}, c: {<<: *b, y: 2}}\n"},
		// What an alias or a merge key reaches is left alone.
		{name: "anchored metadata", in: "kind: A\nmetadata: &m {name: a}\nspec: {m: *m}\n", want: "kind: A\nmetadata: &m {name: a}\nspec: {m: *m}\n", unsure: true},
		{name: "anchored annotations", in: "kind: A\nmetadata: {name: a, annotations: &a {x: y}}\nspec: {a: *a}\n",
			want: "kind: A\nmetadata: {name: a, annotations: &a {x: y}}\nspec: {a: *a}\n", unsure: true},
		{name: "merged metadata", in: "kind: A\nspec: {m: &m {annotations: {x: y}}}\nmetadata: {<<: *m, name: a}\n",
			want: "kind: A\nspec: {m: &m {annotations: {x: y}}}\nmetadata: {<<: *m, name: a}\n", unsure: true},
		{name: "merged annotations", in: "kind: A\nspec: {a: &a {x: y}}\nmetadata: {name: a, annotations: {<<: *a}}\n",
			want: "kind: A\nspec: {a: &a {x: y}}\nmetadata: {name: a, annotations: {<<: *a}}\n", unsure: true},
		{name: "aliased annotations", in: "kind: A\nspec: {a: &a {x: y}}\nmetadata: {name: a, annotations: *a}\n",
			want: "kind: A\nspec: {a: &a {x: y}}\nmetadata: {name: a, annotations: *a}\n", unsure: true},
		// bjw-s's app-template names its controller after the release: an
		// alias as a key prints back without the space before its colon,
		// which yaml.v3's scanner (kyaml's) ends an alias's name at.
		{name: "an aliased key", in: "kind: A\nmetadata:\n  name: &app a\nspec:\n  controllers:\n    *app :\n      strategy: Recreate\n",
			want: "kind: A\nmetadata:\n  name: &app a\n" + ann + "spec:\n  controllers:\n    *app:\n      strategy: Recreate\n"},
		{name: "an anchored key", in: "kind: A\nc: {&a}\nmetadata: {}\n", want: "kind: A\nc: {&a}\nmetadata: {}\n", unsure: true},
		{name: "an alias in a CRD", in: "kind: " + Kind + "\nmetadata: {name: &n a}\nspec: {x: *n}\n",
			want: "kind: " + Kind + "\nmetadata: {name: &n a}\nspec: {x: *n}\n", unsure: true},
		{name: "a stub, annotated", in: crd, want: strings.Replace(stub, "  labels: {app: w}\n", "  labels: {app: w}\n"+ann, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res := Rewrite{Stub: true, File: "f.yaml"}.Apply([]byte(tc.in))
			if string(got) != tc.want || res.Unsure != tc.unsure {
				t.Errorf("Apply = %+v,\n%s\nwant unsure %v,\n%s", res, got, tc.unsure, tc.want)
			}
		})
	}
}

// annotationsOf is n's annotations as kyaml reads them, and false where
// kyaml panics reading them: a metadata that is not a mapping
// ("metadata:\n-\n" then a second metadata key) makes GetAnnotations index
// past a node's content, in the original document as in its rewrite.
func annotationsOf(n *kyaml.RNode) (annotations map[string]string, ok bool) {
	defer func() {
		if recover() != nil {
			annotations, ok = nil, false
		}
	}()
	return n.GetAnnotations(), true
}
