package flux

import (
	"crypto/sha256"
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/valuesfrom"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// A remote chart, followed only when fetching is on: source-controller
// resolves a HelmRepository (type default: the index.yaml at spec.url;
// type oci: <spec.url>/<chart> tags), a HelmChart (spec.chart,
// spec.version, spec.sourceRef) and an OCIRepository (spec.ref: digest,
// else semver, else tag, default tag "latest"); helm-controller renders
// the artifact with the release's values.

// HelmRelease renders the chart of a HelmRelease as helm-controller
// installs it: chart from spec.chart.spec (a GitRepository path) or
// spec.chartRef (a HelmChart), values from valuesFrom then spec.values,
// release name and namespace as Flux derives them.
func (g *Run) HelmRelease(o *object.Object) *Expansion {
	if e, ok := g.expandRemoteHelmRelease(o); ok {
		return e // a chart in a Helm repository or OCI registry (--fetch)
	}
	e := &Expansion{}
	chartSpec, root, why, miss := g.helmReleaseChart(o)
	e.LookupMiss = miss
	if why != "" {
		e.Findings = append(e.Findings, object.NotFollowed(o, why))
		return e
	}
	rel, bad := sourceroot.Path(g.repo, path.Join(root.Prefix, CleanPath(yamldoc.Str(chartSpec, "chart"))))
	if bad != "" {
		e.Findings = append(e.Findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "chart "+bad))
		return e
	}
	hv, vals, fs, partial := g.releaseInputs(o, e)
	for _, f := range yamldoc.StrList(chartSpec["valuesFiles"]) {
		hv.ValuesFiles = append(hv.ValuesFiles, path.Join(rel, f))
	}
	if f := yamldoc.Str(chartSpec, "valuesFile"); f != "" && len(hv.ValuesFiles) == 0 {
		hv.ValuesFiles = []string{path.Join(rel, f)}
	}
	out := g.renderRelease(o, rel, hv, vals, fs, partial)
	if pr, _ := yamldoc.Dig(o.Doc, "spec", "postRenderers").([]any); len(pr) > 0 {
		out.Result.Findings = append(out.Result.Findings, object.Finding(o, check.GitOpsNotFollowed, check.SeverityWarning,
			"spec.postRenderers are not applied: the objects are reported as the chart renders them"))
	}
	out.Result.Repository, out.Via = root.Note, root.Via
	e.Outs = append(e.Outs, out)
	return e
}

// renderRelease renders a chart as a release installs it: hv's release
// name, namespace and value files, vals over them; fs are the release's
// findings, and partial marks a render that left a values reference out.
func (g *Run) renderRelease(o *object.Object, rel string, hv chartspec.Values, vals map[string]any, fs []check.Finding, partial bool) source.Out {
	spec := source.Spec{Path: rel, Type: object.SourceHelm, Name: object.Ref(o), Explicit: true, Helm: hv,
		Delivery: &source.Delivery{HelmOverFiles: vals, Namespace: hv.Namespace}}
	out := g.eng.Render(spec)
	out.Result.Findings = append(out.Result.Findings, fs...)
	if partial {
		out.Result.Partial = true
		for i := range out.Objects {
			out.Objects[i].Origin.Partial = true
		}
	}
	return out
}

