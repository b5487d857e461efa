package helm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/capreport/capreport/check"
)

// MissingDepError is a render that failed while dependencies were missing.
type MissingDepError struct {
	Err   error
	Names string // the dependencies, as messages name them
	Cause string // the first one's group
}

func (e *MissingDepError) Error() string {
	return fmt.Sprintf("%v (the chart lacks its dependency %s)", e.Err, e.Names)
}
func (e *MissingDepError) Unwrap() error { return e.Err }

// DepName names a dependency in messages, with its alias.
func DepName(d *chart.Dependency) string {
	if d.Alias != "" && d.Alias != d.Name {
		return fmt.Sprintf("%q (alias %q)", d.Name, d.Alias)
	}
	return fmt.Sprintf("%q", d.Name)
}

// MissingCause is the group of every chart that lacks one dependency.
func MissingCause(d *chart.Dependency) string {
	repo := d.Repository
	if repo == "" {
		repo = "no repository"
	}
	return fmt.Sprintf("dependency %s (%s, version %q) is not vendored under charts/ and was not fetched (run with --fetch, or helm dependency build and commit charts/)", DepName(d), repo, d.Version)
}

// Unvendored lists the declared dependencies with no chart loaded for them.
func Unvendored(chrt *chart.Chart) []*chart.Dependency {
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

// EnabledDependencies drops the dependencies that tags and conditions
// disable, evaluated as chartutil's processDependencyTags and
// processDependencyConditions do, on copies (the chart's own metadata is
// processed by Helm later).
func EnabledDependencies(chrt *chart.Chart, deps []*chart.Dependency, vals map[string]any) []*chart.Dependency {
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

// MissingDependencyFinding says that chartRel lacks d, and why it was not
// fetched.
func MissingDependencyFinding(d *chart.Dependency, chartRel string, fetching bool) check.Finding {
	repo := d.Repository
	if repo == "" {
		repo = "no repository"
	}
	why := "capreport never downloads dependencies without --fetch: run with --fetch, or `helm dependency build` and commit charts/"
	if fetching {
		why = "it could not be fetched (see the fetch finding)"
	}
	return check.Finding{Check: check.HelmDependencyMissing, Severity: check.SeverityWarning, Location: check.At(path.Join(chartRel, "Chart.yaml"), 0),
		Cause: MissingCause(d),
		Message: fmt.Sprintf("chart %s declares dependency %s (%s, version %q) but %s/charts does not vendor it; %s",
			chartRel, DepName(d), repo, d.Version, chartRel, why)}
}

// LockDigest is Helm's Chart.lock digest of Chart.yaml's dependencies and
// the locked ones (internal/resolver HashReq: SHA-256 of their JSON).
func LockDigest(req, lock []*chart.Dependency) (string, error) {
	data, err := json.Marshal([2][]*chart.Dependency{req, lock})
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:]), nil
}

// LockFileFresh checks a chart's Chart.lock against its Chart.yaml before
// Helm processes (and changes) the dependency list.
func LockFileFresh(chrt *chart.Chart) bool {
	if chrt.Lock == nil || chrt.Metadata == nil {
		return true
	}
	sum, err := LockDigest(chrt.Metadata.Dependencies, chrt.Lock.Dependencies)
	return err == nil && sum == chrt.Lock.Digest
}

// ManyMissingFinding is one finding for a chart that lacks more
// dependencies than are worth a finding each.
func ManyMissingFinding(deps []*chart.Dependency, chartRel string, max int) check.Finding {
	names := make([]string, 0, 10)
	for _, d := range deps[:10] {
		names = append(names, DepName(d))
	}
	return check.Finding{Check: check.HelmDependencyMissing, Severity: check.SeverityWarning, Location: check.At(path.Join(chartRel, "Chart.yaml"), 0),
		Message: fmt.Sprintf("chart %s declares %d dependencies that charts/ does not vendor (more than %d): %s and %d more",
			chartRel, len(deps), max, strings.Join(names, ", "), len(deps)-len(names))}
}
