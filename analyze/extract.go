package analyze

import (
	"fmt"
	"sort"
	"strings"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/analyze/keda"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// Extract finds every autoscaler among objects and gathers what pricing it
// needs. cfg supplies assumption overrides and controller settings; nil
// means config.Default(). Extract does no I/O, never panics on input and
// never fails: problems are findings.
func Extract(objects []render.Object, cfg *config.Config) *Inventory {
	return extract(objects, nil, cfg)
}

// ExtractRendered is Extract of a render's objects that also reads its
// findings: an autoscaler whose target is missing beside a GitOps object
// the render did not follow says so (unfollowed.go).
func ExtractRendered(res *render.Result, cfg *config.Config) *Inventory {
	return extract(res.Objects, res.Findings, cfg)
}

func extract(objects []render.Object, renderFindings []check.Finding, cfg *config.Config) *Inventory {
	if cfg == nil {
		cfg = config.Default()
	}
	inv := &Inventory{Autoscalers: []Autoscaler{}, Skipped: []SkippedObject{}, Findings: []check.Finding{}}
	ix := newTargetIndex(objects)
	ix.notFollowed = newUnfollowed(renderFindings)
	var found []pending
	for i := range objects {
		o := &objects[i]
		a := buildAutoscaler(o, inv)
		if a == nil {
			continue
		}
		found = append(found, pendingFor(a, o, ix))
	}

	groups := duplicateGroups(found)
	assignIDs(found, func(p *pending) *Autoscaler { return &p.a })
	markDuplicates(found, groups)

	for i := range found {
		finish(&found[i].a, found[i].target, found[i].doc, ix, cfg)
		inv.Autoscalers = append(inv.Autoscalers, found[i].a)
	}
	sort.SliceStable(inv.Autoscalers, func(i, j int) bool { return inv.Autoscalers[i].ID < inv.Autoscalers[j].ID })
	inv.Findings = append(inv.Findings, defaultFindings(inv.Autoscalers)...)
	return inv
}

// pending is an autoscaler found by Extract whose target has been looked up
// but which is not final yet: IDs can only be made unique once every
// autoscaler is known (see assignIDs), duplicate findings need those IDs,
// and pricing comes last.
type pending struct {
	a      Autoscaler
	target *render.Object
	doc    map[string]any // the autoscaler's manifest, for its annotations
}

// buildAutoscaler returns the autoscaler o declares, or nil when there is
// none to price. KEDA objects that scale nothing, the KEDA v1 schema and a
// ScaledObject that does not decode are kept out of pricing but recorded on
// inv (as skipped objects or findings), so that the report can say why they
// are absent rather than drop them silently.
func buildAutoscaler(o *render.Object, inv *Inventory) *Autoscaler {
	group := groupOf(o.APIVersion)
	switch {
	case o.Kind == KindHPA && group == "autoscaling":
		return buildHPA(o, inv)
	case group == "keda.sh" && o.Kind == KindScaledObject:
		return buildScaledObject(o, inv)
	case group == "keda.sh" && (o.Kind == "ScaledJob" || o.Kind == "TriggerAuthentication" || o.Kind == "ClusterTriggerAuthentication"):
		reason := map[string]string{
			"ScaledJob":                    "a ScaledJob creates Jobs per polling interval and has no HPA; capreport prices replica autoscalers only",
			"TriggerAuthentication":        "holds credentials for triggers; nothing to price",
			"ClusterTriggerAuthentication": "holds credentials for triggers; nothing to price",
		}[o.Kind]
		inv.Skipped = append(inv.Skipped, skipped(o, reason))
	case group == "keda.k8s.io":
		inv.Skipped = append(inv.Skipped, skipped(o, "KEDA v1 schema (keda.k8s.io), which KEDA v2 does not read"))
		inv.Findings = append(inv.Findings, inventory.FindingAt(o.Origin, check.KEDAV1Schema, check.SeverityError,
			"migrate to keda.sh/v1alpha1 (scaleTargetRef.name instead of deploymentName)",
			"%s %s uses the KEDA v1 schema (%s); KEDA v2 ignores it, so nothing autoscales", o.Kind, o.Name, o.APIVersion))
	}
	return nil
}

// pendingFor records a's scale target and looks it up among the rendered
// objects. The target is resolved in the autoscaler's own namespace, since
// scaleTargetRef carries none; a nameless ref is left unresolved rather
// than matched against anything (building the autoscaler has already
// reported it as invalid).
func pendingFor(a *Autoscaler, o *render.Object, ix *targetIndex) pending {
	p := pending{a: *a, doc: o.Doc}
	ref := a.HPA.ScaleTargetRef
	p.a.Target.Ref = Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, Namespace: o.Namespace}
	if ref.Name != "" {
		p.target = ix.lookup(ref.Kind, ref.Name, o.Namespace, o.Origin)
	}
	return p
}

