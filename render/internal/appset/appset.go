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
