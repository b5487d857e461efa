package render

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/worker"
)

// renderIsolated renders spec in one of p's workers. ok is false when no
// worker could take it (none could start, or the spec holds a value gob
// cannot carry): the caller renders in-process instead.
func renderIsolated(ctx context.Context, p *workerPool, rd *renderer, spec SourceSpec) (out sourceOut, ok bool) {
	req := workerRequest{Spec: toWire(spec), Warm: rd.warm}
	if gob.NewEncoder(io.Discard).Encode(req) != nil {
		return sourceOut{}, false
	}
	w, err := p.Get(ctx)
	if err != nil {
		if ctx.Err() != nil { // it ended while the pool waited for a worker
			return rd.failedOut(spec, check.RenderCancelled, ctx.Err()), true
		}
		return sourceOut{}, false
	}
	clock := rd.slow.Begin(rd.opts.SourceTimeout)
	req.FetchBudget = rd.fx.budget.Load()
	resp, _, printed, err := w.Do(ctx, req, clock.Expired())
	granted := clock.End()
	rd.fx.budget.Add(-resp.Fetched)
	if err == nil {
		p.Put(w)
		out = sourceOut{Objects: fromWireObjects(resp.Objects), Result: resp.Result, Covered: resp.Covered, Inputs: resp.Inputs, Recorded: resp.Recorded}
		out.Result.Findings = append(out.Result.Findings, rd.logFindings(spec, printed)...)
		return out, true
	}
	w.Kill()
	p.Drop()
	return rd.workerFailure(spec, err, granted, w.LastLines(2*time.Second)), true
}

// workerFailure turns a request that ended with its worker into the
// finding that says why: time, memory, a fatal error, or the context.
func (rd *renderer) workerFailure(spec SourceSpec, err error, granted time.Duration, tail []string) sourceOut {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return rd.failedOut(spec, check.RenderTimeout, rd.slow.TimeoutError(granted, " and was stopped"))
	case errors.Is(err, context.Canceled):
		return rd.failedOut(spec, check.RenderCancelled, err)
	}
	joined := strings.Join(tail, "\n")
	switch {
	case strings.Contains(joined, proc.MemoryMarker) || strings.Contains(joined, "out of memory"):
		return rd.failedOut(spec, check.RenderMemory, fmt.Errorf("render held more than %d MiB and was stopped (a template that recurses or builds huge strings?)", rd.opts.Isolation.memory()>>20))
	case strings.Contains(joined, "stack overflow") || strings.Contains(joined, "stack exceeds"):
		return rd.failedOut(spec, check.RenderCrashed, fmt.Errorf("render recursed past the %d MiB stack limit and was stopped (a tpl or include that calls itself?)", proc.MaxStack>>20))
	}
	return rd.failedOut(spec, check.RenderCrashed, fmt.Errorf("%v; its last words: %s", err, fatalLine(tail)))
}

// fatalLine picks the line of a dying Go process that says why.
func fatalLine(tail []string) string {
	for _, l := range tail {
		if strings.HasPrefix(l, "fatal error:") || strings.HasPrefix(l, "panic:") {
			return l
		}
	}
	if len(tail) > 0 {
		return tail[len(tail)-1]
	}
	return "(nothing)"
}

// maxLogFindings bounds the render-log findings of one source.
const maxLogFindings = 10

// unorderedLists are the lines a renderer prints with a list in Go's map
// order: krusty's ResAccumulator.ResolveVars joins its unused vars from a
// map, so the same build printed them in another order on every run, and a
// report (and the pull-request comment that quotes it) changed with it.
var unorderedLists = []string{"well-defined vars that were never replaced: "}

// steadyLine is a printed line with such a list sorted.
func steadyLine(l string) string {
	for _, prefix := range unorderedLists {
		if list, ok := strings.CutPrefix(l, prefix); ok {
			names := strings.Split(list, ",")
			slices.Sort(names)
			return prefix + strings.Join(names, ",")
		}
	}
	return l
}

// logFindings turns what the render libraries printed while rendering spec
// (kustomize's deprecation notices, Helm's coalesce warnings) into warnings
// on the source, one per distinct line.
func (rd *renderer) logFindings(spec SourceSpec, printed worker.Log) []check.Finding {
	var out []check.Finding
	seen := map[string]bool{}
	more := printed.Dropped
	for _, l := range printed.Lines {
		l = steadyLine(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "#")))
		if l == "" || seen[l] {
			continue
		}
		seen[l] = true
		if len(out) == maxLogFindings {
			more++
			continue
		}
		out = append(out, check.Finding{Check: check.RenderLog, Severity: check.SeverityWarning, Source: spec.ID(),
			Message: rd.tidy(fmt.Sprintf("%s %s: the renderer printed: %s", spec.Type, spec.ID(), l))})
	}
	if more > 0 && len(out) > 0 {
		out[len(out)-1].Message += fmt.Sprintf(" (and %d more lines)", more)
	}
	return out
}
