package render

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fetch"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
	"github.com/capreport/capreport/render/kustomize"
	"github.com/capreport/capreport/render/worker"
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
	// reads is what reading each resource file cost the process's
	// Kustomize builds (kustomize.ReadMemo); shared by the copies.
	reads *kustomize.ReadMemo
	// manifests are the root-relative YAML files discovery met: plain
	// manifests and the files kustomizations list (deferral.go reads them).
	manifests []string
	// kustDirs are the root-relative directories discovery found a
	// kustomization in.
	kustDirs map[string]bool
	// warm: the standalone renders deferred the sources Flux Kustomizations
	// deliver, whose builds come next, each waiting for the one that
	// delivers it. A render worker parses kustomize's schema (as long as
	// a build takes, the first time a build needs it) once it is done,
	// while it waits for those builds, not as the first of them runs.
	warm bool
}

// fetchState is one process's fetcher and what the run may still
// download; a worker's budget is refreshed by every request.
type fetchState struct {
	mu      sync.Mutex
	fetcher *fetch.Fetcher
	budget  atomic.Int64
	started bool
}

// workerPool is one Render's way to its worker processes (render/worker).
type workerPool = worker.Pool[workerSetup, workerRequest, workerResponse]

// sourceOut is one source's render (render/internal/source).
type sourceOut = source.Out

func skippedOut(spec SourceSpec, reason string) sourceOut {
	return sourceOut{Result: SourceResult{Path: spec.Path, Type: spec.Type, ValueSet: spec.Name, Status: StatusSkipped, Reason: reason}}
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
