package render

import "github.com/capreport/capreport/check"

// discoverSources is what Render discovers under root before it renders
// anything: the sources (Helm charts, Kustomize roots, plain manifests,
// with explicit opts.Sources replacing discovery under their paths) and
// the findings of what discovery refused. It opens the root as Render
// does, so the tests see the sources Render will render.
func discoverSources(root string, opts Options) ([]SourceSpec, []check.Finding, error) {
	rd, err := newRenderer(root, opts.withDefaults())
	if err != nil {
		return nil, nil, err
	}
	specs, findings := rd.discover()
	return specs, findings, nil
}
