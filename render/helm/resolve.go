package helm

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/fetch"
	"github.com/capreport/capreport/render/internal/repofs"
)

// Dependencies are resolved as Helm's downloader builds them
// (pkg/downloader Manager.Build): with a Chart.lock, its digest must match
// Chart.yaml's dependencies (else Helm refuses: "the lock file is out of
// sync") and the locked versions are fetched; without one, each
// Chart.yaml version constraint is resolved against the repository. A
// dependency its condition or tags disable in the values being rendered
// is neither fetched nor reported, as Helm would leave it out.

// resolveDependencies adds to chrt the declared dependencies charts/ does
// not vendor: file:// ones from inside the root, remote ones when fetching
// is on. It returns the findings and the enabled dependencies still
// missing.
func (h *Renderer) resolveDependencies(chrt *chart.Chart, chartDir, chartRel string, vals map[string]any) ([]check.Finding, []*chart.Dependency) {
	missing := Unvendored(chrt)
	if len(missing) == 0 {
		return nil, nil
	}
	missing = EnabledDependencies(chrt, missing, vals)
	var findings, fs []check.Finding
	var remote []*chart.Dependency
	for _, d := range missing {
		if !strings.HasPrefix(d.Repository, "file://") {
			remote = append(remote, d)
			continue
		}
		if f := h.localDependency(chrt, chartDir, chartRel, d); f != nil {
			findings = append(findings, *f)
		}
	}
	if h.Fetch != nil && len(remote) > 0 {
		fs, remote = h.fetchDependencies(chrt, chartRel, remote)
		findings = append(findings, fs...)
	}
	if max := h.MaxDependencies; len(remote) > max {
		return append(findings, ManyMissingFinding(remote, chartRel, max)), remote
	}
	for _, d := range remote {
		findings = append(findings, MissingDependencyFinding(d, chartRel, h.Fetch != nil))
	}
	return findings, remote
}

// localDependency loads a file:// dependency that stays inside the root.
func (h *Renderer) localDependency(chrt *chart.Chart, chartDir, chartRel string, d *chart.Dependency) *check.Finding {
	rel := strings.TrimPrefix(d.Repository, "file://")
	dir := filepath.Clean(filepath.Join(chartDir, filepath.FromSlash(rel)))
	file := path.Join(chartRel, "Chart.yaml")
	if filepath.IsAbs(rel) || !h.Repo.Within(dir) {
		return &check.Finding{Check: check.PathEscape, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s is %s, outside the repository root; not followed", chartRel, DepName(d), d.Repository)}
	}
	if err := CheckTree(h.Repo, dir); err != nil {
		f := check.Finding{Check: repofs.CheckFor(err), Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s: %v", chartRel, DepName(d), d.Repository, err)}
		if f.Check == "" {
			f.Check, f.Severity = check.HelmDependencyMissing, check.SeverityWarning
		}
		return &f
	}
	sub, err := LoadDir(h.Repo, dir)
	if err != nil {
		return &check.Finding{Check: check.RenderFailed, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s does not load: %v", chartRel, DepName(d), d.Repository, h.tidy(err.Error()))}
	}
	chrt.AddDependency(sub)
	return nil
}

// fetchDependencies downloads the remote dependencies of one chart and
// adds them to it; it returns its findings and the ones still missing.
func (h *Renderer) fetchDependencies(chrt *chart.Chart, chartRel string, deps []*chart.Dependency) ([]check.Finding, []*chart.Dependency) {
	file := path.Join(chartRel, "Chart.yaml")
	if !LockFileFresh(chrt) {
		return []check.Finding{{Check: check.FetchDigest, Severity: check.SeverityError, Location: check.At(path.Join(chartRel, "Chart.lock"), 0),
			Message: fmt.Sprintf("chart %s: the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml), so Helm refuses to build it and nothing was fetched; run `helm dependency update` and commit Chart.lock", chartRel)}}, deps
	}
	if max := h.MaxDependencies; len(deps) > max {
		return []check.Finding{{Check: check.FetchLimit, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s declares %d dependencies to fetch, more than the %d capreport fetches for one chart; none was fetched", chartRel, len(deps), max)}}, deps
	}
	var findings []check.Finding
	var still []*chart.Dependency
	for _, d := range deps {
		ref, why := dependencyRef(chrt, d)
		if why != "" {
			findings = append(findings, check.Finding{Check: check.FetchFailed, Severity: check.SeverityWarning, Location: check.At(file, 0),
				Message: fmt.Sprintf("chart %s: dependency %s: %s", chartRel, DepName(d), why)})
			still = append(still, d)
			continue
		}
		sub, err := h.Fetch.Fetch(ref)
		if err != nil {
			id := fetch.Check(err)
			if id == "" {
				id = check.FetchFailed
			}
			findings = append(findings, check.Finding{Check: id, Severity: fetch.Severity(id), Location: check.At(file, 0),
				Cause:   fmt.Sprintf("dependency %s (%s) could not be fetched: %s", DepName(d), ref.String(), h.tidy(err.Error())),
				Message: fmt.Sprintf("chart %s: dependency %s: %s", chartRel, DepName(d), h.tidy(err.Error()))})
			still = append(still, d)
			continue
		}
		chrt.AddDependency(sub)
	}
	return findings, still
}

// dependencyRef is what to fetch for a dependency: the Chart.lock version
// when the chart has a lock, else its Chart.yaml constraint. A repository
// named by its `helm repo add` alias ("@name", "alias:name") means
// nothing without the user's Helm configuration.
func dependencyRef(chrt *chart.Chart, d *chart.Dependency) (fetch.Ref, string) {
	repo := d.Repository
	switch {
	case repo == "":
		return fetch.Ref{}, "it names no repository, so it must be vendored under charts/"
	case strings.HasPrefix(repo, "@") || strings.HasPrefix(repo, "alias:"):
		return fetch.Ref{}, fmt.Sprintf("its repository %q is a `helm repo add` name, which capreport cannot resolve; write the repository's URL", repo)
	}
	ref := fetch.Ref{RepoURL: repo, Name: d.Name, Version: d.Version}
	if chrt.Lock != nil {
		for _, l := range chrt.Lock.Dependencies {
			if l != nil && l.Name == d.Name && l.Repository == d.Repository {
				ref.Version = l.Version
				break
			}
		}
	}
	return ref, ""
}
