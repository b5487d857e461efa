package render

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// renderWithLimits renders one source under a timeout, turning a panic into
// a finding. With a worker pool the render runs in a worker process, which
// is stopped when it outlives its time or memory. In-process, Helm's engine
// and krusty cannot be interrupted: a source that times out is reported
// failed and its goroutine is left to finish alone. (The GitOps engine
// makes each of its builds once per run: render/gitops's renderMemo.)
func (rd *renderer) renderWithLimits(ctx context.Context, spec SourceSpec) sourceOut {
	out := rd.renderCached(ctx, spec)
	out.Spec = spec
	return out
}

// keep drops the objects Options.Keep does not want, keeping GitOps inputs
// while forGitOps, and returns the identities of the ones it dropped when
// delivered (the render is a GitOps object's: its chain is stamped only
// after); the slice is reused.
func (rd *renderer) keep(objs []Object, forGitOps, delivered bool) ([]Object, []string) {
	if rd.opts.Keep == nil {
		return objs, nil
	}
	var dropped []string
	kept := objs[:0]
	for i := range objs {
		switch {
		case rd.opts.Keep(&objs[i]) || forGitOps && gitops.Input(&objs[i]):
			kept = append(kept, objs[i])
		case delivered:
			dropped = append(dropped, gitops.IdentityKey(&objs[i]))
		}
	}
	clear(objs[len(kept):]) // let the dropped documents go
	return kept, dropped
}

// renderCached is renderWithLimits through the render cache, when there is one.
func (rd *renderer) renderCached(ctx context.Context, spec SourceSpec) sourceOut {
	if rd.cache == nil {
		return rd.renderKept(ctx, spec)
	}
	// The key is taken before the render: an in-process render may add to
	// the maps its spec holds.
	key := cacheKey(rd.cache, spec)
	if e, ok := rd.cache.Lookup(key); ok {
		return fromEntry(e)
	}
	out := rd.renderKept(ctx, spec)
	cacheStore(rd.cache, key, out)
	return out
}

// renderKept is renderFresh with the objects Options.Keep does not want
// dropped (what the cache stores, then, is only what the run keeps).
func (rd *renderer) renderKept(ctx context.Context, spec SourceSpec) sourceOut {
	out := rd.renderFresh(ctx, spec)
	out.Objects, out.Dropped = rd.keep(out.Objects, true, spec.Delivery != nil)
	return out
}

// renderFresh is renderWithLimits without the cache.
func (rd *renderer) renderFresh(ctx context.Context, spec SourceSpec) sourceOut {
	if rd.pool != nil {
		if out, ok := renderIsolated(ctx, rd.pool, rd, spec); ok {
			return out
		}
	}
	done := make(chan sourceOut, 1)
	go func() { done <- rd.renderRecovered(spec) }()
	clock := rd.slow.Begin(rd.opts.SourceTimeout)
	defer clock.End()
	select {
	case o := <-done:
		return o
	case <-clock.Expired():
		return rd.failedOut(spec, check.RenderTimeout, rd.slow.TimeoutError(clock.End(), ""))
	case <-ctx.Done():
		return rd.failedOut(spec, check.RenderCancelled, ctx.Err())
	}
}

// renderRecovered renders one source, turning a panic into a finding.
// With a render cache it records every read the render makes, through a
// copy of the renderer whose Repo reads through a recorder.
func (rd *renderer) renderRecovered(spec SourceSpec) sourceOut {
	if rd.opts.RenderCacheDir == "" {
		return rd.renderGuarded(spec)
	}
	rec := cache.NewRecorder(rd.repo.FS(), rd.repo.Root)
	sub := *rd
	sub.repo, sub.fetched = rd.repo.WithFS(rec), new(atomic.Bool)
	out := sub.renderGuarded(spec)
	out.Inputs, out.Recorded = rec.Inputs()
	out.Recorded = out.Recorded && !sub.fetched.Load()
	return out
}

// renderGuarded renders one source, turning a panic into a finding.
func (rd *renderer) renderGuarded(spec SourceSpec) (out sourceOut) {
	defer func() {
		if p := recover(); p != nil {
			out = rd.failedOut(spec, check.RenderPanic, fmt.Errorf("internal error (panic) while rendering: %v; stack: %s", p, debug.Stack()))
		}
	}()
	return rd.renderSource(spec)
}

// renderSource renders one source and fills its SourceResult.
func (rd *renderer) renderSource(spec SourceSpec) sourceOut {
	var (
		objs     []Object
		findings []check.Finding
		err      error
		meta     renderMeta
	)
	switch spec.Type {
	case SourceHelm:
		objs, findings, err = rd.renderHelmSource(spec, &meta)
	case SourceKustomize:
		objs, findings, err = rd.renderKustomizeSource(spec, &meta)
	default:
		objs, findings, err = rd.renderPlainSource(spec, &meta)
	}
	if meta.partial {
		for i := range objs {
			objs[i].Origin.Partial = true
		}
	}
	if d := spec.Delivery; d != nil {
		for i := range objs {
			object.SetDefaultNamespace(&objs[i], d.Namespace)
		}
	}
	res := SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: StatusRendered, Partial: meta.partial, Untraced: meta.untraced}
	for i := range findings {
		findings[i].Source = spec.ID()
	}
	switch {
	case errors.Is(err, helm.ErrLibraryChart):
		res.Status = StatusSkipped
		res.Reason = err.Error()
		objs = nil
	case err != nil:
		res.Status = StatusFailed
		f := failureFinding(spec, err)
		f.Message = rd.tidy(f.Message)
		res.Reason = rd.tidy(err.Error())
		findings = append(findings, f)
		objs = nil
	}
	if len(objs) > rd.opts.MaxObjects {
		res.Status = StatusFailed
		res.Reason = fmt.Sprintf("more than %d objects", rd.opts.MaxObjects)
		findings = append(findings, failureFinding(spec, fmt.Errorf("%w: %s", yamldoc.ErrTooManyObjects, res.Reason)))
		objs = nil
	}
	res.Objects = len(objs)
	res.Findings = findings
	return sourceOut{Objects: objs, Result: res, Covered: meta.covered}
}
