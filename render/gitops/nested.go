package gitops

import (
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// A Flux Kustomization written beneath another's path (a child under the
// cluster-apps root) is asked, before anything is followed, what it
// covers, so that the sources it delivers are not rendered on their own.
// Its standalone copy is not what the cluster applies (the parent patches
// and substitutes it), and the parent's delivery expands the applied copy
// anyway, so building the standalone copy would be a build thrown away:
// its coverage is read from a scan of the kustomization Flux generates for
// it instead, which lists the same directories and files the build would
// read. If the applied copy then fails to build, what it covered is
// withheld after all (withholdUnexpanded).

// nestedSources marks the sources beneath the path of a Flux Kustomization
// of another source that does not manage itself.
func (g *engine) nestedSources(outs []source.Out) map[int]bool {
	paths := map[string]int{}
	for i := range outs {
		for j := range outs[i].Objects {
			o := &outs[i].Objects[j]
			if kindOfGitOps(o) != fluxKustomization || appliesItsOwnDir(o) {
				continue
			}
			if rel, ok := g.cheapPath(o); ok {
				paths[rel] = i
			}
		}
	}
	nested := map[int]bool{}
	for i, o := range outs {
		for p := o.Result.Path; ; p = path.Dir(p) {
			if from, ok := paths[p]; ok && from != i {
				nested[i] = true
				break
			}
			if p == "." || p == "/" || p == "" {
				break
			}
		}
	}
	return nested
}

// cheapPath is a Flux Kustomization's path in this repository, without
// building it; false when its source is not followed or its path is bad.
func (g *engine) cheapPath(o *object.Object) (string, bool) {
	root, local, _, _ := g.flux.KustomizationSource(o, yamldoc.MapAt(o.Doc, "spec", "sourceRef"))
	if !local {
		return "", false
	}
	rel, bad := sourceroot.Path(g.repo, path.Join(root.Prefix, flux.CleanPath(yamldoc.Str(o.Doc, "spec", "path"))))
	return rel, bad == ""
}

// scannedCoverage is what a nested Flux Kustomization covers, read from a
// scan of its generated kustomization; false when o is not one, or the
// scan cannot tell (the build is then made, as for any other object).
func (g *engine) scannedCoverage(o *object.Object, nested bool) (map[string]bool, bool) {
	if !nested || kindOfGitOps(o) != fluxKustomization {
		return nil, false
	}
	rel, ok := g.cheapPath(o)
	if !ok {
		return nil, false
	}
	spec, err := g.flux.BuildSpec(o, rel)
	if err != nil {
		return nil, false
	}
	sc, _, err := g.src.ScanKustomize(spec, g.repo.Abs(rel))
	if err != nil {
		return nil, false
	}
	cov := map[string]bool{}
	for _, p := range sc.CoveredPaths() {
		cov[filepath.ToSlash(p)] = true
	}
	return cov, true
}

// withholdFailedDeliveries withholds, after all, the sources the plan
// found delivered by a GitOps object whose delivered copy then failed to
// build (stash holds them as rendered on their own).
func (g *engine) withholdFailedDeliveries(outs []source.Out, suppressed map[int]string, stash map[int]source.Out) {
	for _, i := range slices.Sorted(maps.Keys(suppressed)) { // in source order: the report's order
		if by := suppressed[i]; g.failedInRun[by] {
			outs[i] = stash[i]
			g.withhold(&outs[i], by)
		}
	}
}
