package gitops

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// The check of a run without its deferred sources: each must end
// superseded, and no reference that found no delivered object may have
// found one of theirs (same kind and name, group when the reference named
// one, any name when it listed a kind).
func TestDeferralCheck(t *testing.T) {
	repo := object.Object{APIVersion: "source.toolkit.fluxcd.io/v1", Kind: "HelmRepository", Namespace: "flux-system", Name: "charts"}
	cm := object.Object{APIVersion: "v1", Kind: "ConfigMap", Namespace: "web", Name: "vars"}
	deferred := func(status object.Status) source.Out {
		return source.Out{Deferred: true, Result: object.SourceResult{Path: "infra/sources", Status: status}}
	}
	delivery := func(covered string, objs ...object.Object) source.Out {
		return source.Out{Objects: objs, Covered: []string{covered}, Result: object.SourceResult{Path: covered, Status: object.StatusRendered}}
	}
	type lookup struct {
		group, kind, name string
		at                int // index among the known objects; -1: found nothing
	}
	for _, tc := range []struct {
		name      string
		status    object.Status
		lookups   []lookup
		delivered []source.Out
		redo      bool
	}{
		{"superseded, nothing asked", object.StatusDelivered, nil, []source.Out{delivery("infra/sources", repo)}, false},
		{"left standing", object.StatusRendered, nil, nil, true},
		{"withheld", object.StatusWithheld, nil, nil, true},
		{"a miss its delivery answers", object.StatusDelivered, []lookup{{"source.toolkit.fluxcd.io", "HelmRepository", "charts", -1}},
			[]source.Out{delivery("infra/sources/repos.yaml", repo)}, true},
		{"a standalone object found", object.StatusDelivered, []lookup{{"", "HelmRepository", "charts", 0}},
			[]source.Out{delivery("infra/sources", repo)}, true},
		{"a delivered object found", object.StatusDelivered, []lookup{{"", "HelmRepository", "charts", 5}},
			[]source.Out{delivery("infra/sources", repo)}, false},
		{"another group", object.StatusDelivered, []lookup{{"example.com", "HelmRepository", "charts", -1}},
			[]source.Out{delivery("infra/sources", repo)}, false},
		{"another name", object.StatusDelivered, []lookup{{"", "HelmRepository", "other", -1}},
			[]source.Out{delivery("infra/sources", repo)}, false},
		{"every name of a kind", object.StatusDelivered, []lookup{{"", "ConfigMap", "", -1}},
			[]source.Out{delivery("infra/sources", cm)}, true},
		{"a delivery of other sources", object.StatusDelivered, []lookup{{"", "HelmRepository", "charts", -1}},
			[]source.Out{delivery("apps", repo)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := []source.Out{{Result: object.SourceResult{Path: "clusters", Status: object.StatusRendered}}, deferred(tc.status)}
			d := newDeferralCheck(outs)
			d.knowStandalone(3)
			for _, l := range tc.lookups {
				d.noteLookup(l.group, l.kind, l.name, l.at)
			}
			if why := d.redo(outs, tc.delivered, nil, nil); (why != "") != tc.redo {
				t.Errorf("redo %q, want one: %v", why, tc.redo)
			}
		})
	}
	renamed := delivery("infra/sources", object.Object{APIVersion: "v1", Kind: "ConfigMap", Name: "renamed"})
	renamed.Spec.Delivery = &source.Delivery{KustDoc: map[string]any{"patches": []any{map[string]any{"patch": `[{"op": "replace", "path": "/metadata/name", "value": "renamed"}]`}}}}
	for _, tc := range []struct {
		name string
		own  []object.Object // the deferred source's own render
		redo bool
	}{
		{"its own render holds the name asked for", []object.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "vars"}}, true},
		{"its own render holds another", []object.Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "other"}}, false},
	} {
		t.Run("a delivery that may rename: "+tc.name, func(t *testing.T) {
			outs := []source.Out{deferred(object.StatusDelivered)}
			d := newDeferralCheck(outs)
			d.knowStandalone(3)
			d.noteLookup("", "ConfigMap", "vars", -1)
			renders := 0
			render := func(source.Spec) source.Out {
				renders++
				return source.Out{Objects: tc.own, Result: object.SourceResult{Status: object.StatusRendered}}
			}
			if why := d.redo(outs, []source.Out{renamed, renamed}, render, nil); (why != "") != tc.redo || renders != 1 {
				t.Errorf("redo %q after %d renders of its own, want one and redo %v", why, renders, tc.redo)
			}
		})
	}
	if newDeferralCheck([]source.Out{{}}) != nil {
		t.Error("a run without deferred sources checks something")
	}
}

