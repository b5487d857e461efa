package gitops

import (
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// After the walk, a standalone source that a rendered delivery read is
// superseded as the plan supersedes one (the plan cannot see a
// Kustomization whose namespace's kustomization fails to build on its
// own). Its GitOps objects the walk met identical keep what their
// expansion made; a phantom (the standalone copy without the namespace
// its delivery gives it) loses its renders and findings. A delivery that
// reads the file of an object of its own chain (a self-managing root),
// a failed delivery and a mapped source's supersede nothing.
func TestSupersedeLate(t *testing.T) {
	root := object.Link{File: "clusters/apps.yaml", Line: 1, Kind: "Kustomization", Namespace: "flux-system", Name: "apps"}
	ks := object.Link{File: "apps/web/ks.yaml", Line: 1, Kind: "Kustomization", Namespace: "web", Name: "web"}
	hr := func(ns string) object.Object {
		return object.Object{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Namespace: ns, Name: "web",
			Origin: object.Origin{Source: "apps/web/app", File: "apps/web/app/hr.yaml", Line: 3}}
	}
	standalone := func(objs ...object.Object) source.Out {
		return source.Out{Objects: objs, Spec: source.Spec{Path: "apps/web/app", Type: object.SourceKustomize},
			Result: object.SourceResult{Path: "apps/web/app", Type: object.SourceKustomize, Status: object.StatusRendered, Objects: len(objs)}}
	}
	delivery := func(status object.Status, covered []string, chain []object.Link, objs ...object.Object) source.Out {
		return source.Out{Objects: objs, Covered: covered, Spec: source.Spec{Path: "apps/web/app", Name: "Kustomization/web/web", Type: object.SourceKustomize},
			Result: object.SourceResult{Path: "apps/web/app", Status: status, Chain: chain}}
	}
	delivered := hr("web")
	delivered.Origin.Source = "apps/web/app@Kustomization/web/web"
	fromPhantom := source.Out{Spec: source.Spec{Path: "charts/web", Name: "HelmRelease/web"},
		Result: object.SourceResult{Path: "charts/web", Status: object.StatusRendered, Chain: []object.Link{linkOf(&[]object.Object{hr("")}[0])}}}
	cases := []struct {
		name          string
		out           source.Out
		delivered     []source.Out
		wantDelivered bool // the standalone source superseded
		wantPhantom   bool // its HelmRelease a phantom: its render and finding gone
	}{
		{"phantom", standalone(hr("")), []source.Out{delivery(object.StatusRendered, []string{"apps/web/app"}, []object.Link{root, ks}, delivered), fromPhantom}, true, true},
		{"identical copy", standalone(hr("web")), []source.Out{delivery(object.StatusRendered, []string{"apps/web/app"}, []object.Link{root, ks}, hr("web")), fromPhantom}, true, false},
		{"not read", standalone(hr("")), []source.Out{delivery(object.StatusRendered, []string{"apps/other"}, []object.Link{root, ks}, delivered), fromPhantom}, false, false},
		{"self-managing", standalone(hr("")), []source.Out{delivery(object.StatusRendered, []string{"apps/web/app", "apps/web/ks.yaml"}, []object.Link{root, ks}, delivered), fromPhantom}, false, false},
		{"failed delivery", standalone(hr("")), []source.Out{delivery(object.StatusFailed, []string{"apps/web/app"}, []object.Link{root, ks}), fromPhantom}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &engine{findings: []check.Finding{
				object.Finding(&c.out.Objects[0], check.GitOpsNotFollowed, check.SeverityWarning, "the standalone copy"),
				object.Finding(&delivered, check.GitOpsNotFollowed, check.SeverityWarning, "the delivered copy"),
			}}
			outs := []source.Out{c.out}
			kept, phantoms := g.supersedeLate(outs, c.delivered)
			if got := outs[0].Result.Status == object.StatusDelivered; got != c.wantDelivered {
				t.Fatalf("superseded %v, want %v: %+v", got, c.wantDelivered, outs[0].Result)
			}
			if c.wantDelivered && (outs[0].Result.Reason != "rendered through Kustomization/web/web" || outs[0].Objects != nil || outs[0].Result.Objects != 0) {
				t.Errorf("superseded as %+v with %d objects", outs[0].Result, len(outs[0].Objects))
			}
			if got := len(phantoms) == 1; got != c.wantPhantom {
				t.Errorf("phantoms %v", phantoms)
			}
			wantKept, wantFindings := len(c.delivered), 2
			if c.wantPhantom {
				wantKept, wantFindings = len(c.delivered)-1, 1
			}
			if len(kept) != wantKept || len(g.findings) != wantFindings {
				t.Errorf("kept %d deliveries and %d findings, want %d and %d", len(kept), len(g.findings), wantKept, wantFindings)
			}
			if c.wantPhantom && g.findings[0].Source != delivered.Origin.Source {
				t.Errorf("the delivered copy's finding went: %+v", g.findings)
			}
		})
	}
}
