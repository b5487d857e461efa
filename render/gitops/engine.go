package gitops

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/argo"
	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/source"
)

// engine.go is the floor of the package: the engine's state and what every
// expansion reads (the known objects, the delivered builds, the fields of
// a document). The controllers' files (flux.go, helmrelease.go,
// helmoperator.go, resourceset.go, argo.go) call down into it, the plan
// (selfmanaged.go, nested.go, prefetch.go, withhold.go) into them, and
// gitops.go, which runs it all, into everything; late.go and unapplied.go
// read what the run made, after it.

// Bounds of GitOps expansion: a repository that delivers more than this is
// cut, with a finding, rather than rendered without end.
const (
	maxGitOpsDeliveries = 2000 // GitOps objects expanded in one run
	// MaxDepth is the most links one delivery chain may have (render's
	// tests build a chain one deeper).
	MaxDepth = 16
)

// gitopsKind names the GitOps object kinds capreport follows.
type gitopsKind int

const (
	notGitOps gitopsKind = iota
	fluxKustomization
	fluxHelmRelease
	helmOperatorRelease // Flux v1's Helm Operator (helm.fluxcd.io/v1)
	argoApplication
	argoApplicationSet
	fluxResourceSet // the Flux Operator's (fluxcd.controlplane.io)
)

// kindOfGitOps classifies an object by group and kind.
func kindOfGitOps(o *object.Object) gitopsKind {
	group := object.Group(o.APIVersion)
	switch {
	case group == "kustomize.toolkit.fluxcd.io" && o.Kind == "Kustomization":
		return fluxKustomization
	case group == "helm.toolkit.fluxcd.io" && o.Kind == "HelmRelease":
		return fluxHelmRelease
	case group == "helm.fluxcd.io" && o.Kind == "HelmRelease":
		return helmOperatorRelease
	case group == "argoproj.io" && o.Kind == "Application":
		return argoApplication
	case group == "argoproj.io" && o.Kind == "ApplicationSet":
		return argoApplicationSet
	case group == "fluxcd.controlplane.io" && o.Kind == "ResourceSet":
		return fluxResourceSet
	}
	return notGitOps
}

// Input reports whether following GitOps objects may read o: the
// Flux and Argo CD objects themselves, Flux's sources, and the ConfigMaps
// and Secrets their values and substitutions come from.
func Input(o *object.Object) bool {
	switch object.Group(o.APIVersion) {
	case "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io", "helm.fluxcd.io", "argoproj.io", "fluxcd.controlplane.io":
		return true
	case "":
		return o.Kind == "ConfigMap" || o.Kind == "Secret"
	}
	return false
}

