package gitops

import (
	"runtime"

	"github.com/capreport/capreport/render/internal/source"
)

// The GitOps objects are expanded one after another, breadth first, since
// each may need what the ones before it delivered. Their builds need not
// wait so: the builds of the Flux Kustomizations waiting in the queue
// (their specs told without building) are started ahead, in the queue's
// order and as many at once as discovery's, into the memo the expansions
// then read; the walk goes on meanwhile and waits only for the build the
// expansion at hand needs. A Kustomization whose build depends on what
// comes before it (a GitRepository found later) computes another spec
// and builds it then.

// prefetchLimit is how many builds run ahead at once: the run's
// parallelism, or one per CPU.
func prefetchLimit(parallelism int) int {
	if parallelism <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return parallelism
}

// prefetch starts, ahead of the walk, the builds of the Flux
// Kustomizations among pending that have no expansion yet. With one build
// at a time (--parallelism 1) there is nothing to run beside the walk.
func (g *engine) prefetch(pending []pending) {
	if prefetchLimit(g.parallelism) < 2 || g.delivered == nil {
		return
	}
	for i := range pending {
		o := &pending[i].obj
		if kindOfGitOps(o) != fluxKustomization {
			continue
		}
		if _, ok := g.memo[expansionKey(o)]; ok {
			continue
		}
		rel, ok := g.cheapPath(o)
		if !ok {
			continue
		}
		spec, err := g.flux.BuildSpec(o, rel)
		if err != nil {
			continue
		}
		if key, ok := specKey(spec); ok {
			g.delivered.ahead(key, func() source.Out { return g.src.Render(g.ctx, spec) })
		}
	}
}

// prefetchStandalone prefetches the builds the plan asks of the Flux
// Kustomizations written in the repository, but for those beneath another's
// path, whose coverage the plan reads from a scan (nested.go).
func (g *engine) prefetchStandalone(outs []source.Out) {
	nested := g.nestedSources(outs)
	var top []pending
	for i := range outs {
		if nested[i] {
			continue
		}
		for _, o := range outs[i].Objects {
			if kindOfGitOps(&o) == fluxKustomization {
				top = append(top, pending{obj: o})
			}
		}
	}
	g.prefetch(top)
}