// helmReleaseChart returns the chart template of a HelmRelease (chart,
// version, sourceRef, valuesFiles), resolving spec.chartRef to a HelmChart;
// why is set when the chart is not in this repository.
func (g *Run) helmReleaseChart(o *object.Object) (map[string]any, sourceroot.Root, string, bool) {
	chartSpec := yamldoc.MapAt(o.Doc, "spec", "chart", "spec")
	if ref := yamldoc.MapAt(o.Doc, "spec", "chartRef"); ref != nil {
		kind, name, ns := yamldoc.Str(ref, "kind"), yamldoc.Str(ref, "name"), yamldoc.Str(ref, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		if m, ok := g.mappedFlux(kind, ns, name); ok && kind == "OCIRepository" {
			return map[string]any{"chart": "."}, m, "", false // the artifact is the chart
		}
		if kind == "OCIRepository" { // expandRemoteHelmRelease's, with --fetch
			return nil, sourceroot.Root{}, fmt.Sprintf("spec.chartRef is OCIRepository %s/%s, a chart in a registry, downloaded only with --fetch", ns, name), false
		}
		if kind != "HelmChart" {
			return nil, sourceroot.Root{}, fmt.Sprintf("spec.chartRef is %s %s/%s, a chart in a registry capreport does not fetch", kind, ns, name), false
		}
		hc := g.eng.Lookup("source.toolkit.fluxcd.io", "HelmChart", ns, name)
		if hc == nil {
			return nil, sourceroot.Root{}, fmt.Sprintf("spec.chartRef HelmChart %s/%s is not among the rendered objects", ns, name), true
		}
		chartSpec = yamldoc.MapAt(hc.Doc, "spec")
		if chartSpec != nil && yamldoc.Str(chartSpec, "sourceRef", "namespace") == "" {
			chartSpec = chartspec.MergeMaps(chartSpec, map[string]any{"sourceRef": map[string]any{"namespace": ns}})
		}
	}
	if chartSpec == nil {
		return nil, sourceroot.Root{}, "it names no chart (spec.chart.spec or spec.chartRef)", false
	}
	src := yamldoc.MapAt(chartSpec, "sourceRef")
	if k := yamldoc.Str(src, "kind"); k == "HelmRepository" || k == "Bucket" && !g.isMapped(o, src) {
		ns := yamldoc.Str(src, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		where := ""
		if repo := g.eng.Lookup("source.toolkit.fluxcd.io", k, ns, yamldoc.Str(src, "name")); repo != nil {
			where = " at " + yamldoc.Str(repo.Doc, "spec", "url")
		}
		version := yamldoc.Str(chartSpec, "version")
		if version == "" {
			version = "*"
		}
		how := "which capreport does not fetch"
		if k == "HelmRepository" { // expandRemoteHelmRelease's, with --fetch
			how = "downloaded only with --fetch"
		}
		return nil, sourceroot.Root{}, fmt.Sprintf("chart %q version %q comes from %s %s/%s%s, %s", yamldoc.Str(chartSpec, "chart"), version, k, ns, yamldoc.Str(src, "name"), where, how), false
	}
	root, local, why, miss := g.localGitSource(o, src)
	if !local {
		return nil, sourceroot.Root{}, why, miss
	}
	return chartSpec, root, "", false
}

// isMapped reports whether --source maps the source ref of o.
func (g *Run) isMapped(o *object.Object, ref map[string]any) bool {
	ns := yamldoc.Str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	_, ok := g.mappedFlux(yamldoc.Str(ref, "kind"), ns, yamldoc.Str(ref, "name"))
	return ok
}

// releaseInputs are what helm-controller renders a HelmRelease's chart
// with, wherever the chart comes from: the release name, the target
// namespace (else the release's own) and the composed values. A missing
// reference marks e.
func (g *Run) releaseInputs(o *object.Object, e *Expansion) (chartspec.Values, map[string]any, []check.Finding, bool) {
	vals, fs, partial, miss := g.helmReleaseValues(o)
	e.LookupMiss = e.LookupMiss || miss
	ns := yamldoc.Str(o.Doc, "spec", "targetNamespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	return chartspec.Values{ReleaseName: fluxReleaseName(o), Namespace: ns}, vals, fs, partial
}

// helmReleaseValues merges valuesFrom in order (a whole values document,
// or one value at targetPath), then spec.values over them, as
// helm-controller's ChartValuesFromReferences does. A missing reference is
// skipped when optional, else a finding and the render is partial.
func (g *Run) helmReleaseValues(o *object.Object) (map[string]any, []check.Finding, bool, bool) {
	result := map[string]any{}
	var findings []check.Finding
	partial, miss := false, false
	unread := 0
	refs, _ := yamldoc.Dig(o.Doc, "spec", "valuesFrom").([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := yamldoc.Str(ref, "kind"), yamldoc.Str(ref, "name")
		key := yamldoc.Str(ref, "valuesKey")
		if key == "" {
			key = "values.yaml"
		}
		optional, _ := ref["optional"].(bool)
		data, found := g.configData(kind, objNamespace(o), name)
		value, hasKey := data[key]
		if !found || !hasKey {
			miss = miss || !found
			if optional {
				continue
			}
			what := g.notReadable(kind, objNamespace(o), name)
			if found {
				what = fmt.Sprintf("has no key %q", key)
			}
			partial = true
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityWarning,
				fmt.Sprintf("valuesFrom %s %s/%s %s; rendered without those values", kind, objNamespace(o), name, what)))
			continue
		}
		if g.valuesFrom.Spend(len(value)) != nil {
			unread++
			continue
		}
		if tp := yamldoc.Str(ref, "targetPath"); tp != "" {
			if err := replacePathValue(result, tp, value); err != nil {
				findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError,
					fmt.Sprintf("valuesFrom %s %s targetPath %q: %v", kind, name, tp, err)))
			}
			continue
		}
		vals, err := g.valuesFrom.Document(value)
		if err != nil {
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError,
				fmt.Sprintf("valuesFrom %s %s key %q is not a YAML mapping: %v", kind, name, key, err)))
			continue
		}
		result = chartspec.MergeMaps(result, vals)
	}
	if unread > 0 {
		partial = true
		findings = append(findings, valuesfrom.BudgetFinding(o, unread))
	}
	if v := yamldoc.MapAt(o.Doc, "spec", "values"); v != nil {
		result = chartspec.MergeMaps(result, v)
	}
	return result, findings, partial, miss
}

