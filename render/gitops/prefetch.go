package gitops

import (
	"maps"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/render/internal/source"
)

// The GitOps objects are expanded one after another, breadth first, since
// each may need what the ones before it delivered. Their builds need not
// wait so: before the queue is worked through, the builds of the Flux
// Kustomizations waiting in it (their specs told without building) are
// made side by side, as discovery's are, into a memo the expansions then
// read. A Kustomization whose build depends on what comes before it (a
// GitRepository found later) computes another spec and builds it then.

// prefetch builds, side by side, the Flux Kustomizations among pending
// that have no expansion yet.
func (g *engine) prefetch(pending []pending) {
	par := g.parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	if par < 2 || g.delivered == nil {
		return
	}
	keys := map[string]source.Spec{}
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
		if spec, err := g.flux.BuildSpec(o, rel); err == nil {
			if key, ok := specKey(spec); ok {
				keys[key] = spec
			}
		}
	}
	if len(keys) < 2 {
		return
	}
	var eg errgroup.Group
	eg.SetLimit(par)
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		spec := keys[key]
		eg.Go(func() error {
			g.delivered.put(key, g.src.Render(g.ctx, spec))
			return nil
		})
	}
	_ = eg.Wait() // each build reports its failure in its source.Out
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
