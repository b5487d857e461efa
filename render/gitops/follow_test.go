package gitops

import (
	"context"
	"errors"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/source"
)

// fakeSources stands in for render: each spec renders to one HPA, and the
// specs asked for are kept.
type fakeSources struct{ asked []source.Spec }

func (f *fakeSources) Render(_ context.Context, spec source.Spec) source.Out {
	f.asked = append(f.asked, spec)
	hpa := object.Object{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Name: "web",
		Doc:    map[string]any{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": map[string]any{"name": "web"}},
		Origin: object.Origin{Source: spec.ID(), File: spec.Path + "/hpa.yaml", Line: 1}}
	return source.Out{Objects: []object.Object{hpa}, Covered: []string{spec.Path}, Spec: spec,
		Result: object.SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: object.StatusRendered, Objects: 1}}
}

func (f *fakeSources) Failed(spec source.Spec, id string, err error) source.Out {
	return source.Out{Spec: spec, Result: object.SourceResult{Path: spec.Path, Type: spec.Type, Status: object.StatusFailed, Reason: err.Error(),
		Findings: []check.Finding{{Check: id, Severity: check.SeverityError, Source: spec.ID(), Message: err.Error()}}}}
}

func (f *fakeSources) ScanKustomize(source.Spec, string) (*kustscan.Scan, []check.Finding, error) {
	return nil, nil, errors.New("no kustomization in this test")
}

// The engine runs on what Sources gives it, without render: an Argo CD
// Application of this repository delivers its directory, whose standalone
// render it replaces, and each delivered object carries the chain.
func TestFollowThroughSources(t *testing.T) {
	fsys := filesys.MakeFsInMemory()
	if err := fsys.WriteFile("/repo/apps/hpa.yaml", []byte("kind: HorizontalPodAutoscaler\n")); err != nil {
		t.Fatal(err)
	}
	repo, err := repofs.New(fsys, false, 1<<20).At("/repo")
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://example.com/team/repo.git"
	app := object.Object{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", Name: "web", Namespace: "argocd",
		Origin: object.Origin{Source: "clusters", File: "clusters/app.yaml", Line: 1},
		Doc: map[string]any{"spec": map[string]any{
			"destination": map[string]any{"namespace": "web"},
			"source":      map[string]any{"repoURL": url, "targetRevision": "HEAD", "path": "apps"}}}}
	src := &fakeSources{}
	standalone := src.Render(context.Background(), source.Spec{Path: "apps", Type: object.SourcePlain})
	src.asked = nil
	outs := []source.Out{
		{Objects: []object.Object{app}, Covered: []string{"clusters"},
			Result: object.SourceResult{Path: "clusters", Type: object.SourcePlain, Status: object.StatusRendered, Objects: 1}},
		standalone,
	}
	f := Follow(context.Background(), src, Config{Repo: repo, RepoURLs: []string{url}}, outs)

	if len(f.Outs) != 3 {
		t.Fatalf("%d renders, want the two standalone ones and the delivery: %+v", len(f.Outs), f.Outs)
	}
	if got := f.Outs[1].Result.Status; got != object.StatusDelivered {
		t.Errorf("the standalone render of apps is %s, want %s", got, object.StatusDelivered)
	}
	if len(src.asked) == 0 {
		t.Fatal("the engine asked Sources for nothing")
	}
	for _, spec := range src.asked {
		if spec.Path != "apps" || spec.Type != object.SourcePlain || spec.Delivery == nil || spec.Delivery.Namespace != "web" {
			t.Errorf("asked for %+v (delivery %+v), want apps, plain, delivered into namespace web", spec, spec.Delivery)
		}
	}
	delivered := f.Outs[2]
	if len(delivered.Objects) != 1 {
		t.Fatalf("the delivery holds %d objects, want the HPA", len(delivered.Objects))
	}
	chain := delivered.Objects[0].Origin.Chain
	if len(chain) != 1 || chain[0].Kind != "Application" || chain[0].Name != "web" || chain[0].File != "clusters/app.yaml" {
		t.Errorf("chain %+v, want the Application at clusters/app.yaml", chain)
	}
	if len(f.Findings) != 0 || len(f.Withheld) != 0 {
		t.Errorf("findings %+v, withheld %+v: want none", f.Findings, f.Withheld)
	}
}
