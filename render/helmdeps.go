package render

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
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
func (rd *renderer) resolveDependencies(chrt *chart.Chart, chartDir, chartRel string, vals map[string]any) ([]check.Finding, []*chart.Dependency) {
	missing := helm.Unvendored(chrt)
	if len(missing) == 0 {
		return nil, nil
	}
	missing = helm.EnabledDependencies(chrt, missing, vals)
	var findings, fs []check.Finding
	var remote []*chart.Dependency
	for _, d := range missing {
		if !strings.HasPrefix(d.Repository, "file://") {
			remote = append(remote, d)
			continue
		}
		if f := rd.localDependency(chrt, chartDir, chartRel, d); f != nil {
			findings = append(findings, *f)
		}
	}
	if rd.fetchOn() && len(remote) > 0 {
		fs, remote = rd.fetchDependencies(chrt, chartRel, remote)
		findings = append(findings, fs...)
	}
	if max := rd.maxDependencies(); len(remote) > max {
		return append(findings, helm.ManyMissingFinding(remote, chartRel, max)), remote
	}
	for _, d := range remote {
		findings = append(findings, helm.MissingDependencyFinding(d, chartRel, rd.fetchOn()))
	}
	return findings, remote
}

// localDependency loads a file:// dependency that stays inside the root.
func (rd *renderer) localDependency(chrt *chart.Chart, chartDir, chartRel string, d *chart.Dependency) *check.Finding {
	rel := strings.TrimPrefix(d.Repository, "file://")
	dir := filepath.Clean(filepath.Join(chartDir, filepath.FromSlash(rel)))
	file := path.Join(chartRel, "Chart.yaml")
	if filepath.IsAbs(rel) || !rd.repo.Within(dir) {
		return &check.Finding{Check: check.PathEscape, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s is %s, outside the repository root; not followed", chartRel, helm.DepName(d), d.Repository)}
	}
	if err := checkTree(rd.repo, dir); err != nil {
		f := check.Finding{Check: repofs.CheckFor(err), Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s: %v", chartRel, helm.DepName(d), d.Repository, err)}
		if f.Check == "" {
			f.Check, f.Severity = check.HelmDependencyMissing, check.SeverityWarning
		}
		return &f
	}
	sub, err := helm.LoadDir(rd.repo, dir)
	if err != nil {
		return &check.Finding{Check: check.RenderFailed, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s does not load: %v", chartRel, helm.DepName(d), d.Repository, rd.tidy(err.Error()))}
	}
	chrt.AddDependency(sub)
	return nil
}

func (rd *renderer) maxDependencies() int {
	if rd.opts.Fetch.MaxDependencies > 0 {
		return rd.opts.Fetch.MaxDependencies
	}
	return DefaultMaxDependencies
}
