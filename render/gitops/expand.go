package gitops

import (
	"github.com/capreport/capreport/render/gitops/argo"
	"github.com/capreport/capreport/render/internal/object"
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
		e = g.expandFluxKustomization(o)
	case fluxHelmRelease:
		e = g.expandHelmRelease(o)
	case helmOperatorRelease:
		e = g.expandHelmOperatorRelease(o)
	case argoApplication:
		e = fromArgo(g.argo.Application(o))
	case argoApplicationSet:
		e = fromArgo(g.argo.ApplicationSet(o))
	case fluxResourceSet:
		e = g.expandResourceSet(o)
	default:
		e = &expansion{}
	}
	return e
}

// fromArgo is what an Argo CD object delivers, as the engine keeps it.
func fromArgo(a *argo.Expansion) *expansion {
	return &expansion{outs: a.Outs, generated: a.Generated, findings: a.Findings}
}
