package render

import (
	"context"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/render/cache"
)

// renderAll renders the specs, at most opts.Parallelism (default
// GOMAXPROCS) at once; once the context ends, the rest are skipped.
func (rd *renderer) renderAll(ctx context.Context, specs []SourceSpec) []sourceOut {
	outs := make([]sourceOut, len(specs))
	par := rd.opts.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	done := rd.progressOf(len(specs))
	if rd.cache != nil {
		return rd.renderAllCached(ctx, specs, outs, par, done)
	}
	var g errgroup.Group
	g.SetLimit(par)
	for i, spec := range specs {
		if ctx.Err() != nil {
			outs[i] = skippedOut(spec, "cancelled: "+ctx.Err().Error())
			continue
		}
		g.Go(func() error {
			outs[i] = rd.renderWithLimits(ctx, spec)
			done()
			return nil
		})
	}
	_ = g.Wait() // every render reports its failure in its sourceOut
	return outs
}

// renderAllCached is renderAll with a render cache. Every source's entries
// are checked first, and a source that none of them holds starts rendering
// as soon as that is known: its render (in a worker process) then overlaps
// the checks of the sources after it and the decoding of the entries that
// hold, instead of waiting its turn among them (on a 117-chart repository
// a changed chart waited behind the checks and decoding of the 70 before
// it). Each phase runs par at a time.
func (rd *renderer) renderAllCached(ctx context.Context, specs []SourceSpec, outs []sourceOut, par int, done func()) []sourceOut {
	var checks, renders errgroup.Group
	checks.SetLimit(par)
	renders.SetLimit(par)
	keys := make([]string, len(specs))
	entries := make([]*cache.Stored, len(specs))
	render := func(i int) {
		renders.Go(func() error {
			out := rd.renderKept(ctx, specs[i])
			cacheStore(rd.cache, keys[i], out)
			out.Spec = specs[i]
			outs[i] = out
			done()
			return nil
		})
	}
	var hint []string
	if rd.opts.CheckFirst != nil {
		hint = rd.opts.CheckFirst()
	}
	for _, i := range rd.cache.CheckOrder(specPaths(specs), hint) {
		spec := specs[i]
		if ctx.Err() != nil {
			outs[i] = skippedOut(spec, "cancelled: "+ctx.Err().Error())
			continue
		}
		checks.Go(func() error {
			// The key is taken before the render: an in-process render
			// may add to the maps its spec holds.
			keys[i] = cacheKey(rd.cache, spec)
			if entries[i] = rd.cache.Find(keys[i]); entries[i] == nil {
				render(i)
			}
			return nil
		})
	}
	_ = checks.Wait()
	for i, entry := range entries {
		if entry == nil {
			continue
		}
		checks.Go(func() error {
			e, ok := rd.cache.Load(entry)
			if !ok { // damaged
				render(i)
				return nil
			}
			out := fromEntry(e)
			out.Spec = specs[i]
			outs[i] = out
			done()
			return nil
		})
	}
	_ = checks.Wait()
	_ = renders.Wait() // every render reports its failure in its sourceOut
	return outs
}

// progressOf is what renderAll calls as each of its total sources is
// done: Options.Progress with the count, or nothing.
func (rd *renderer) progressOf(total int) func() {
	p := rd.opts.Progress
	if p == nil {
		return func() {}
	}
	var n atomic.Int64
	return func() { p(int(n.Add(1)), total) }
}
