// Package appset expands an Argo CD ApplicationSet into the Applications its
// controller would generate, without a cluster: list, git (directories and
// files, read from this repository's tree), matrix and merge generators, the
// legacy {{param}} and the goTemplate syntaxes, generator template overrides,
// selectors, values and templatePatch.
//
// It follows argoproj/argo-cd v3.6 (applicationset/generators,
// applicationset/utils, applicationset/controllers/template). Generators that
// need a cluster or a remote API (clusters, clusterDecisionResource,
// scmProvider, pullRequest, plugin) yield nothing here and a problem says so.
//
// Everything is bounded: the number of Applications, the parameter sets a
// matrix or merge materializes, the output of each template and the total
// work, so that a hostile ApplicationSet finishes quickly with a problem.
package appset

import (
	"errors"
	"fmt"
	"sort"
)

// Repo is this repository's tree, as the git generators see it
// (root-relative, slash-separated paths).
type Repo interface {
	// Dirs lists every directory of the repository (not ".", no hidden .git), sorted.
	Dirs() []string
	// Files lists every regular file of the repository, sorted.
	Files() []string
	// ReadFile reads one file (bounded by the caller).
	ReadFile(rel string) ([]byte, error)
}

// Options tune one expansion.
type Options struct {
	// IsThisRepo says whether a git generator's repoURL names this repository.
	IsThisRepo func(repoURL string) bool
	// MaxApplications bounds the number of Applications (default 1000 when <= 0). Expansion stops early:
	// no more than MaxApplications+1 parameter sets are ever materialized, inside matrix and merge too.
	MaxApplications int
	// NewGitFileGlobbing matches git files generator paths with doublestar, as the controller does with
	// --enable-new-git-file-globbing. Off (the controller's default), paths are git ls-files pathspecs,
	// where * also matches across slashes.
	NewGitFileGlobbing bool
	// Run, when set, is the work budget all the run's Expand calls share (NewRunWork).
	Run *RunWork
}

// Problem is one thing the expansion could not do as the cluster would, or refused to do.
type Problem struct {
	Check    string // "appset-generator-unsupported", "appset-too-many", "appset-template", "appset-invalid", "appset-other-repo"
	Severity string // "error", "warning" or "info"
	Message  string // names the ApplicationSet, the generator, and why
}

// Result is what an ApplicationSet delivers: Application documents, sorted by name as the controller
// applies them, and the problems.
type Result struct {
	Applications []map[string]any // full Application documents (apiVersion argoproj.io/v1alpha1, kind Application, metadata, spec)
	Problems     []Problem
}

// Problem checks.
const (
	CheckUnsupported = "appset-generator-unsupported"
	CheckTooMany     = "appset-too-many"
	CheckTemplate    = "appset-template"
	CheckInvalid     = "appset-invalid"
	CheckOtherRepo   = "appset-other-repo"
)

// Problem severities.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

const defaultMaxApplications = 1000

// Expand never panics and runs in bounded time and memory on any input.
//
// Like the controller, any generation or template error leaves the ApplicationSet with no Application at
// all (GenerateApplications returns the error and the reconcile stops before creating anything); an
// Application that fails validation (no name, duplicate name) is left out alone.
func Expand(appSet map[string]any, repo Repo, opts Options) (res Result) {
	defer func() {
		// A panic here is a bug of ours; it must not take the caller down with it.
		if r := recover(); r != nil {
			res = Result{Problems: []Problem{{
				Check:    CheckInvalid,
				Severity: SeverityError,
				Message:  fmt.Sprintf("capreport internal error while expanding an ApplicationSet: %v", r),
			}}}
		}
	}()
	if opts.MaxApplications <= 0 {
		opts.MaxApplications = defaultMaxApplications
	}
	e := &expander{repo: repo, opts: opts, work: workBudget, readLeft: maxReadBytes, seen: map[Problem]bool{}}
	// A run whose budget is spent expands nothing more; a call charges what it spent when it ends.
	if err := e.flushRun(); err != nil {
		return e.fail(err)
	}
	defer func() { _ = e.flushRun() }()
	s, err := e.readSpec(appSet)
	if err != nil {
		return e.fail(err)
	}
	apps, err := e.generateAll(s)
	if err != nil {
		return e.fail(err)
	}
	if len(apps) > opts.MaxApplications {
		e.find(CheckTooMany, SeverityWarning, "generates more than %d Applications; only the first %d are rendered",
			opts.MaxApplications, opts.MaxApplications)
		apps = apps[:opts.MaxApplications]
	}
	apps = e.validate(apps)
	sort.SliceStable(apps, func(i, j int) bool { return appName(apps[i]) < appName(apps[j]) })
	return Result{Applications: apps, Problems: e.problems}
}

// generateAll runs the top-level generators in order, rendering each parameter set as it comes so that
// nothing past MaxApplications+1 is ever built.
func (e *expander) generateAll(s *appSetSpec) ([]map[string]any, error) {
	var apps []map[string]any
	var renderErr error
	for i, g := range s.generators {
		where := fmt.Sprintf("generators[%d]", i)
		if g == nil {
			continue // an empty generator: upstream finds no generator in it
		}
		gen, ok := g.(map[string]any)
		if !ok {
			return nil, invalidf("%s must be an object, not %s", where, kindOf(g))
		}
		_, err := e.transform(where, gen, s.template, nil, 0, func(tmpl, params map[string]any) bool {
			app, err := e.renderApp(where, tmpl, params)
			if err != nil {
				renderErr = err
				return false
			}
			apps = append(apps, app)
			return len(apps) <= e.opts.MaxApplications
		})
		if err == nil {
			err = renderErr
		}
		if err != nil {
			return nil, err
		}
		if len(apps) > e.opts.MaxApplications {
			break
		}
	}
	return apps, nil
}

// find records a problem once; a matrix meets the same unsupported child once per parameter set of its
// first child, and one problem says it all.
func (e *expander) find(check, severity, format string, args ...any) {
	f := Problem{Check: check, Severity: severity, Message: "ApplicationSet " + e.set + ": " + fmt.Sprintf(format, args...)}
	if e.seen[f] {
		return
	}
	e.seen[f] = true
	e.problems = append(e.problems, f)
}

// fail turns an error that stops the expansion into the problem that explains it, with no Application.
func (e *expander) fail(err error) Result {
	check, ours := CheckInvalid, false
	var f *fatal
	if errors.As(err, &f) {
		check, ours = f.check, f.ours
	}
	consequence := "Argo CD generates no Application from this ApplicationSet while this error stands"
	if ours {
		consequence = "capreport renders none of its Applications"
	}
	e.find(check, SeverityError, "%s; %s", err.Error(), consequence)
	return Result{Problems: e.problems}
}

func appName(app map[string]any) string {
	meta, _ := app["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name
}