// replacePathValue sets the value at a dot path with Helm's --set parser;
// a quoted value is taken as a string (helm-controller ReplacePathValue).
func replacePathValue(values map[string]any, p, value string) error {
	quoted := (strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'")) ||
		(strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`))
	if quoted {
		return strvals.ParseIntoString(p+"="+strings.Trim(value, `'"`), values)
	}
	return strvals.ParseInto(p+"="+value, values)
}

// fluxReleaseName is spec.releaseName, else [targetNamespace-]name,
// shortened past Helm's 53 characters as helm-controller does (the first
// 40 characters, a dash, and 12 hex digits of the full name's SHA-256).
func fluxReleaseName(o *object.Object) string {
	if n := yamldoc.Str(o.Doc, "spec", "releaseName"); n != "" {
		return n
	}
	name := o.Name
	if tn := yamldoc.Str(o.Doc, "spec", "targetNamespace"); tn != "" {
		name = tn + "-" + name
	}
	if len(name) <= 53 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:40] + "-" + fmt.Sprintf("%x", sum)[:12]
}

// expandRemoteHelmRelease follows a HelmRelease whose chart is remote; ok
// is false when its chart is in this repository (or fetching is off).
func (g *Run) expandRemoteHelmRelease(o *object.Object) (*Expansion, bool) {
	if !g.fetch {
		return nil, false
	}
	rc, why, miss, ok := g.fluxRemoteChart(o)
	if !ok {
		return nil, false
	}
	e := &Expansion{LookupMiss: miss}
	if why != "" {
		e.Findings = append(e.Findings, object.NotFollowed(o, why))
		return e, true
	}
	hv, vals, fs, partial := g.releaseInputs(o, e)
	out := g.renderRemote(object.Ref(o), rc, hv, vals, hv.Namespace)
	out.Result.Findings = append(out.Result.Findings, fs...)
	if partial {
		out.Result.Partial = true
		for i := range out.Objects {
			out.Objects[i].Origin.Partial = true
		}
	}
	e.Outs = append(e.Outs, out)
	return e, true
}

