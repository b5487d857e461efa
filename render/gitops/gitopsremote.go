package gitops

import (
	"github.com/capreport/capreport/render/internal/chartspec"
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

// renderRemote renders a remote chart as a delivered source.
func (g *engine) renderRemote(name string, rc chartspec.Remote, hv chartspec.Values, over map[string]any, ns string) source.Out {
	spec := source.Spec{Path: rc.Label(), Type: object.SourceHelm, Name: name, Explicit: true, Helm: hv,
		Delivery: &source.Delivery{HelmOverFiles: over, Namespace: ns, Remote: &rc}}
	return g.render(spec)
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
