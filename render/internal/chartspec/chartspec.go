// Package chartspec is what names one chart render besides its chart: the
// values `helm template` takes and, for a chart in a chart repository or
// OCI registry, where to fetch it. render/helm renders with them and names
// them as its own (helm.Values, helm.Remote); the GitOps engine and the
// spec of a source (render/internal/source) build them without linking
// Helm's engine.
package chartspec

import "github.com/capreport/capreport/render/internal/fetch"

// Values are a chart's values as `helm template` takes them.
type Values struct {
	// ValuesFiles are merged in order, like repeated -f flags. In a
	// source's spec (from the repository, untrusted) a path is looked up
	// in the chart directory, then in the scanned root, and must stay
	// inside the root. On the command line (trusted) a path may be
	// absolute or relative to the working directory, else it is looked up
	// like a spec's.
	ValuesFiles []string
	// Set holds --set style "a.b=c,d=e" strings, applied after ValuesFiles.
	Set []string
	// ReleaseName and Namespace default to the command line's, then to
	// render's DefaultReleaseName and DefaultNamespace.
	ReleaseName string
	Namespace   string
}

// A Remote is a chart in a chart repository or OCI registry that a
// GitOps object or a helmCharts entry names (exported fields: it crosses
// to the workers with gob).
type Remote struct {
	RepoURL, Name, Version, Tag, Digest string
	// ValuesFiles are files inside the chart merged over its values.yaml
	// (Flux valuesFiles, Argo CD valueFiles of a repository chart).
	ValuesFiles []string
}

// Ref is what the fetcher downloads for c.
func (c Remote) Ref() fetch.Ref {
	return fetch.Ref{RepoURL: c.RepoURL, Name: c.Name, Version: c.Version, Tag: c.Tag, Digest: c.Digest}
}

// Label names a remote chart in source paths and origins.
func (c Remote) Label() string {
	return c.Ref().String()
}

// MergeMaps deep-merges b onto a (b wins), like Helm's -f merging.
func MergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bv, ok := v.(map[string]any); ok {
			if av, ok := out[k].(map[string]any); ok {
				out[k] = MergeMaps(av, bv)
				continue
			}
		}
		out[k] = v
	}
	return out
}