// duplicateGroups groups the indexes of found by what they scale: two
// autoscalers on one rendered object, or on one missing object of the same
// source. Renders of different value sets are different deployments and
// never duplicates of each other.
func duplicateGroups(found []pending) map[string][]int {
	groups := map[string][]int{}
	for i, p := range found {
		key := fmt.Sprintf("dangling\x00%s\x00%s\x00%s\x00%s", p.a.Origin.Source, p.a.Namespace, p.a.Target.Kind, p.a.Target.Name)
		if p.target != nil {
			key = fmt.Sprintf("object\x00%p", p.target)
		}
		if p.a.Target.Name != "" {
			groups[key] = append(groups[key], i)
		}
	}
	return groups
}

// markDuplicates gives every member of a group of two or more a finding
// naming the others. It needs the IDs, so it runs after assignIDs; each
// index is in one group only, so the map's order does not show.
func markDuplicates(found []pending, groups map[string][]int) {
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		for _, i := range members {
			var others []string
			for _, j := range members {
				if j != i {
					others = append(others, found[j].a.ID)
				}
			}
			sort.Strings(others)
			a := &found[i].a
			a.Findings = append(a.Findings, inventory.FindingAt(a.Origin, check.DuplicateAutoscaler, check.SeverityError,
				"keep one autoscaler per workload (for KEDA, scalingModifiers or several triggers on one ScaledObject)",
				"%s and %s both scale %s; the controllers fight over the replica count", a.ID, strings.Join(others, ", "), refString(a.Target.Kind, a.Target.Name)))
		}
	}
}

