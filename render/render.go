package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// renderer holds what every source render shares.
type renderer struct {
	repo *repo
	opts Options
}

func openRepo(root string, maxBytes int64) (*repo, error) {
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("render root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("render root %q is not a directory", root)
	}
	return &repo{root: real, maxBytes: maxBytes}, nil
}

// fileRoot turns a file argument into its directory plus one explicit
// source: the file itself, or the directory when the file is a Chart.yaml
// or a kustomization. Explicit sources given by the caller are kept.
func fileRoot(root string, opts Options) (string, Options) {
	fi, err := os.Stat(root)
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
		for _, k := range kustomizationNames {
			if base == k {
				spec = SourceSpec{Path: ".", Type: SourceKustomize}
			}
		}
		spec.Helm = opts.Helm
		opts.Sources = []SourceSpec{spec}
	}
	return dir, opts
}

// Render discovers the sources under root (or takes opts.Sources) and
// renders each in-process. root may also be a single file: its directory
// becomes the root and the file (or, for Chart.yaml and kustomization
// files, their directory) the only source. The error is only for an unusable root: every
// per-source problem is a Finding and a SourceResult status, and one
// failing source never stops the others.
func Render(ctx context.Context, root string, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	root, opts = fileRoot(root, opts)
	r, err := openRepo(root, opts.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	rd := &renderer{repo: r, opts: opts}
	specs, findings := rd.discover()

	outs := make([]sourceOut, len(specs))
	par := opts.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, spec := range specs {
		if ctx.Err() != nil {
			outs[i] = skippedOut(spec, "cancelled: "+ctx.Err().Error())
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i] = rd.renderWithLimits(ctx, spec)
		}()
	}
	wg.Wait()

	res := &Result{Findings: findings}
	for _, o := range outs {
		res.Objects = append(res.Objects, o.objects...)
		res.Sources = append(res.Sources, o.result)
		res.Findings = append(res.Findings, o.result.Findings...)
	}
	if res.Objects == nil {
		res.Objects = []Object{}
	}
	return res, nil
}

type sourceOut struct {
	objects []Object
	result  SourceResult
}

func skippedOut(spec SourceSpec, reason string) sourceOut {
	return sourceOut{result: SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: StatusSkipped, Reason: reason}}
}

// renderWithLimits renders one source under a timeout, turning a panic into
// a finding. Helm's engine and krusty cannot be interrupted: a source that
// times out is reported failed and its goroutine is left to finish alone.
func (rd *renderer) renderWithLimits(ctx context.Context, spec SourceSpec) sourceOut {
	done := make(chan sourceOut, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- rd.failedOut(spec, CheckRenderPanic, fmt.Errorf("internal error (panic) while rendering: %v; stack: %s", p, debug.Stack()))
			}
		}()
		done <- rd.renderSource(spec)
	}()
	timer := time.NewTimer(rd.opts.SourceTimeout)
	defer timer.Stop()
	select {
	case o := <-done:
		return o
	case <-timer.C:
		return rd.failedOut(spec, CheckRenderTimeout, fmt.Errorf("render did not finish within %s", rd.opts.SourceTimeout))
	case <-ctx.Done():
		return rd.failedOut(spec, CheckRenderCancelled, ctx.Err())
	}
}

func (rd *renderer) failedOut(spec SourceSpec, check string, err error) sourceOut {
	severity := SeverityError
	if check == CheckRenderCancelled {
		severity = SeverityWarning // the run was interrupted; the source is not at fault
	}
	f := Finding{Check: check, Severity: severity, Source: spec.ID(),
		Message: rd.tidy(fmt.Sprintf("%s %s: %v", spec.Type, spec.ID(), err))}
	return sourceOut{result: SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name,
		Status: StatusFailed, Reason: rd.tidy(err.Error()), Findings: []Finding{f}}}
}

// renderSource renders one source and fills its SourceResult.
func (rd *renderer) renderSource(spec SourceSpec) sourceOut {
	var (
		objs     []Object
		findings []Finding
		err      error
	)
	switch spec.Type {
	case SourceHelm:
		objs, findings, err = rd.renderHelmSource(spec)
	case SourceKustomize:
		objs, findings, err = rd.renderKustomizeSource(spec)
	default:
		objs, findings, err = rd.renderPlainSource(spec)
	}
	res := SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: StatusRendered}
	for i := range findings {
		findings[i].Source = spec.ID()
	}
	switch {
	case errors.Is(err, errLibraryChart):
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
		findings = append(findings, failureFinding(spec, fmt.Errorf("%w: %s", errTooManyObjects, res.Reason)))
		objs = nil
	}
	res.Objects = len(objs)
	res.Findings = findings
	return sourceOut{objects: objs, result: res}
}

// maxMessage bounds finding messages; template errors nest (an include
// recursion error repeats its stack a thousand times).
const maxMessage = 2000

// tidy makes a message root-relative and bounded.
func (rd *renderer) tidy(msg string) string {
	if rd.repo != nil {
		msg = strings.ReplaceAll(msg, rd.repo.root+string(filepath.Separator), "")
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
func failureFinding(spec SourceSpec, err error) Finding {
	f := Finding{Check: CheckRenderFailed, Severity: SeverityError, Source: spec.ID(),
		Message: fmt.Sprintf("%s %s failed to render: %v", spec.Type, spec.ID(), err)}
	var pe *pathError
	if errors.As(err, &pe) {
		f.Check = checkForPathError(err)
		f.File = pe.rel
	}
	var de *docError
	if errors.As(err, &de) {
		f.File, f.Line = de.file, de.line
	}
	var ke *kustomizeRefusal
	if errors.As(err, &ke) {
		f.Check = ke.check
		f.File = ke.file
	}
	switch {
	case errors.Is(err, errAliasBudget):
		f.Check = CheckYAMLAliasBomb
	case errors.Is(err, errTooManyObjects):
		f.Check = CheckTooManyObjects
	}
	return f
}
