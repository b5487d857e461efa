package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/repofs"
)

// Dependencies are resolved as Helm's downloader builds them
// (pkg/downloader Manager.Build): with a Chart.lock, its digest must match
// Chart.yaml's dependencies (else Helm refuses: "the lock file is out of
// sync") and the locked versions are fetched; without one, each
// Chart.yaml version constraint is resolved against the repository. A
// dependency its condition or tags disable in the values being rendered
// is neither fetched nor reported, as Helm would leave it out.

// missingDepError is a render that failed while dependencies were missing.
type missingDepError struct {
	err   error
	names string // the dependencies, as messages name them
	cause string // the first one's group
}

func (e *missingDepError) Error() string {
	return fmt.Sprintf("%v (the chart lacks its dependency %s)", e.err, e.names)
}
func (e *missingDepError) Unwrap() error { return e.err }

// depName names a dependency in messages, with its alias.
func depName(d *chart.Dependency) string {
	if d.Alias != "" && d.Alias != d.Name {
		return fmt.Sprintf("%q (alias %q)", d.Name, d.Alias)
	}
	return fmt.Sprintf("%q", d.Name)
}

// missingCause is the group of every chart that lacks one dependency.
func missingCause(d *chart.Dependency) string {
	repo := d.Repository
	if repo == "" {
		repo = "no repository"
	}
	return fmt.Sprintf("dependency %s (%s, version %q) is not vendored under charts/ and was not fetched (run with --fetch, or helm dependency build and commit charts/)", depName(d), repo, d.Version)
}

// resolveDependencies adds to chrt the declared dependencies charts/ does
// not vendor: file:// ones from inside the root, remote ones when fetching
// is on. It returns the findings and the enabled dependencies still
// missing.
func (rd *renderer) resolveDependencies(chrt *chart.Chart, chartDir, chartRel string, vals map[string]any) ([]check.Finding, []*chart.Dependency) {
	missing := unvendored(chrt)
	if len(missing) == 0 {
		return nil, nil
	}
	missing = enabledDependencies(chrt, missing, vals)
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
		return append(findings, manyMissingFinding(remote, chartRel, max)), remote
	}
	for _, d := range remote {
		findings = append(findings, missingDependencyFinding(d, chartRel, rd.fetchOn()))
	}
	return findings, remote
}