// KustomizationPaths reads the written-out paths of Flux Kustomizations only.
func TestKustomizationPaths(t *testing.T) {
	const head = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: a}\n"
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"relative", head + "spec: {path: ./kubernetes/apps}\n", []string{"kubernetes/apps"}},
		{"quoted, trailing slash", head + "spec:\n  path: \"kubernetes/apps/\"\n", []string{"kubernetes/apps"}},
		{"escaping the root is bounded by it", head + "spec: {path: ../../apps}\n", []string{"apps"}},
		{"the root", head + "spec: {path: ./}\n", nil},
		{"no path", head + "spec: {interval: 1h}\n", nil},
		{"a variable", head + "spec: {path: ./apps/${CLUSTER}}\n", nil},
		{"not a string", head + "spec: {path: [a]}\n", nil},
		{"kustomize's own Kustomization", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nspec: {path: ./apps}\n", nil},
		{"another group's", "apiVersion: example.com/v1\nkind: Kustomization\nspec: {path: ./apps}\n", nil},
		{"several documents", head + "spec: {path: ./a}\n---\n# only a comment\n---\n" + head + "spec: {path: ./b}\n", []string{"a", "b"}},
		{"a broken document ends the file", head + "spec: {path: ./a}\n---\nkey: [unclosed\n---\n" + head + "spec: {path: ./b}\n", []string{"a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KustomizationPaths([]byte(tc.text)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// KustomizationPaths reads any file a repository holds: it never panics and
// gives only clean paths below the root.
func FuzzKustomizationPaths(f *testing.F) {
	f.Add([]byte("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nspec: {path: ./a/../b}\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range KustomizationPaths(data) {
			if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == ".." || filepath.ToSlash(filepath.Clean(p)) != p {
				t.Fatalf("path %q from %q", p, data)
			}
		}
	})
}

// A delivered build may name objects otherwise than its source's own
// render when Flux adds a prefix, or a patch, replacement or component
// that touches a name or deletes; patches that only add fields do not.
func TestMayRename(t *testing.T) {
	files := map[string]string{
		"apps/web/components/volsync/kustomization.yaml": "kind: Component\nresources: [pvc.yaml]\npatches:\n- patch: |\n    kind: Deployment\n    metadata: {name: x}\n",
		"apps/web/components/prefix/kustomization.yaml":  "kind: Component\nnamePrefix: a-\n",
		"apps/web/delete.yaml":                           "$patch: delete\nkind: ConfigMap\nmetadata: {name: vars}\n",
	}
	read := func(rel string) ([]byte, error) {
		if text, ok := files[rel]; ok {
			return []byte(text), nil
		}
		return nil, os.ErrNotExist
	}
	for _, tc := range []struct {
		name string
		kust map[string]any
		want bool
	}{
		{"nothing added", map[string]any{"resources": []any{"a.yaml"}}, false},
		{"a patch that adds fields", map[string]any{"patches": []any{map[string]any{"patch": "kind: HelmRelease\nmetadata:\n  name: x\nspec: {timeout: 15m}\n"}}}, false},
		{"a component that adds", map[string]any{"components": []any{"components/volsync"}}, false},
		{"a name prefix", map[string]any{"namePrefix": "a-"}, true},
		{"a JSON patch of the name", map[string]any{"patches": []any{map[string]any{"patch": `[{"op": "replace", "path": "/metadata/name", "value": "b"}]`}}}, true},
		{"a patch file that deletes", map[string]any{"patches": []any{map[string]any{"path": "delete.yaml"}}}, true},
		{"a patch file not read", map[string]any{"patchesStrategicMerge": []any{"missing.yaml"}}, true},
		{"a component with a prefix", map[string]any{"components": []any{"components/prefix"}}, true},
		{"a replacement of a name", map[string]any{"replacements": []any{map[string]any{"targets": []any{map[string]any{"fieldPaths": []any{"metadata.name"}}}}}}, true},
	} {
		spec := source.Spec{Path: "apps/web", Delivery: &source.Delivery{KustDoc: tc.kust}}
		if got := mayRename(spec, read); got != tc.want {
			t.Errorf("%s: mayRename %v, want %v", tc.name, got, tc.want)
		}
	}
	if mayRename(source.Spec{Path: "apps/web"}, read) {
		t.Error("a build of the source as it is may rename")
	}
}
