package render

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/gitops"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fetch"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// renderer holds what every source render shares.
type renderer struct {
	repo *repo
	opts Options
	// scope is the absolute directory discovery walks (the root, or the
	// path a user asked about inside it).
	scope string
	// pool renders each source in a worker process; nil: in-process.
	pool *workerPool
	// fx fetches what sources point at when Options.Fetch allows it;
	// shared by the per-source copies a recorded render makes.
	fx *fetchState
	// cache is the run's render cache (Options.RenderCacheDir); nil: none.
	cache *cache.Cache
	// fetched is set, in a recorded render's copy, when the render fetches
	// (a chart, a remote base): what it downloads is not in the cache key.
	fetched *atomic.Bool
	// krustyTraced traces every traced Kustomize build with krusty's own
	// origin annotations, never with kustread's (the tests compare them).
	krustyTraced bool
	// slow is the run's allowance of slow render time, shared by the
	// per-source copies; nil: each source has the source timeout.
	slow *proc.Allowance
}

// fileRoot turns a file argument into its directory plus one explicit
// source: the file itself, or the directory when the file is a Chart.yaml
// or a kustomization. Explicit sources given by the caller are kept.
func fileRoot(r *repo, root string, opts Options) (string, Options) {
	abs, err := r.Absolute(root)
	if err != nil {
		return root, opts
	}
	fi, err := r.Stat(abs)
	if err != nil || fi.IsDir() {
		return root, opts
	}
	dir, base := filepath.Split(root)
	if dir == "" {
		dir = "."
	}
	if len(opts.Sources) == 0 {
		spec := SourceSpec{Path: base, Type: SourcePlain}
		if base == "Chart.yaml" {
			spec = SourceSpec{Path: ".", Type: SourceHelm}
		}
		if kustscan.IsKustomizationName(base) {
			spec = SourceSpec{Path: ".", Type: SourceKustomize}
		}
		spec.Helm = opts.Helm
		opts.Sources = []SourceSpec{spec}
	}
	return dir, opts
}

// Render discovers the sources under path (or takes opts.Sources) and
// renders each in-process, then follows the Flux and Argo CD objects found
// into what they deliver. path may also be a single file: its directory
// becomes the root and the file (or, for Chart.yaml and kustomization
// files, their directory) the only source. With opts.Root set, that
// directory is the repository root and path only says what to report.
// Both are paths of opts.FS (the disk unless set). The error is only for
// an unusable root or path: every per-source problem is a Finding and a
// SourceResult status, and one failing source never stops the others.
func Render(ctx context.Context, path string, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if opts.Fetch.Enabled && opts.Fetch.Deadline.IsZero() {
		opts.Fetch.Deadline = time.Now().Add(opts.Fetch.RunTimeout)
	}
	rd, err := newRenderer(path, opts)
	if err != nil {
		return nil, err
	}
	rd.setFetchBudget(rd.opts.Fetch.MaxTotalBytes)
	rd.cache = openCache(rd)
	defer rd.cache.Close()
	if len(rd.opts.Isolation.Command) > 0 && isDisk(rd.opts.FS) {
		rd.pool = newWorkerPool(rd)
		defer rd.pool.Close()
	}
	specs, findings := rd.discover()
	outs := rd.renderAll(ctx, specs)
	res := &Result{Findings: findings}
	if !rd.opts.NoGitOps {
		outs = rd.followGitOps(ctx, outs, res)
	}
	rd.traceTargets(ctx, outs)
	for _, o := range outs {
		kept, _ := rd.keep(o.Objects, false, false)
		res.Objects = append(res.Objects, kept...)
		res.Sources = append(res.Sources, o.Result)
		res.Findings = append(res.Findings, o.Result.Findings...)
	}
	if res.Objects == nil {
		res.Objects = []Object{}
	}
	res.Findings = groupByCause(res.Findings)
	return res, nil
}