// linkOf is the chain link of a GitOps object.
func linkOf(o *object.Object) object.Link {
	return object.Link{File: o.Origin.File, Line: o.Origin.Line, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// gitopsKey identifies one GitOps object at one place: the same object
// found again (a self-managing Flux root re-applies its own directory) is
// not expanded twice.
func gitopsKey(o *object.Object) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s:%d", o.APIVersion, o.Kind, o.Namespace, o.Name, o.Origin.File, o.Origin.Line)
}

// expansionKey identifies what a GitOps object expands to: its place and its
// content. The same object at the same place can differ (a chart rendered
// on its own with its defaults, and delivered with an Application's
// values), and each must expand as it is.
func expansionKey(o *object.Object) string {
	data, err := json.Marshal(o.Doc) // sorted keys: one text per content
	if err != nil {
		return gitopsKey(o)
	}
	sum := sha256.Sum256(data)
	return gitopsKey(o) + "\x00" + string(sum[:])
}

// expansion is what one GitOps object delivers.
type expansion struct {
	outs []source.Out // renders it made
	// generated are objects it yields without a render (the Applications of
	// an ApplicationSet).
	generated []object.Object
	findings  []check.Finding // about the GitOps object itself
	// lookupMiss: a referenced object (GitRepository, ConfigMap, HelmChart)
	// was not found, so a later pass, with more objects known, may differ.
	lookupMiss bool
}

// covered lists every root-relative path the expansion's renders read.
func (e *expansion) covered() map[string]bool {
	c := map[string]bool{}
	for _, o := range e.outs {
		for _, p := range o.Covered {
			c[p] = true
		}
	}
	return c
}

// engine follows the GitOps objects of one Render.
type engine struct {
	src Sources
	ctx context.Context
	// repo is the repository tree, which the plan reads (a nested
	// Kustomization's path) without rendering.
	repo        *repofs.Repo
	parallelism int
	// delivered holds the run's delivered builds (prefetch.go).
	delivered *renderMemo
	// known are the objects GitOps references resolve against: every
	// standalone object, then every delivered one; byKindNS indexes them
	// by kind and namespace (later ones last).
	known    []object.Object
	byKindNS map[string][]int
	findings []check.Finding
	memo     map[string]expansionMemo
	// reads counts, while an expansion runs, the known objects of each
	// kind and namespace it looked among (see expansionMemo).
	reads map[string]int
	// withheld are the autoscalers failed builds keep from the cluster;
	// failedBy maps each failed object's ref to the object.
	withheld []object.WithheldObject
	failedBy map[string]*object.Object
	// failedInRun are the GitOps objects whose delivered copy failed to
	// build as it was followed.
	failedInRun map[string]bool
	// flux and argo follow the run's Flux and Argo CD objects.
	flux *flux.Run
	argo *argo.Run
	// deferral is what the run must check of the sources render left
	// unrendered (deferral.go); nil when there are none.
	deferral *deferralCheck
}

// pending is a GitOps object waiting to be expanded with its chain.
type pending struct {
	obj   object.Object
	chain []object.Link
}

// Sources is what the engine asks of the orchestrator that runs it: the
// renders of the sources GitOps objects deliver. The engine reads the
// repository itself only as a tree (Config.Repo), to find what to render.
type Sources interface {
	// Render renders one source under the run's limits, through its
	// render cache when it has one; the result's Spec is spec.
	Render(ctx context.Context, spec source.Spec) source.Out
	// Failed is the render of spec that err stopped, with a finding of
	// check id.
	Failed(spec source.Spec, id string, err error) source.Out
	// ScanKustomize reads the kustomization spec names at dir, the
	// absolute directory, without building it.
	ScanKustomize(spec source.Spec, dir string) (*kustscan.Scan, []check.Finding, error)
}

// Is reports whether o is a GitOps object the engine follows.
func Is(o *object.Object) bool { return kindOfGitOps(o) != notGitOps }

// render is Sources.Render of a delivered source, made once per run
// (renderMemo): the builds prefetch made and every one an expansion made
// before are taken from the memo.
func (g *engine) render(spec source.Spec) source.Out {
	if out, ok := g.delivered.take(spec); ok {
		return out
	}
	out := g.delivered.slotted(func() source.Out { return g.src.Render(g.ctx, spec) })
	g.delivered.keep(spec, out)
	return out
}

// renderOwn renders a source on its own, as the orchestrator rendered the
// standalone ones (deferral.go asks for a deferred one).
func (g *engine) renderOwn(spec source.Spec) source.Out { return g.src.Render(g.ctx, spec) }

// readRepoFile reads a root-relative file of the repository.
func (g *engine) readRepoFile(rel string) ([]byte, error) { return g.repo.ReadFile(g.repo.Abs(rel)) }

// know adds objects that references may resolve against.
func (g *engine) know(objs []object.Object) {
	for _, o := range objs {
		k := kindNSKey(o.Kind, o.Namespace)
		g.byKindNS[k] = append(g.byKindNS[k], len(g.known))
		g.known = append(g.known, o)
	}
}

func kindNSKey(kind, ns string) string {
	if ns == "" {
		ns = object.DefaultNamespace
	}
	return kind + "\x00" + ns
}

// ofKind returns the known objects of a kind in a namespace, latest last.
func (g *engine) ofKind(kind, ns string) []*object.Object {
	idx := g.byKindNS[kindNSKey(kind, ns)]
	if g.reads != nil {
		g.reads[kindNSKey(kind, ns)] = len(idx)
	}
	out := make([]*object.Object, len(idx))
	for i, j := range idx {
		out[i] = &g.known[j]
	}
	return out
}

// expansionMemo is a memoized expansion. One that missed a reference (a
// ConfigMap, a GitRepository) may differ once more objects are known, so
// it stands only while every kind and namespace it looked among holds as
// many known objects as it did then: a Kustomization whose substituteFrom
// names a Secret the repository never holds is built once, not once per
// question asked of it.
type expansionMemo struct {
	e     *expansion
	reads map[string]int
}

// delivery is an edge of plan's graph: source to is delivered (or, for a
// failed object, withheld) by the GitOps object by.
type delivery struct {
	to int
	by string
}

// IdentityKey is what makes two objects one in the cluster: group, kind,
// namespace and name.
func IdentityKey(o *object.Object) string {
	group := object.Group(o.APIVersion)
	ns := o.Namespace
	if ns == "" && !object.ClusterScoped(o.Kind) {
		ns = object.DefaultNamespace
	}
	return group + "\x00" + o.Kind + "\x00" + ns + "\x00" + o.Name
}

// lookup finds a known object by kind and namespaced name ("" namespace
// reads as default, as the API server does for namespaced kinds).
func (g *engine) lookup(apiGroup, kind, namespace, name string) *object.Object {
	k := kindNSKey(kind, namespace)
	idx := g.byKindNS[k]
	if g.reads != nil {
		g.reads[k] = len(idx)
	}
	for i := len(idx) - 1; i >= 0; i-- {
		o := &g.known[idx[i]]
		if o.Name == name && (apiGroup == "" || object.Group(o.APIVersion) == apiGroup) {
			g.deferral.noteLookup(apiGroup, kind, name, idx[i])
			return o
		}
	}
	g.deferral.noteLookup(apiGroup, kind, name, -1)
	return nil
}

// supersede marks a standalone source delivered by the GitOps object by:
// its row reports nothing of its own render (objects, findings, partial).
func supersede(o *source.Out, by string) {
	o.Result.Status = object.StatusDelivered
	o.Result.Reason = "rendered through " + by
	o.Result.Objects = 0
	o.Result.Findings = nil
	o.Result.Partial = false
	o.Objects = nil
}
