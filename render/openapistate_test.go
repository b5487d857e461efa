package render

import (
	"context"
	"fmt"
	"testing"
)

// A kustomization's openapi field names the schema of its own build only:
// kustomize keeps the schema in package state, and without care a build
// after it (or beside it) patched with the custom schema, and a custom
// schema read after the built-in one was merged into it. Each directory
// must build as `kustomize build` of it alone builds it (checked with
// krusty in a fresh process): with only the custom schema, which does not
// know Deployments, the patch replaces the containers; with the built-in
// one it merges them by name.
func TestOpenAPIFieldStaysInItsBuild(t *testing.T) {
	const patch = "patches:\n  - patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: d\n      spec:\n        template:\n          spec:\n            containers:\n              - name: two\n                image: two:2\n"
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n        - name: one\n          image: one:1\n        - name: two\n          image: two:1\n"
	const schema = `{"definitions":{"io.example.v1.Widget":{"type":"object","x-kubernetes-group-version-kind":[{"group":"example.io","kind":"Widget","version":"v1"}],"properties":{"spec":{"type":"object"}}}}}`
	files := map[string]string{}
	want := map[string]int{} // containers of each directory's Deployment
	for i := range 10 {
		dir := fmt.Sprintf("d%d", i)
		kust := "resources:\n  - d.yaml\n" + patch
		want[dir] = 2
		if i%4 == 1 { // d1, d5, d9: between and after plain builds
			kust = "openapi:\n  path: schema.json\n" + kust
			files[dir+"/schema.json"] = schema
			want[dir] = 1
		}
		files[dir+"/kustomization.yaml"] = kust
		files[dir+"/d.yaml"] = deployment
	}
	for _, par := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallelism %d", par), func(t *testing.T) {
			opts, root := inMemory(t, files, DefaultOptions())
			opts.Parallelism = par
			res, err := Render(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, o := range res.Objects {
				spec, _ := o.Doc["spec"].(map[string]any)
				tmpl, _ := spec["template"].(map[string]any)
				pod, _ := tmpl["spec"].(map[string]any)
				containers, _ := pod["containers"].([]any)
				got[o.Origin.Source] = len(containers)
			}
			for dir, n := range want {
				if got[dir] != n {
					t.Errorf("%s: the Deployment has %d containers, want %d (all: %v)", dir, got[dir], n, got)
				}
			}
		})
	}
}
