package gitops

import (
	"strings"
	"testing"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// unappliedRoots names a root Flux Kustomization only beneath a directory
// that another Flux Kustomization's rendered build of this repository
// read: not beneath its own descendants' builds, a failed or withheld
// build, a mapped source's, a chart's, a HelmRelease's, nor a directory
// whose name merely begins the same.
func TestUnappliedRoots(t *testing.T) {
	ks := func(file, name string) pending {
		o := object.Object{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Name: name, Namespace: "flux-system",
			Origin: object.Origin{File: file, Line: 2}}
		return pending{obj: o, chain: []object.Link{linkOf(&o)}}
	}
	hr := ks("apps/web/hr.yaml", "web")
	hr.obj.APIVersion, hr.obj.Kind = "helm.toolkit.fluxcd.io/v2", "HelmRelease"
	hr.chain = []object.Link{linkOf(&hr.obj)}
	entry := ks("clusters/prod/apps.yaml", "apps")
	off := ks("apps/web/ks.yaml", "web")
	built := func(dir string, chain ...object.Link) source.Out {
		return source.Out{Spec: source.Spec{Path: dir, Type: object.SourceKustomize},
			Result: object.SourceResult{Status: object.StatusRendered, Chain: chain}}
	}
	fromEntry := built("apps", entry.chain...)
	cases := []struct {
		name      string
		roots     []pending
		delivered []source.Out
		want      []string // the roots named, by name
	}{
		{"beneath another's build", []pending{entry, off}, []source.Out{fromEntry}, []string{"web"}},
		{"the whole repository built (by the entry, itself beneath it)", []pending{entry, off}, []source.Out{built(".", entry.chain...)}, []string{"web"}},
		{"beneath its own build", []pending{off}, []source.Out{built("apps/web/app", off.chain...), built("apps", append(off.chain, entry.chain[0])...)}, nil},
		{"a directory named alike", []pending{entry, off}, []source.Out{built("app", entry.chain...)}, nil},
		{"not a Kustomization", []pending{hr}, []source.Out{fromEntry}, nil},
		{"delivered, not a root", []pending{{obj: off.obj, chain: append(entry.chain, off.chain...)}}, []source.Out{fromEntry}, nil},
		{"failed build", []pending{off}, []source.Out{withStatus(fromEntry, object.StatusFailed)}, nil},
		{"withheld build", []pending{off}, []source.Out{withStatus(fromEntry, object.StatusWithheld)}, nil},
		{"mapped source", []pending{off}, []source.Out{viaMapped(fromEntry)}, nil},
		{"a chart", []pending{off}, []source.Out{asChart(fromEntry)}, nil},
		{"a HelmRelease's build", []pending{off}, []source.Out{built("apps", hr.chain...)}, nil},
		{"read by a build (a self-managing root's sibling)", []pending{entry, off}, []source.Out{fromEntry, readBy(built("apps/web", entry.chain...), "apps/web/ks.yaml")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, f := range unappliedRoots(c.roots, c.delivered) {
				got = append(got, f.About.Name)
				if f.Check != "gitops-unapplied-root" || f.Severity != "warning" || !strings.Contains(f.Message, "Kustomization flux-system/apps (clusters/prod/apps.yaml:2)") {
					t.Errorf("finding: %+v", f)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("named %v, want %v", got, c.want)
			}
		})
	}
}

func withStatus(o source.Out, s object.Status) source.Out { o.Result.Status = s; return o }
func viaMapped(o source.Out) source.Out {
	o.Via = &object.Link{Kind: "GitRepository", Name: "other"}
	return o
}
func asChart(o source.Out) source.Out                 { o.Spec.Type = object.SourceHelm; return o }
func readBy(o source.Out, files ...string) source.Out { o.Covered = files; return o }
