package render

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/proc"
)

const stubTestCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.org
spec:
  scope: Cluster
  group: example.org
  names:
    plural: gadgets
    kind: Gadget
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, description: a gadget}}}
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
    metadata: {name: gadgets.example.org}
    spec: {scope: Namespaced}
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
		testutil.WriteTree(t, filepath.Join(root, name), map[string]string{"crd.yaml": stubTestCRD, "hpa.yaml": stubTestHPA, "kustomization.yaml": c.kustomization})
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
				if _, marked := g.Doc[kustread.Marker]; marked {
					t.Errorf("%s %s kept the stub marker", g.Kind, g.Name)
				}
				if w.Kind == kustread.Kind && c.stubbed {
					w.Doc = map[string]any{"apiVersion": w.Doc["apiVersion"], "kind": w.Doc["kind"], "metadata": w.Doc["metadata"]}
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("object %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}

// A traced Kustomize build reads its objects' files from kustread's file
// annotations where it can, in place of krusty's origin annotations: every
// Kustomize source of the testdata and of ../shared/corpus yields the same
// objects, traced to the same files, lines and annotation lines, either
// way.
func TestAnnotatedTraceMatchesKrusty(t *testing.T) {
	fixture := annotatedTraceFixture(t)
	roots := []string{fixture}
	least := 5 // the repository's trees alone give 7
	if corpus, ok := testutil.Shared(t, "corpus"); ok {
		roots = append(roots, corpus)
		least = 10
	}
	for name := range gitopsFixtures {
		roots = append(roots, filepath.Join("..", "testdata", "gitops", name))
	}
	annotatable := 0
	for _, root := range roots {
		root, err := filepath.Abs(root)
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.Root, opts.StubCRDs = root, true
		rd, err := newRenderer(root, opts.withDefaults())
		if err != nil {
			t.Fatal(err)
		}
		specs, _ := rd.discover()
		for _, spec := range specs {
			if spec.Type != SourceKustomize {
				continue
			}
			if sc, _, err := rd.scanKustomizeSource(spec, rd.repo.Abs(spec.Path)); err == nil && sc.Annotatable() {
				annotatable++
			}
			var meta renderMeta
			rd.krustyTraced = false
			annotated, _, errA := rd.renderKustomizeSource(spec, &meta)
			rd.krustyTraced = true
			krusty, _, errK := rd.renderKustomizeSource(spec, &meta)
			if root == fixture && (errA != nil || len(annotated) == 0) {
				t.Errorf("fixture %s: %d objects, %v", spec.Path, len(annotated), errA)
			}
			if fmt.Sprint(errA) != fmt.Sprint(errK) || !reflect.DeepEqual(annotated, krusty) {
				t.Errorf("%s %s: traced by file annotations:\n%+v (%v)\nby krusty:\n%+v (%v)", filepath.Base(root), spec.Path, annotated, errA, krusty, errK)
			}
		}
	}
	t.Logf("%d Kustomize sources traced by file annotations", annotatable)
	if annotatable < least {
		t.Errorf("%d Kustomize sources could be traced by file annotations: the test compares too few", annotatable)
	}
}

// annotatedTraceFixture is a tree whose objects move between files and
// names on the way through: a base of several documents (one with
// annotations: null, as Helm prints it, one a CRD) and generators, an
// overlay that prefixes names and patches, a component, an overlay with a
// generator of its own, and overlays whose generators merge into and
// replace the base's generated and file objects.
func annotatedTraceFixture(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"base/kustomization.yaml": "resources: [app.yaml, hpa.yaml, crd.yaml]\nconfigMapGenerator:\n- name: settings\n  literals: [a=b]\n" +
			"- name: plain\n  literals: [c=d]\n  options: {disableNameSuffixHash: true, annotations: {x: y}}\ngeneratorOptions: {labels: {gen: yes}}\n",
		"base/app.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations:\n---\n# a comment\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n" +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: filecm}\ndata: {a: b}\n",
		"base/hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  annotations:\n    capreport.io/dead-time: 30s\n" +
			"spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 9\n",
		"base/crd.yaml":                    strings.SplitN(stubTestCRD, "---\n", 2)[0],
		"comp/kustomization.yaml":          "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [extra.yaml]\n",
		"comp/extra.yaml":                  "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: extra}\n",
		"overlay/kustomization.yaml":       "resources: [../base]\ncomponents: [../comp]\nnamePrefix: prod-\npatches:\n- patch: |\n    apiVersion: autoscaling/v2\n    kind: HorizontalPodAutoscaler\n    metadata: {name: web}\n    spec: {maxReplicas: 12}\n",
		"overlay/other/kustomization.yaml": "resources: [../../base]\nnameSuffix: -b\nlabels: [{pairs: {tier: b}}]\nsecretGenerator:\n- name: creds\n  literals: [k=v]\n",
		"overlay/merged/kustomization.yaml": "resources: [../../base]\nconfigMapGenerator:\n- name: settings\n  behavior: merge\n  literals: [e=f]\n" +
			"- name: filecm\n  behavior: merge\n  literals: [g=h]\n",
		"overlay/replaced/kustomization.yaml": "resources: [../../base]\nconfigMapGenerator:\n- name: settings\n  behavior: replace\n  literals: [e=f]\n" +
			"- name: filecm\n  behavior: replace\n  literals: [g=h]\n",
	}
	testutil.WriteTree(t, root, files)
	return root
}

// A worker builds a Kustomize source with the collector's goal raised
// (never lowered below what GOGC set) and puts the earlier goal back
// after.
func TestRenderCollectingRestoresTheGoal(t *testing.T) {
	root := annotatedTraceFixture(t)
	opts := DefaultOptions()
	opts.Root = root
	rd, err := newRenderer(root, opts.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	spec := SourceSpec{Path: "overlay", Type: SourceKustomize}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, before := range []int{100, 400, -1} {
		debug.SetGCPercent(before)
		var out sourceOut
		proc.Collect(&proc.HeapPacer{Ceiling: math.MaxInt64}, true, func() { out = rd.renderRecovered(spec) })
		if out.Result.Status != StatusRendered {
			t.Fatalf("the fixture did not render: %+v", out.Result)
		}
		if got := debug.SetGCPercent(before); got != before {
			t.Errorf("with GOGC at %d before the build, %d after", before, got)
		}
	}
}
