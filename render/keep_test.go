package render

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// gitopsFixtures are the GitOps repositories under testdata/gitops, each
// with the path to render and the URLs that name it.
var gitopsFixtures = map[string]struct {
	path string
	urls []string
}{
	"flux-features":             {path: "clusters/prod"},
	"argo-features":             {path: ".", urls: []string{"https://github.com/example/argo-features.git"}},
	"helm-operator-get-started": {path: ".", urls: []string{"git@github.com:fluxcd/helm-operator-get-started"}},
}

// dropMost keeps only autoscalers and the workloads they scale: it drops
// what GitOps objects read (ConfigMaps, Secrets, Flux sources) too, which
// render must still follow.
func dropMost(o *Object) bool {
	switch o.Kind {
	case "HorizontalPodAutoscaler", "ScaledObject", "Deployment", "StatefulSet":
		return true
	}
	return false
}

// With Options.Keep a run holds only what it keeps, and says the same of
// every source (status, object count, findings) as a run that keeps
// everything: the GitOps objects are followed through the ConfigMaps and
// sources Keep drops, and a duplicate delivery of a dropped object is
// counted once, as before.
func TestKeep(t *testing.T) {
	for name, c := range gitopsFixtures {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(filepath.Join("..", "testdata", "gitops", name))
			if err != nil {
				t.Fatal(err)
			}
			render := func(keep func(*Object) bool) *Result {
				opts := DefaultOptions()
				opts.Root, opts.RepoURLs, opts.Keep = root, c.urls, keep
				res, err := Render(context.Background(), filepath.Join(root, c.path), opts)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			all, kept := render(nil), render(dropMost)
			var want []Object
			for i := range all.Objects {
				if dropMost(&all.Objects[i]) {
					want = append(want, all.Objects[i])
				}
			}
			if len(want) == 0 || len(want) == len(all.Objects) {
				t.Fatalf("the fixture keeps %d of %d objects: it tests nothing", len(want), len(all.Objects))
			}
			if !reflect.DeepEqual(kept.Objects, want) {
				t.Errorf("kept %d objects, want the %d of the full run that Keep keeps", len(kept.Objects), len(want))
			}
			if !reflect.DeepEqual(kept.Sources, all.Sources) || !reflect.DeepEqual(kept.Findings, all.Findings) {
				t.Errorf("sources or findings differ:\n got %+v\nwant %+v", kept.Sources, all.Sources)
			}
		})
	}
}

// TestKeepCountsDuplicateDeliveries: two Flux Kustomizations deliver one
// directory into one namespace, so the cluster holds each of its objects
// once; a source's object count must say so whether Keep dropped the
// object (the Service) or kept it (the HPA).
func TestKeepCountsDuplicateDeliveries(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"clusters/a.yaml": fluxKS("a", "./apps", "  targetNamespace: web\n"),
		"clusters/b.yaml": fluxKS("b", "./apps", "  targetNamespace: web\n"),
		"apps/hpa.yaml":   hpaDoc("web", "5"),
		"apps/svc.yaml":   "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
	})
	render := func(keep func(*Object) bool) []SourceResult {
		opts := DefaultOptions()
		opts.Keep = keep
		res, err := Render(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res.Sources
	}
	all, kept := render(nil), render(func(o *Object) bool { return o.Kind != "Service" })
	if !reflect.DeepEqual(kept, all) {
		t.Errorf("sources with Keep:\n %+v\nwithout:\n %+v", kept, all)
	}
}
