package render

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

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
	deferred := rd.deferrable(specs)
	outs := rd.renderDeferring(ctx, specs, deferred)
	res := &Result{Findings: findings}
	if !rd.opts.NoGitOps {
		var redo string
		outs, redo = rd.followGitOps(ctx, outs, res)
		if rd.opts.deferred != nil {
			rd.opts.deferred(countTrue(deferred), redo)
		}
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