// newRenderer opens the repository and places the scope inside it.
func newRenderer(path string, opts Options) (*renderer, error) {
	base := newRepo(opts)
	if opts.Root == "" {
		root, o := fileRoot(base, path, opts)
		r, err := base.At(root)
		if err != nil {
			return nil, err
		}
		return &renderer{repo: r, opts: o, scope: r.Root, fx: &fetchState{}, slow: proc.NewAllowance(o.SourceTimeout)}, nil
	}
	r, err := base.At(opts.Root)
	if err != nil {
		return nil, err
	}
	abs, err := r.Absolute(path)
	if err == nil {
		abs, err = r.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, fmt.Errorf("path %q: %w", path, err)
	}
	if !r.Within(abs) {
		return nil, fmt.Errorf("path %q is outside the repository root %s", path, r.Root)
	}
	rd := &renderer{repo: r, opts: opts, scope: abs, fx: &fetchState{}, slow: proc.NewAllowance(opts.SourceTimeout)}
	if fi, err := r.Stat(abs); err == nil && !fi.IsDir() {
		rd.scope = filepath.Dir(abs)
		if len(opts.Sources) == 0 {
			_, fo := fileRoot(r, abs, opts)
			spec := fo.Sources[0]
			spec.Path = r.Rel(filepath.Join(rd.scope, filepath.FromSlash(spec.Path)))
			rd.opts.Sources = []SourceSpec{spec}
		}
	}
	return rd, nil
}

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

// sourceOut is one source's render (render/internal/source).
type sourceOut = source.Out

func skippedOut(spec SourceSpec, reason string) sourceOut {
	return sourceOut{Result: SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: StatusSkipped, Reason: reason}}
}

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

func (rd *renderer) failedOut(spec SourceSpec, id string, err error) sourceOut {
	severity := check.SeverityError
	if id == check.RenderCancelled {
		severity = check.SeverityWarning // the run was interrupted; the source is not at fault
	}
	f := check.Finding{Check: id, Severity: severity, Source: spec.ID(),
		Message: rd.tidy(fmt.Sprintf("%s %s: %v", spec.Type, spec.ID(), err))}
	return sourceOut{Result: SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name,
		Status: StatusFailed, Reason: rd.tidy(err.Error()), Findings: []check.Finding{f}}}
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

// renderMeta is what a render learns besides its objects.
type renderMeta struct {
	covered  []string // root-relative paths read as parts of the source
	partial  bool     // something it refers to was left out
	untraced bool     // a Kustomize build without origin annotations
}

// maxMessage bounds finding messages; template errors nest (an include
// recursion error repeats its stack a thousand times).
const maxMessage = 2000

// tidy makes a message root-relative and bounded.
func (rd *renderer) tidy(msg string) string {
	if rd.repo != nil {
		msg = strings.ReplaceAll(msg, rd.repo.Root+string(filepath.Separator), "")
	}
	if i := strings.Index(msg, "nested reference name: "); i >= 0 {
		name := strings.TrimSuffix(strings.SplitN(msg[i+len("nested reference name: "):], ":", 2)[0], " ")
		head := msg
		if j := strings.Index(msg, "error calling include"); j > 0 {
			head = msg[:j]
		}
		msg = fmt.Sprintf("%sinclude recursion limit exceeded: template %q includes itself without end", head, name)
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage/2] + " … " + msg[len(msg)-maxMessage/2:]
	}
	return msg
}

// failureFinding turns the error that stopped a source into a finding with
// the most specific check ID available.
func failureFinding(spec SourceSpec, err error) check.Finding {
	f := check.Finding{Check: check.RenderFailed, Severity: check.SeverityError, Source: spec.ID(),
		Message: fmt.Sprintf("%s %s failed to render: %v", spec.Type, spec.ID(), err)}
	var pe *repofs.PathError
	if errors.As(err, &pe) {
		f.Check = repofs.CheckFor(err)
		f.Location = check.At(pe.Rel, 0)
	}
	var de *yamldoc.DocError
	if errors.As(err, &de) {
		f.Location = check.At(de.File, de.Line)
	}
	var ke *kustscan.Refusal
	if errors.As(err, &ke) {
		f.Check = ke.Check
		f.Location = check.At(ke.File, 0)
	}
	if c := fetch.Check(err); c != "" {
		f.Check, f.Severity = c, fetch.Severity(c)
	}
	var me *helm.MissingDepError
	if errors.As(err, &me) {
		f.Cause = me.Cause
	}
	switch {
	case errors.Is(err, yamldoc.ErrAliasBudget):
		f.Check = check.YAMLAliasBomb
	case errors.Is(err, yamldoc.ErrTooManyObjects):
		f.Check = check.TooManyObjects
	}
	return f
}