// unvendored lists the declared dependencies with no chart loaded for them.
func unvendored(chrt *chart.Chart) []*chart.Dependency {
	if chrt.Metadata == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range chrt.Dependencies() {
		have[d.Name()] = true
	}
	var out []*chart.Dependency
	for _, d := range chrt.Metadata.Dependencies {
		if d != nil && !have[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

// enabledDependencies drops the dependencies that tags and conditions
// disable, evaluated as chartutil's processDependencyTags and
// processDependencyConditions do, on copies (the chart's own metadata is
// processed by Helm later).
func enabledDependencies(chrt *chart.Chart, deps []*chart.Dependency, vals map[string]any) []*chart.Dependency {
	cvals, err := chartutil.CoalesceValues(chrt, vals)
	if err != nil {
		return deps
	}
	tags, _ := cvals.Table("tags")
	var out []*chart.Dependency
	for _, d := range deps {
		enabled := tagsEnable(d.Tags, tags)
		for _, c := range strings.Split(strings.TrimSpace(d.Condition), ",") {
			if c = strings.TrimSpace(c); c == "" {
				continue
			}
			if v, err := cvals.PathValue(c); err == nil {
				if b, ok := v.(bool); ok {
					enabled = b
					break
				}
			}
		}
		if enabled {
			out = append(out, d)
		}
	}
	return out
}

// tagsEnable: disabled only when some tag is false and none is true.
func tagsEnable(names []string, tags chartutil.Values) bool {
	hasTrue, hasFalse := false, false
	for _, k := range names {
		if b, ok := tags[k].(bool); ok {
			hasTrue, hasFalse = hasTrue || b, hasFalse || !b
		}
	}
	return hasTrue || !hasFalse
}

// localDependency loads a file:// dependency that stays inside the root.
func (rd *renderer) localDependency(chrt *chart.Chart, chartDir, chartRel string, d *chart.Dependency) *check.Finding {
	rel := strings.TrimPrefix(d.Repository, "file://")
	dir := filepath.Clean(filepath.Join(chartDir, filepath.FromSlash(rel)))
	file := path.Join(chartRel, "Chart.yaml")
	if filepath.IsAbs(rel) || !rd.repo.Within(dir) {
		return &check.Finding{Check: check.PathEscape, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s is %s, outside the repository root; not followed", chartRel, depName(d), d.Repository)}
	}
	if err := checkTree(rd.repo, dir); err != nil {
		f := check.Finding{Check: repofs.CheckFor(err), Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s: %v", chartRel, depName(d), d.Repository, err)}
		if f.Check == "" {
			f.Check, f.Severity = check.HelmDependencyMissing, check.SeverityWarning
		}
		return &f
	}
	sub, err := loadChartDir(rd.repo, dir)
	if err != nil {
		return &check.Finding{Check: check.RenderFailed, Severity: check.SeverityError, Location: check.At(file, 0),
			Message: fmt.Sprintf("chart %s: dependency %s at %s does not load: %v", chartRel, depName(d), d.Repository, rd.tidy(err.Error()))}
	}
	chrt.AddDependency(sub)
	return nil
}

func missingDependencyFinding(d *chart.Dependency, chartRel string, fetching bool) check.Finding {
	repo := d.Repository
	if repo == "" {
		repo = "no repository"
	}
	why := "capreport never downloads dependencies without --fetch: run with --fetch, or `helm dependency build` and commit charts/"
	if fetching {
		why = "it could not be fetched (see the fetch finding)"
	}
	return check.Finding{Check: check.HelmDependencyMissing, Severity: check.SeverityWarning, Location: check.At(path.Join(chartRel, "Chart.yaml"), 0),
		Cause: missingCause(d),
		Message: fmt.Sprintf("chart %s declares dependency %s (%s, version %q) but %s/charts does not vendor it; %s",
			chartRel, depName(d), repo, d.Version, chartRel, why)}
}

// lockDigest is Helm's Chart.lock digest of Chart.yaml's dependencies and
// the locked ones (internal/resolver HashReq: SHA-256 of their JSON).
func lockDigest(req, lock []*chart.Dependency) (string, error) {
	data, err := json.Marshal([2][]*chart.Dependency{req, lock})
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:]), nil
}

// lockFileFresh checks a chart's Chart.lock against its Chart.yaml before
// Helm processes (and changes) the dependency list.
func lockFileFresh(chrt *chart.Chart) bool {
	if chrt.Lock == nil || chrt.Metadata == nil {
		return true
	}
	sum, err := lockDigest(chrt.Metadata.Dependencies, chrt.Lock.Dependencies)
	return err == nil && sum == chrt.Lock.Digest
}

func (rd *renderer) maxDependencies() int {
	if rd.opts.Fetch.MaxDependencies > 0 {
		return rd.opts.Fetch.MaxDependencies
	}
	return DefaultMaxDependencies
}

// manyMissingFinding is one finding for a chart that lacks more
// dependencies than are worth a finding each.
func manyMissingFinding(deps []*chart.Dependency, chartRel string, max int) check.Finding {
	names := make([]string, 0, 10)
	for _, d := range deps[:10] {
		names = append(names, depName(d))
	}
	return check.Finding{Check: check.HelmDependencyMissing, Severity: check.SeverityWarning, Location: check.At(path.Join(chartRel, "Chart.yaml"), 0),
		Message: fmt.Sprintf("chart %s declares %d dependencies that charts/ does not vendor (more than %d): %s and %d more",
			chartRel, len(deps), max, strings.Join(names, ", "), len(deps)-len(names))}
}
