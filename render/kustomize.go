package render

import (
	"slices"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/kustomize"
)

// renderKustomizeSource builds a kustomization with krusty in-process. A
// remote, escaping or missing entry of a list field is left out of the
// build (an in-memory copy of its kustomization) and the render is partial.
//
// krusty traces each object to its file only when asked (buildMetadata:
// originAnnotations), and the tracing is a third of a large build's CPU:
// every transformer re-parses and re-writes each resource's annotation
// list. With Options.LocatedOnly a build is traced only when its spec says
// so or a file it lists names a kind the report locates (needsOrigin); an
// untraced build that yields one anyway is built again traced, and a
// target in an untraced build is traced afterwards (traceTargets).
func (rd *renderer) renderKustomizeSource(spec SourceSpec, meta *renderMeta) ([]Object, []check.Finding, error) {
	dir := rd.repo.Abs(spec.Path)
	b := rd.kustomizeBuilder()
	src := kustomizeSource(spec, dir)
	sc, findings, err := b.Scan(src)
	if err != nil {
		return nil, findings, err
	}
	meta.partial = len(sc.Partials) > 0
	meta.covered = sc.CoveredPaths()
	trace := !rd.opts.LocatedOnly || spec.Traced || rd.namesLocatedKind(sc)
	objs, fs, err := b.Build(src, sc, trace)
	if err == nil && !trace && slices.ContainsFunc(objs, needsOrigin) {
		trace = true
		objs, fs, err = b.Build(src, sc, trace)
	}
	meta.untraced = !trace
	return objs, append(findings, fs...), err
}

// scanKustomizeSource scans the kustomization of a source (kustomize.Builder.Scan).
func (rd *renderer) scanKustomizeSource(spec SourceSpec, dir string) (*kustscan.Scan, []check.Finding, error) {
	return rd.kustomizeBuilder().Scan(kustomizeSource(spec, dir))
}

// kustomizeBuilder is the kustomization builder of rd's view of the
// repository.
func (rd *renderer) kustomizeBuilder() *kustomize.Builder {
	return &kustomize.Builder{Repo: rd.repo, Fetch: rd.fetchOn(), Fetched: rd.noteFetch, StubCRDs: rd.opts.StubCRDs,
		KrustyTraced: rd.krustyTraced, MaxObjects: rd.opts.MaxObjects, Memo: rd.reads, Charts: rd.charts(), Namespace: rd.opts.Helm.Namespace}
}

// kustomizeSource is spec's kustomization at dir, as the builder takes it.
func kustomizeSource(spec SourceSpec, dir string) kustomize.Source {
	src := kustomize.Source{Dir: dir, Path: spec.Path, ID: spec.ID(), Delivered: spec.Delivery != nil}
	if d := spec.Delivery; d != nil {
		src.KustDoc, src.LoadAnywhere = d.KustDoc, d.LoadAnywhere
	}
	return src
}
