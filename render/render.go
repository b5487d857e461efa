package render

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/kustomize"
)

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
		return &renderer{repo: r, opts: o, scope: r.Root, fx: &fetchState{}, slow: proc.NewAllowance(o.SourceTimeout), reads: kustomize.NewReadMemo()}, nil
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
	rd := &renderer{repo: r, opts: opts, scope: abs, fx: &fetchState{}, slow: proc.NewAllowance(opts.SourceTimeout), reads: kustomize.NewReadMemo()}
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