// finish resolves the target, signal and assumptions of one autoscaler.
func finish(a *Autoscaler, target *render.Object, doc map[string]any, ix *targetIndex, cfg *config.Config) {
	unpriced := func(reason string) {
		if a.Unpriced == "" {
			a.Unpriced = reason
		}
	}
	if target != nil {
		for _, p := range resolveTarget(&a.Target, target, ix) {
			a.Findings = append(a.Findings, inventory.FindingAt(target.Origin, check.DanglingTarget, check.SeverityWarning, "", "%s", p))
		}
	} else if a.Target.Name != "" {
		f := danglingTarget(a, ix)
		a.Findings = append(a.Findings, f)
		unpriced(f.Message)
	}

	// Utilization needs a request on every container it averages over.
	if a.Target.Found && len(a.Target.Containers) > 0 {
		for _, m := range a.Metrics {
			if m.TargetType != autoscalingv2.UtilizationMetricType {
				continue
			}
			if missing := missingRequests(a.Target, m.Name, m.Container); len(missing) > 0 {
				f := inventory.FindingAt(a.Target.Origin, check.MissingRequest, check.SeverityError,
					fmt.Sprintf("set resources.requests.%s on every container", m.Name),
					"%s: %s utilization needs a %s request, and %s sets none on container(s) %s; the HPA cannot compute this metric",
					a.ID, m.Name, m.Name, refString(a.Target.Kind, a.Target.Name), strings.Join(missing, ", "))
				a.Findings = append(a.Findings, f)
				unpriced(f.Message)
			}
		}
	}

	// Assumptions: autoscaler annotations, then the target's, then config.
	asAnn, fs := parseAnnotations(annotationsOf(doc), a.Origin, a.ID)
	a.Findings = append(a.Findings, fs...)
	var tgAnn config.Assumptions
	if a.Target.Found {
		var tfs []check.Finding
		tgAnn, tfs = parseAnnotations(a.Target.Annotations, a.Target.Origin, refString(a.Target.Kind, a.Target.Name))
		a.Findings = append(a.Findings, tfs...)
	}
	wl, _ := cfg.WorkloadAssumptions(a.Namespace,
		config.ObjectRef{Kind: a.Kind, Name: a.Name},
		config.ObjectRef{Kind: a.Target.Kind, Name: a.Target.Name})
	l := layers{
		autoscaler: asAnn, target: tgAnn,
		autoscalerAt: originPtr(a.Origin), targetAt: originPtr(a.Target.Origin),
		workload: wl, defaults: cfg.Defaults, configFile: cfg.File,
	}
	inferred, reason := overallSignal(a.Metrics)
	a.Assumptions = resolveAssumptions(l, cfg, inferred)
	a.Signal = a.Assumptions.Signal.Value
	// A signal-unknown finding would only repeat why an already unpriced
	// autoscaler (broken, paused, dangling) cannot be priced.
	if a.Signal == SignalUnknown && a.Unpriced == "" {
		f := inventory.FindingAt(a.Origin, check.SignalUnknown, check.SeverityInfo,
			"annotate the autoscaler with capreport.io/signal: backlog, rate or saturating",
			"%s cannot be priced: %s", a.ID, reason)
		a.Findings = append(a.Findings, f)
		unpriced(f.Message)
	}

	a.Ignores = map[string]string{}
	if a.Target.Found {
		a.Findings = append(a.Findings, parseIgnores(a.Target.Annotations, a.Target.Origin, refString(a.Target.Kind, a.Target.Name), a.Ignores)...)
	}
	a.Findings = append(a.Findings, parseIgnores(annotationsOf(doc), a.Origin, a.ID, a.Ignores)...)
	if len(a.Ignores) == 0 {
		a.Ignores = nil
	}
}

// danglingTarget is the finding of an autoscaler whose target is not among
// the rendered objects: an error (a misspelt scaleTargetRef, a workload
// left out of the sources), unless a GitOps object beside the autoscaler
// was not followed, whose missing objects most likely hold the target.
func danglingTarget(a *Autoscaler, ix *targetIndex) check.Finding {
	target := refString(a.Target.Kind, a.Target.Name)
	if what, ok := ix.notFollowed.beside(a); ok {
		return inventory.FindingAt(a.Origin, check.DanglingTarget, check.SeverityWarning,
			"render what that object installs (its gitops-not-followed finding says how: --fetch downloads a chart from its registry, --source maps a source to a local copy), or check scaleTargetRef",
			"%s scales %s, which is not among the rendered objects, most likely because %s and what it installs is missing", a.ID, target, what)
	}
	return inventory.FindingAt(a.Origin, check.DanglingTarget, check.SeverityError,
		"fix scaleTargetRef, or render the workload too (add its chart or overlay to sources in .capreport.yaml)",
		"%s scales %s, which is not among the rendered objects", a.ID, target)
}

func originPtr(o render.Origin) *render.Origin { return &o }

