package render

import (
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fetch"
)

// fetchDependencies downloads the remote dependencies of one chart and
// adds them to it; it returns its findings and the ones still missing.
func (rd *renderer) fetchDependencies(chrt *chart.Chart, chartRel string, deps []*chart.Dependency) ([]check.Finding, []*chart.Dependency) {
	file := path.Join(chartRel, "Chart.yaml")
	if !helm.LockFileFresh(chrt) {
		return []check.Finding{{Check: check.FetchDigest, Severity: check.SeverityError, Location: check.At(path.Join(chartRel, "Chart.lock"), 0),
			Message: fmt.Sprintf("chart %s: the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml), so Helm refuses to build it and nothing was fetched; run `helm dependency update` and commit Chart.lock", chartRel)}}, deps
	}
	if max := rd.opts.Fetch.MaxDependencies; len(deps) > max {
		return []check.Finding{{Check: check.FetchLimit, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s declares %d dependencies to fetch, more than the %d capreport fetches for one chart; none was fetched", chartRel, len(deps), max)}}, deps
	}
	var findings []check.Finding
	var still []*chart.Dependency
	for _, d := range deps {
		ref, why := dependencyRef(chrt, d)
		if why != "" {
			findings = append(findings, check.Finding{Check: check.FetchFailed, Severity: check.SeverityWarning, Location: check.At(file, 0),
				Message: fmt.Sprintf("chart %s: dependency %s: %s", chartRel, helm.DepName(d), why)})
			still = append(still, d)
			continue
		}
		sub, err := rd.fetchDependency(ref)
		if err != nil {
			id := fetchCheck(err)
			if id == "" {
				id = check.FetchFailed
			}
			findings = append(findings, check.Finding{Check: id, Severity: fetchSeverity(id), Location: check.At(file, 0),
				Cause:   fmt.Sprintf("dependency %s (%s) could not be fetched: %s", helm.DepName(d), ref.String(), rd.tidy(err.Error())),
				Message: fmt.Sprintf("chart %s: dependency %s: %s", chartRel, helm.DepName(d), rd.tidy(err.Error()))})
			still = append(still, d)
			continue
		}
		chrt.AddDependency(sub)
	}
	return findings, still
}

func (rd *renderer) fetchDependency(ref fetch.Ref) (*chart.Chart, error) {
	got, err := rd.fetcher().Fetch(ref)
	if err != nil {
		return nil, err
	}
	return fetch.LoadChart(ref.String(), got.Data, rd.limits())
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
