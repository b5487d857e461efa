package gitops

import (
	"github.com/capreport/capreport/render/gitops/argo"
	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// fresh reports whether a memoized expansion still stands.
func (g *engine) fresh(m expansionMemo) bool {
	if !m.e.lookupMiss {
		return true
	}
	for k, n := range m.reads {
		if len(g.byKindNS[k]) != n {
			return false
		}
	}
	return true
}

// expand returns what one GitOps object delivers, memoized (expansionMemo).
func (g *engine) expand(o *object.Object) *expansion {
	key := expansionKey(o)
	if m, ok := g.memo[key]; ok && g.fresh(m) {
		return m.e
	}
	outer := g.reads
	g.reads = map[string]int{}
	e := g.expandKind(o)
	reads := g.reads
	g.reads = outer
	for k, n := range reads {
		if outer != nil {
			outer[k] = n // what an inner expansion read, the outer one did too
		}
	}
	g.memo[key] = expansionMemo{e: e, reads: reads}
	return e
}

// expandKind expands o by its kind.
func (g *engine) expandKind(o *object.Object) *expansion {
	var e *expansion
	switch kindOfGitOps(o) {
	case fluxKustomization:
		e = fromFlux(g.flux.Kustomization(o))
	case fluxHelmRelease:
		e = fromFlux(g.flux.HelmRelease(o))
	case helmOperatorRelease:
		e = fromFlux(g.flux.HelmOperatorRelease(o))
	case argoApplication:
		e = fromArgo(g.argo.Application(o))
	case argoApplicationSet:
		e = fromArgo(g.argo.ApplicationSet(o))
	case fluxResourceSet:
		e = fromFlux(g.flux.ResourceSet(o))
	default:
		e = &expansion{}
	}
	return e
}

// fromArgo is what an Argo CD object delivers, as the engine keeps it.
func fromArgo(a *argo.Expansion) *expansion {
	return &expansion{outs: a.Outs, generated: a.Generated, findings: a.Findings}
}

// fromFlux is what a Flux object delivers, as the engine keeps it.
func fromFlux(f *flux.Expansion) *expansion {
	return &expansion{outs: f.Outs, findings: f.Findings, lookupMiss: f.LookupMiss}
}

// fluxView is the engine as Flux's half reads it (flux.Engine).
type fluxView struct{ g *engine }

func (v fluxView) Lookup(apiGroup, kind, namespace, name string) *object.Object {
	return v.g.lookup(apiGroup, kind, namespace, name)
}

func (v fluxView) OfKind(kind, namespace string) []*object.Object {
	v.g.deferral.noteLookup("", kind, "", -1) // any name: every one it may find is asked for
	return v.g.ofKind(kind, namespace)
}

func (v fluxView) Render(spec source.Spec) source.Out { return v.g.render(spec) }

func (v fluxView) Failed(spec source.Spec, id string, err error) source.Out {
	return v.g.src.Failed(spec, id, err)
}