// buildHPA decodes an HPA; one that cannot be decoded is skipped.
func buildHPA(o *render.Object, inv *Inventory) *Autoscaler {
	spec, err := hpaSpecV2(o.APIVersion, o.Doc)
	if err != nil {
		inv.Skipped = append(inv.Skipped, skipped(o, "does not decode: "+err.Error()))
		inv.Findings = append(inv.Findings, inventory.FindingAt(o.Origin, check.InvalidAutoscaler, check.SeverityError,
			"fix the manifest so the API server would accept it",
			"HorizontalPodAutoscaler %s (%s) does not decode: %v", o.Name, o.APIVersion, err))
		return nil
	}
	a := newAutoscaler(o)
	a.HPA, a.HPAName = spec, o.Name
	metrics, problems := describeHPAMetrics(spec)
	a.Metrics = metrics
	invalid := func(format string, args ...any) {
		f := inventory.FindingAt(o.Origin, check.InvalidAutoscaler, check.SeverityError, "fix the manifest so the API server would accept it", format, args...)
		a.Findings = append(a.Findings, f)
		if a.Unpriced == "" {
			a.Unpriced = f.Message
		}
	}
	for _, p := range problems {
		invalid("%s: %s", a.ID, p)
	}
	if spec.ScaleTargetRef.Name == "" || spec.ScaleTargetRef.Kind == "" {
		invalid("%s: spec.scaleTargetRef needs kind and name", a.ID)
	}
	switch {
	case spec.MaxReplicas < 1:
		invalid("%s: maxReplicas %d must be at least 1", a.ID, spec.MaxReplicas)
	case *spec.MinReplicas > spec.MaxReplicas:
		invalid("%s: minReplicas %d exceeds maxReplicas %d", a.ID, *spec.MinReplicas, spec.MaxReplicas)
	case *spec.MinReplicas < 1:
		invalid("%s: minReplicas %d needs the alpha HPAScaleToZero feature gate, off by default", a.ID, *spec.MinReplicas)
	}
	return a
}

// buildScaledObject translates a ScaledObject into its HPA.
func buildScaledObject(o *render.Object, inv *Inventory) *Autoscaler {
	ann := annotationsOf(o.Doc)
	r, err := keda.Translate(*o, ann)
	if err != nil {
		inv.Skipped = append(inv.Skipped, skipped(o, "does not decode: "+err.Error()))
		inv.Findings = append(inv.Findings, inventory.FindingAt(o.Origin, check.InvalidAutoscaler, check.SeverityError,
			"fix the manifest so KEDA's CRD would accept it",
			"ScaledObject %s does not decode: %v", o.Name, err))
		return nil
	}
	a := newAutoscaler(o)
	a.HPA, a.HPAName, a.Metrics, a.KEDA = r.Spec, r.HPAName, r.Metrics, r.KEDA
	a.Findings = append(a.Findings, r.Findings...)
	a.Unpriced = r.Unpriced
	return a
}

func newAutoscaler(o *render.Object) *Autoscaler {
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	return &Autoscaler{
		ID:         ns + "/" + o.Kind + "/" + o.Name,
		Kind:       o.Kind,
		APIVersion: o.APIVersion,
		Name:       o.Name,
		Namespace:  o.Namespace,
		Origin:     o.Origin,
		Metrics:    []Metric{},
		Findings:   []check.Finding{},
	}
}

// Withheld lists the autoscalers a failed GitOps build keeps from the
// cluster, as skipped objects that say which build withholds them.
func Withheld(ws []render.WithheldObject) []SkippedObject {
	out := make([]SkippedObject, 0, len(ws))
	for i := range ws {
		out = append(out, skipped(&ws[i].Object, "withheld: "+ws[i].By+" failed to build, so it does not reach the cluster"))
	}
	return out
}

func skipped(o *render.Object, reason string) SkippedObject {
	return SkippedObject{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, Namespace: o.Namespace, Origin: o.Origin, Reason: reason}
}

// groupOf returns the API group of an apiVersion ("" for core).
func groupOf(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// assignIDs makes IDs unique. The same namespace/Kind/name rendered twice
// (a chart under two value sets, or two overlays) is two deployments of one
// autoscaler: each keeps the plain ID plus "@<source>", so the IDs stay
// stable between base and head as long as the sources do.
func assignIDs[P any](ps []P, get func(*P) *Autoscaler) {
	count := map[string]int{}
	for i := range ps {
		count[get(&ps[i]).ID]++
	}
	seen := map[string]int{}
	for i := range ps {
		a := get(&ps[i])
		if count[a.ID] < 2 {
			continue
		}
		base := a.ID
		id := base + "@" + a.Origin.Source
		seen[id]++
		if seen[id] > 1 {
			// Same source twice: only the origin tells them apart.
			id = fmt.Sprintf("%s#%d", id, seen[id])
		}
		a.ID = id
	}
}
