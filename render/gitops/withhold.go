package gitops

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// What a failed build withholds. kustomize-controller applies nothing of a
// Kustomization whose build fails (its reconcile stops at the build error,
// before the apply), helm-controller installs nothing of a chart that does
// not render, and Argo CD syncs nothing of an Application whose manifest
// generation fails, whichever of its sources failed. So everything beneath
// a failed GitOps object, including what discovery finds in its directory
// and what the GitOps objects there would deliver in turn, is withheld: it
// is listed, never priced as live.

// failure is why the expansion delivers nothing ("" when it delivers): the
// reason of its first render that failed.
func (e *expansion) failure() string {
	for _, o := range e.outs {
		if o.Result.Status == object.StatusFailed {
			return o.Result.Reason
		}
	}
	return ""
}

// reach is every root-relative path a failed expansion would have
// delivered: the paths its renders started from and what they read.
func (e *expansion) reach() map[string]bool {
	r := e.covered()
	for _, o := range e.outs {
		r[o.Result.Path] = true
	}
	return r
}

// sourcesBeneath are the indexes of the sources at or below any of paths.
func sourcesBeneath(outs []source.Out, paths map[string]bool) []int {
	var out []int
	for i, o := range outs {
		for p := o.Result.Path; ; p = path.Dir(p) {
			if paths[p] {
				out = append(out, i)
				break
			}
			if p == "." || p == "/" || p == "" {
				break
			}
		}
	}
	return out
}

// withheldSources are the sources no working GitOps object delivers and a
// failed one reaches, directly or through the GitOps objects of sources it
// withholds, each mapped to the failed object at the start of its chain. A
// source that a GitOps object of a source not withheld delivers is live.
// The set only grows (withholding a source kills its edges), so the loop
// ends after at most one round per source.
func withheldSources(live, failed map[int][]delivery) map[int]string {
	withheld := map[int]string{}
	for {
		delivered := map[int]bool{}
		for from, es := range live {
			if _, ok := withheld[from]; ok {
				continue
			}
			for _, e := range es {
				delivered[e.to] = true
			}
		}
		grew := false
		mark := func(to int, by string) {
			if _, ok := withheld[to]; !ok && !delivered[to] {
				withheld[to] = by
				grew = true
			}
		}
		for _, from := range slices.Sorted(maps.Keys(failed)) {
			if _, ok := withheld[from]; ok {
				continue
			}
			for _, e := range failed[from] {
				mark(e.to, e.by)
			}
		}
		for _, from := range slices.Sorted(maps.Keys(withheld)) {
			for _, e := range append(live[from], failed[from]...) {
				mark(e.to, withheld[from])
			}
		}
		if !grew {
			return withheld
		}
	}
}

// withhold marks a source withheld by the failed object by and keeps its
// autoscalers in g.withheld; the rest of what it holds is dropped. A source
// that failed to render on its own too (a kustomization missing the file
// that failed the GitOps build) holds no objects, so its files are read as
// plain manifests to find the autoscalers written there.
func (g *engine) withhold(o *source.Out, by string) {
	objs := o.Objects
	if o.Result.Status == object.StatusFailed && o.Result.ValueSet == "" {
		objs = g.render(source.Spec{Path: o.Result.Path, Type: object.SourcePlain, Explicit: true}).Objects
	}
	for _, obj := range objs {
		if object.IsAutoscaler(&obj) {
			g.withheld = append(g.withheld, object.WithheldObject{Object: obj, By: by})
		}
	}
	o.Result.Status = object.StatusWithheld
	o.Result.Reason = by + " failed to build, so nothing beneath it reaches the cluster"
	o.Result.Objects = 0
	o.Result.Findings = nil
	o.Objects = nil
}

// withheldFindings are one gitops-withheld finding per failed object that
// withholds autoscalers, at that object, naming each of them.
func (g *engine) withheldFindings() []check.Finding {
	byRef := map[string][]string{}
	for _, w := range g.withheld {
		byRef[w.By] = append(byRef[w.By], fmt.Sprintf("%s %s (%s:%d)", w.Kind, object.NSName(w.Namespace, w.Name), w.Origin.File, w.Origin.Line))
	}
	var out []check.Finding
	for _, ref := range slices.Sorted(maps.Keys(byRef)) {
		o := g.failedBy[ref]
		if o == nil {
			continue
		}
		out = append(out, object.Finding(o, check.GitOpsWithheld, check.SeverityError,
			fmt.Sprintf("its build failed, so nothing beneath it reaches the cluster; withheld: %s", strings.Join(byRef[ref], ", "))))
	}
	return out
}
