package gitops

import (
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"sync"

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

// renderMemo holds the run's delivered builds by what they build: the
// ones prefetch made and every one an expansion made. Many GitOps objects
// may deliver one build (a hundred Applications of one path and
// destination, Flux Kustomizations that differ in name or only in what
// postBuild substitutes afterwards): the controllers build it once for
// each, capreport once for the run. Each expansion gets its own copy,
// since it stamps chains and substitutes variables into the objects it
// owns, labelled with its own source name.
type renderMemo struct {
	mu   sync.Mutex
	outs map[string]source.Out
}

// specKey is what a build depends on: the spec without its name, which
// only labels the result.
func specKey(spec source.Spec) (string, bool) {
	spec.Name = ""
	data, err := json.Marshal(spec) // sorted map keys: one text per spec
	return string(data), err == nil
}

// take returns a copy of the build of spec, if the run made it.
func (m *renderMemo) take(spec source.Spec) (source.Out, bool) {
	if m == nil || spec.Delivery == nil {
		return source.Out{}, false
	}
	key, ok := specKey(spec)
	if !ok {
		return source.Out{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out, ok := m.outs[key]
	if !ok {
		return source.Out{}, false
	}
	return out.Clone().Relabel(spec), true
}

// keep remembers a delivered build an expansion made (a copy: the caller
// goes on to own out).
func (m *renderMemo) keep(spec source.Spec, out source.Out) {
	if m == nil || spec.Delivery == nil {
		return
	}
	if key, ok := specKey(spec); ok {
		out.Spec = spec
		m.put(key, out.Clone())
	}
}

func (m *renderMemo) put(key string, out source.Out) {
	m.mu.Lock()
	m.outs[key] = out
	m.mu.Unlock()
}

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
		if spec, err := g.fluxBuildSpec(o, rel); err == nil {
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
