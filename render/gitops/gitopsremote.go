package gitops

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Remote charts of GitOps objects, followed only when fetching is on.
// Flux: source-controller resolves a HelmRepository (type default: the
// index.yaml at spec.url; type oci: <spec.url>/<chart> tags), a HelmChart
// (spec.chart, spec.version, spec.sourceRef) and an OCIRepository
// (spec.ref: digest, else semver, else tag, default tag "latest");
// helm-controller renders the artifact with the release's values.
// Argo CD's repo-server pulls chart from repoURL at targetRevision (a
// version or a constraint); a repoURL without a scheme is an OCI registry.

// expandRemoteHelmRelease follows a HelmRelease whose chart is remote; ok
// is false when its chart is in this repository (or fetching is off).
func (g *engine) expandRemoteHelmRelease(o *object.Object) (*expansion, bool) {
	if !g.fetch {
		return nil, false
	}
	rc, why, miss, ok := g.fluxRemoteChart(o)
	if !ok {
		return nil, false
	}
	e := &expansion{lookupMiss: miss}
	if why != "" {
		e.findings = append(e.findings, notFollowed(o, why))
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
	e.outs = append(e.outs, out)
	return e, true
}

// renderRemote renders a remote chart as a delivered source.
func (g *engine) renderRemote(name string, rc helm.Remote, hv helm.Values, over map[string]any, ns string) source.Out {
	spec := source.Spec{Path: rc.Label(), Type: object.SourceHelm, Name: name, Explicit: true, Helm: hv,
		Delivery: &source.Delivery{HelmOverFiles: over, Namespace: ns, Remote: &rc}}
	return g.render(spec)
}

// fluxRemoteChart finds the remote chart of a HelmRelease: ok is false
// for a chart in a GitRepository; why is set when it cannot be followed.
func (g *engine) fluxRemoteChart(o *object.Object) (rc helm.Remote, why string, miss, ok bool) {
	chartSpec := mapAt(o.Doc, "spec", "chart", "spec")
	if ref := mapAt(o.Doc, "spec", "chartRef"); ref != nil {
		kind, name, ns := str(ref, "kind"), str(ref, "name"), str(ref, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		switch kind {
		case "OCIRepository":
			src := g.lookup("source.toolkit.fluxcd.io", "OCIRepository", ns, name)
			if src == nil {
				return rc, fmt.Sprintf("spec.chartRef OCIRepository %s/%s is not among the rendered objects", ns, name), true, true
			}
			return ociRepositoryChart(src), "", false, true
		case "HelmChart":
			hc := g.lookup("source.toolkit.fluxcd.io", "HelmChart", ns, name)
			if hc == nil {
				return rc, "", false, false // the offline path reports it
			}
			chartSpec = helm.MergeMaps(mapAt(hc.Doc, "spec"), nil)
			if str(chartSpec, "sourceRef", "namespace") == "" {
				chartSpec = helm.MergeMaps(chartSpec, map[string]any{"sourceRef": map[string]any{"namespace": ns}})
			}
		default:
			return rc, "", false, false
		}
	}
	src := mapAt(chartSpec, "sourceRef")
	if str(src, "kind") != "HelmRepository" {
		return rc, "", false, false
	}
	ns := str(src, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	repo := g.lookup("source.toolkit.fluxcd.io", "HelmRepository", ns, str(src, "name"))
	if repo == nil {
		return rc, fmt.Sprintf("HelmRepository %s/%s is not among the rendered objects, so its URL is unknown", ns, str(src, "name")), true, true
	}
	rc = helm.Remote{RepoURL: str(repo.Doc, "spec", "url"), Name: str(chartSpec, "chart"), Version: str(chartSpec, "version"),
		ValuesFiles: yamldoc.StrList(chartSpec["valuesFiles"])}
	if f := str(chartSpec, "valuesFile"); f != "" && len(rc.ValuesFiles) == 0 {
		rc.ValuesFiles = []string{f}
	}
	if t := str(repo.Doc, "spec", "type"); t == "oci" && !strings.HasPrefix(rc.RepoURL, "oci://") {
		return rc, fmt.Sprintf("HelmRepository %s/%s is of type oci but its URL %q is not oci://", ns, repo.Name, rc.RepoURL), false, true
	}
	return rc, "", false, true
}

// ociRepositoryChart reads an OCIRepository's URL and reference with
// source-controller's precedence: digest, then semver, then tag
// ("latest" when none is given).
func ociRepositoryChart(src *object.Object) helm.Remote {
	ref := mapAt(src.Doc, "spec", "ref")
	rc := helm.Remote{RepoURL: str(src.Doc, "spec", "url")}
	switch {
	case str(ref, "digest") != "":
		rc.Digest = str(ref, "digest")
	case str(ref, "semver") != "":
		rc.Version = str(ref, "semver")
	case str(ref, "tag") != "":
		rc.Tag = str(ref, "tag")
	default:
		rc.Tag = "latest"
	}
	return rc
}

// argoRemoteChart renders an Application source with chart + repoURL +
// targetRevision, as the repo-server pulls and templates it.
func (g *engine) argoRemoteChart(o *object.Object, s map[string]any, i, n int, refs map[string]map[string]any, destNS string) (*source.Out, []check.Finding) {
	repoURL := str(s, "repoURL")
	if !strings.Contains(repoURL, "://") {
		repoURL = "oci://" + repoURL
	}
	rc := helm.Remote{RepoURL: repoURL, Name: str(s, "chart"), Version: str(s, "targetRevision")}
	s = helm.MergeMaps(s, nil)
	if h := mapAt(s, "helm"); h != nil {
		var kept []any
		for _, f := range yamldoc.StrList(h["valueFiles"]) {
			if strings.HasPrefix(f, "$") || strings.Contains(f, "://") {
				kept = append(kept, f)
			} else {
				rc.ValuesFiles = append(rc.ValuesFiles, f) // inside the chart
			}
		}
		h["valueFiles"] = kept
	}
	name := object.Ref(o)
	if n > 1 {
		name = fmt.Sprintf("%s#%d", name, i)
	}
	spec := source.Spec{Path: rc.Label(), Type: object.SourceHelm, Name: name, Explicit: true,
		Delivery: &source.Delivery{Namespace: destNS, Remote: &rc}}
	findings := g.argoHelm(o, s, "", refs, destNS, &spec)
	out := g.render(spec)
	out.Result.Findings = append(out.Result.Findings, findings...)
	return &out, nil
}
