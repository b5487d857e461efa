package render

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capreport/capreport/render/internal/crdstub"
)

const stubTestCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, description: a widget}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      containers: [{name: web, image: web:1}]
`

const stubTestHPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
`

// With Options.StubCRDs a build yields what it yields without, except that
// a CRD of a file listed only as a resource is its apiVersion, kind and
// metadata; a build in which something reads or writes more of a CRD (a
// JSON patch, a strategic merge patch, a replacement's source, a
// generator's file) yields exactly what krusty builds
// from the files.
func TestStubCRDs(t *testing.T) {
	root := t.TempDir()
	const base = "resources: [crd.yaml, hpa.yaml]\nnamePrefix: p-\nnamespace: ns\n"
	cases := map[string]struct {
		kustomization string
		stubbed       bool
	}{
		"resources only": {kustomization: base, stubbed: true},
		"json patch": {kustomization: base + `patches:
- target: {kind: CustomResourceDefinition}
  patch: '[{"op": "replace", "path": "/spec/versions/0/schema/openAPIV3Schema/description", "value": "patched"}]'
`},
		"strategic merge patch": {kustomization: base + `patches:
- patch: |
    apiVersion: apiextensions.k8s.io/v1
    kind: CustomResourceDefinition
    metadata: {name: widgets.example.com}
    spec: {scope: Cluster}
`},
		"replacement source": {kustomization: base + `replacements:
- source: {kind: CustomResourceDefinition, fieldPath: spec.group}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.group]
    options: {create: true}
`},
		"generator file": {kustomization: base + "configMapGenerator:\n- name: schema\n  files: [crd.yaml]\n"},
		"metadata only":  {kustomization: base + "labels: [{pairs: {team: a}, includeSelectors: true}]\ncommonAnnotations: {note: b}\n", stubbed: true},
	}
	for name, c := range cases {
		dir := filepath.Join(root, filepath.FromSlash(name))
		for file, data := range map[string]string{"crd.yaml": stubTestCRD, "hpa.yaml": stubTestHPA, "kustomization.yaml": c.kustomization} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, file), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	render := func(stub bool) map[string][]Object {
		opts := DefaultOptions()
		opts.Root, opts.StubCRDs = root, stub
		res, err := Render(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		by := map[string][]Object{}
		for _, o := range res.Objects {
			by[o.Origin.Source] = append(by[o.Origin.Source], o)
		}
		for _, s := range res.Sources {
			if s.Status != StatusRendered {
				t.Errorf("source %s: %s %s", s.Path, s.Status, s.Reason)
			}
		}
		return by
	}
	full, stubbed := render(false), render(true)
	if len(full) != len(cases) {
		t.Fatalf("%d sources rendered, want %d: %v", len(full), len(cases), full)
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, got := full[name], stubbed[name]
			if len(got) != len(want) || len(want) == 0 {
				t.Fatalf("%d objects with stubs, %d without", len(got), len(want))
			}
			for i := range want {
				w, g := want[i], got[i]
				if _, marked := g.Doc[crdstub.Marker]; marked {
					t.Errorf("%s %s kept the stub marker", g.Kind, g.Name)
				}
				if w.Kind == crdstub.Kind && c.stubbed {
					w.Doc = map[string]any{"apiVersion": w.Doc["apiVersion"], "kind": w.Doc["kind"], "metadata": w.Doc["metadata"]}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("object %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}
