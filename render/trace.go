package render

import (
	"context"
	"slices"

	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/internal/object"
)

// traceTargets builds again, traced, every untraced Kustomize source that
// holds an autoscaler's target (by kind and name, as analyze looks it up),
// and gives those objects the file and line the traced build finds for
// them. A target lives with its autoscaler in almost every repository, and
// that build is traced already; this is for the rest.
func (rd *renderer) traceTargets(ctx context.Context, outs []sourceOut) {
	targets := map[string]bool{}
	for i := range outs {
		for j := range outs[i].Objects {
			if kind, name, ok := scaleTarget(&outs[i].Objects[j]); ok {
				targets[kind+"/"+name] = true
			}
		}
	}
	if len(targets) == 0 {
		return
	}
	for i := range outs {
		out := &outs[i]
		if !out.Result.Untraced || !slices.ContainsFunc(out.Objects, func(o Object) bool { return targets[o.Kind+"/"+o.Name] }) {
			continue
		}
		spec := out.Spec
		spec.Traced = true
		traced := rd.renderWithLimits(ctx, spec)
		byID := map[string]*Object{}
		for j := range traced.Objects {
			byID[gitops.IdentityKey(&traced.Objects[j])] = &traced.Objects[j]
		}
		for j := range out.Objects {
			o := &out.Objects[j]
			if t, ok := byID[gitops.IdentityKey(o)]; ok && targets[o.Kind+"/"+o.Name] {
				// The chain is stamped on the delivered objects after their render.
				o.Origin.File, o.Origin.Line, o.Origin.AnnotationLines, o.Origin.Via = t.Origin.File, t.Origin.Line, t.Origin.AnnotationLines, t.Origin.Via
			}
		}
	}
}

// scaleTarget is the kind and name of the workload an autoscaler scales:
// an HPA's scaleTargetRef, or a ScaledObject's (whose kind defaults to
// Deployment, as KEDA's does).
func scaleTarget(o *Object) (string, string, bool) {
	if !object.IsAutoscaler(o) {
		return "", "", false
	}
	spec, _ := o.Doc["spec"].(map[string]any)
	ref, _ := spec["scaleTargetRef"].(map[string]any)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	if kind == "" && o.Kind == "ScaledObject" {
		kind = "Deployment"
	}
	return kind, name, kind != "" && name != ""
}