// fluxRemoteChart finds the remote chart of a HelmRelease: ok is false
// for a chart in a GitRepository; why is set when it cannot be followed.
func (g *Run) fluxRemoteChart(o *object.Object) (rc chartspec.Remote, why string, miss, ok bool) {
	chartSpec := yamldoc.MapAt(o.Doc, "spec", "chart", "spec")
	if ref := yamldoc.MapAt(o.Doc, "spec", "chartRef"); ref != nil {
		kind, name, ns := yamldoc.Str(ref, "kind"), yamldoc.Str(ref, "name"), yamldoc.Str(ref, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		switch kind {
		case "OCIRepository":
			src := g.eng.Lookup("source.toolkit.fluxcd.io", "OCIRepository", ns, name)
			if src == nil {
				return rc, fmt.Sprintf("spec.chartRef OCIRepository %s/%s is not among the rendered objects", ns, name), true, true
			}
			return ociRepositoryChart(src), "", false, true
		case "HelmChart":
			hc := g.eng.Lookup("source.toolkit.fluxcd.io", "HelmChart", ns, name)
			if hc == nil {
				return rc, "", false, false // the offline path reports it
			}
			chartSpec = chartspec.MergeMaps(yamldoc.MapAt(hc.Doc, "spec"), nil)
			if yamldoc.Str(chartSpec, "sourceRef", "namespace") == "" {
				chartSpec = chartspec.MergeMaps(chartSpec, map[string]any{"sourceRef": map[string]any{"namespace": ns}})
			}
		default:
			return rc, "", false, false
		}
	}
	src := yamldoc.MapAt(chartSpec, "sourceRef")
	if yamldoc.Str(src, "kind") != "HelmRepository" {
		return rc, "", false, false
	}
	ns := yamldoc.Str(src, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	repo := g.eng.Lookup("source.toolkit.fluxcd.io", "HelmRepository", ns, yamldoc.Str(src, "name"))
	if repo == nil {
		return rc, fmt.Sprintf("HelmRepository %s/%s is not among the rendered objects, so its URL is unknown", ns, yamldoc.Str(src, "name")), true, true
	}
	rc = chartspec.Remote{RepoURL: yamldoc.Str(repo.Doc, "spec", "url"), Name: yamldoc.Str(chartSpec, "chart"), Version: yamldoc.Str(chartSpec, "version"),
		ValuesFiles: yamldoc.StrList(chartSpec["valuesFiles"])}
	if f := yamldoc.Str(chartSpec, "valuesFile"); f != "" && len(rc.ValuesFiles) == 0 {
		rc.ValuesFiles = []string{f}
	}
	if t := yamldoc.Str(repo.Doc, "spec", "type"); t == "oci" && !strings.HasPrefix(rc.RepoURL, "oci://") {
		return rc, fmt.Sprintf("HelmRepository %s/%s is of type oci but its URL %q is not oci://", ns, repo.Name, rc.RepoURL), false, true
	}
	return rc, "", false, true
}

// renderRemote renders a remote chart as a delivered source.
func (g *Run) renderRemote(name string, rc chartspec.Remote, hv chartspec.Values, over map[string]any, ns string) source.Out {
	spec := source.Spec{Path: rc.Label(), Type: object.SourceHelm, Name: name, Explicit: true, Helm: hv,
		Delivery: &source.Delivery{HelmOverFiles: over, Namespace: ns, Remote: &rc}}
	return g.eng.Render(spec)
}

// ociRepositoryChart reads an OCIRepository's URL and reference with
// source-controller's precedence: digest, then semver, then tag
// ("latest" when none is given).
func ociRepositoryChart(src *object.Object) chartspec.Remote {
	ref := yamldoc.MapAt(src.Doc, "spec", "ref")
	rc := chartspec.Remote{RepoURL: yamldoc.Str(src.Doc, "spec", "url")}
	switch {
	case yamldoc.Str(ref, "digest") != "":
		rc.Digest = yamldoc.Str(ref, "digest")
	case yamldoc.Str(ref, "semver") != "":
		rc.Version = yamldoc.Str(ref, "semver")
	case yamldoc.Str(ref, "tag") != "":
		rc.Tag = yamldoc.Str(ref, "tag")
	default:
		rc.Tag = "latest"
	}
	return rc
}
