package config

import (
	"slices"

	"github.com/capreport/capreport/render"
)

// RenderOptions applies the configuration to render options built from
// the command line: every value set of every source becomes one
// render.SourceSpec (appended after base.Sources), and a kubeVersion set in
// the cluster section replaces base.KubeVersion. base.Helm (the -f/--set,
// --release-name and --namespace flags) is kept: the renderer uses it for
// discovered charts and as the fallback release name and namespace of
// these sources.
func (c *Config) RenderOptions(base render.Options) render.Options {
	out := base
	if c == nil {
		return out
	}
	out.Sources = append([]render.SourceSpec(nil), base.Sources...)
	for _, s := range c.Sources {
		for _, vs := range s.ValueSets {
			out.Sources = append(out.Sources, render.SourceSpec{
				Path: s.Path,
				Type: render.SourceType(s.Type),
				Name: vs.Name,
				Helm: render.HelmValues{
					ValuesFiles: append([]string(nil), vs.Values...),
					Set:         append([]string(nil), vs.Set...),
					ReleaseName: vs.ReleaseName,
					Namespace:   vs.Namespace,
				},
			})
		}
	}
	out.RepoURLs = append(append([]string(nil), base.RepoURLs...), c.RepositoryURLs...)
	out.SourceMaps = slices.Clone(base.SourceMaps)
	for _, m := range c.RepositorySources {
		out.SourceMaps = append(out.SourceMaps, render.SourceMap{Name: m.Name, Path: m.Path})
	}
	out.APIVersions = append(append([]string(nil), base.APIVersions...), c.Cluster.APIVersions...)
	if c.Cluster.KubeVersion.Set {
		out.KubeVersion = c.Cluster.KubeVersion.Value
	}
	// c.Fetch is not applied: a repository's file cannot turn fetching on.
	return out
}
