package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
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
	sc, findings, err := rd.scanKustomizeSource(spec, dir)
	if err != nil {
		return nil, findings, err
	}
	meta.partial = len(sc.Partials) > 0
	meta.covered = sc.CoveredPaths()
	trace := !rd.opts.LocatedOnly || spec.traced || rd.namesLocatedKind(sc)
	objs, fs, err := rd.buildKustomization(spec, sc, dir, trace)
	if err == nil && !trace && slices.ContainsFunc(objs, needsOrigin) {
		trace = true
		objs, fs, err = rd.buildKustomization(spec, sc, dir, trace)
	}
	meta.untraced = !trace
	return objs, append(findings, fs...), err
}

// scanKustomizeSource scans the kustomization of a source (a GitOps
// object's own in place of the file, when it has one) and returns the
// findings of what it leaves out; err refuses the source.
func (rd *renderer) scanKustomizeSource(spec SourceSpec, dir string) (*kustscan.Scan, []check.Finding, error) {
	r := rd.repo
	sc := rd.newKustScan()
	if d := spec.delivery; d != nil && d.kustDoc != nil {
		kf := kustscan.KustomizationFile(r, dir)
		generated := kf == ""
		if generated {
			kf = filepath.Join(dir, "kustomization.yaml")
		}
		sc.Override[dir] = &kustscan.Kustomization{File: kf, Doc: d.kustDoc, Generated: generated}
	}
	sc.LoadAnywhere = spec.delivery != nil && spec.delivery.loadAnywhere
	sc.Scan(dir, false)
	var findings []check.Finding
	for _, ref := range sc.Partials {
		findings = append(findings, check.Finding{Check: ref.Check, Severity: check.SeverityWarning, Location: check.At(ref.File, 0), Message: ref.Msg})
	}
	if len(sc.Refusals) > 0 {
		for _, ref := range sc.Refusals[1:] {
			findings = append(findings, check.Finding{Check: ref.Check, Severity: check.SeverityError, Location: check.At(ref.File, 0), Message: ref.Msg})
		}
		return nil, findings, sc.Refusals[0]
	}
	if sc.RootIsComponent && !sc.LoadAnywhere {
		return nil, nil, fmt.Errorf("%s is a Component; it renders only as part of a kustomization", spec.Path)
	}
	return sc, findings, nil
}

// buildKustomization runs krusty on a scanned kustomization, traced or not,
// and returns its objects. krusty first reads the files listed only as
// resources rewritten (kustread): with Options.StubCRDs their CRDs as
// stubs, and in a traced build whose every object comes from such a file
// each object annotated with its file, in place of krusty's own tracing
// (kustscan.Scan.Annotatable). A build that fails then, in which
// something wrote to a stub past its identity, or that holds an object
// the annotations missed, is built again from the files as they are
// (traced by krusty when traced at all), so that what it yields or
// reports is krusty's own.
func (rd *renderer) buildKustomization(spec SourceSpec, sc *kustscan.Scan, dir string, trace bool) ([]Object, []check.Finding, error) {
	realDir, err := rd.repo.EvalSymlinks(dir)
	if err != nil {
		return nil, nil, err
	}
	rm, findings, err := rd.runKrustyRewritten(sc, realDir, trace)
	if err != nil {
		return nil, findings, err
	}
	docs, err := kustomize.BuiltDocs(rm, rd.opts.MaxObjects)
	if err != nil {
		return nil, findings, err
	}
	return rd.kustomizeObjects(docs, spec, realDir, sc), findings, nil
}

// runKrustyRewritten builds realDir reading the resource files rewritten,
// and again from the files as they are when the rewrite could have
// changed the outcome. A build that failed yields no objects, so only its
// error matters: it is built again untraced (tracing changes no error),
// and traced only if it then succeeds.
func (rd *renderer) runKrustyRewritten(sc *kustscan.Scan, realDir string, trace bool) (resmap.ResMap, []check.Finding, error) {
	read := kustomize.Rewrite{Stub: rd.opts.StubCRDs, Annotate: trace && !rd.krustyTraced && sc.Annotatable()}
	rm, findings, got, err := rd.runKrusty(sc, realDir, trace && !read.Annotate, read)
	switch {
	case !got.Stubbed && !read.Annotate:
		return rm, findings, err
	case err != nil:
		rm, findings, _, err = rd.runKrusty(sc, realDir, false, kustomize.Rewrite{})
		if err == nil && trace {
			rm, findings, _, err = rd.runKrusty(sc, realDir, true, kustomize.Rewrite{})
		}
	case got.Unsure || got.Stubbed && kustomize.Unstub(rm):
		rm, findings, _, err = rd.runKrusty(sc, realDir, trace, kustomize.Rewrite{})
	}
	return rm, findings, err
}

// runKrusty builds realDir over the scanned tree, with krusty's tracing
// when trace is set and the files listed only as resources rewritten as
// read says.
func (rd *renderer) runKrusty(sc *kustscan.Scan, realDir string, trace bool, read kustomize.Rewrite) (resmap.ResMap, []check.Finding, kustomize.Rewritten, error) {
	tr := kustscan.Tracing{Krusty: trace, Generators: read.Annotate}
	overlay, findings, err := rd.rewriteKustomizations(sc, tr)
	if err != nil {
		return nil, findings, kustomize.Rewritten{}, err
	}
	safe := rd.scanSafeFS(sc, overlay)
	if read.Stub || read.Annotate {
		safe.Rewrite, safe.RewriteFile = read, sc.ResourceOnly
	}
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsRootOnly
	if sc.LoadAnywhere {
		// kustomize-controller's build (fluxcd/pkg/kustomize Build); safe
		// still refuses every read outside the repository root.
		kopts.LoadRestrictions = types.LoadRestrictionsNone
	}
	kopts.PluginConfig = types.DisabledPluginConfig()
	rm, err := krusty.MakeKustomizer(kopts).Run(safe, realDir)
	if v := safe.FirstViolation(); v != nil {
		return nil, findings, safe.Rewrote(), v
	}
	return rm, findings, safe.Rewrote(), err
}

// kustomizeObjects turns krusty's output into objects, each traced to the
// file and line it came from (its origin annotation), or to the
// kustomization when krusty generated it.
func (rd *renderer) kustomizeObjects(docs []map[string]any, spec SourceSpec, realDir string, sc *kustscan.Scan) []Object {
	r := rd.repo
	lines := kustomize.NewLineIndex(r, DefaultMaxObjects)
	objs := make([]Object, 0, len(docs))
	for _, doc := range docs {
		file, line, annLines := kustomize.TakeOrigin(doc, realDir, r, lines)
		o, ok := object.FromDoc(doc)
		if !ok {
			continue
		}
		if file == "" {
			file = spec.Path
			if kf := kustscan.KustomizationFile(r, realDir); kf != "" {
				file = r.Rel(kf)
			}
		}
		o.Origin = Origin{Source: spec.ID(), SourceType: SourceKustomize, File: file, Line: line, AnnotationLines: annLines}
		if via, ok := sc.ListedBy[r.Abs(file)]; ok && spec.delivery != nil {
			o.Origin.Via = r.Rel(via)
		}
		objs = append(objs, o)
	}
	return objs
}

// rewriteKustomizations returns the in-memory copy of every kustomization
// the build reads (kustscan.Scan.Rewrite), helmCharts entries inflated
// with the Helm SDK.
func (rd *renderer) rewriteKustomizations(sc *kustscan.Scan, tr kustscan.Tracing) (map[string][]byte, []check.Finding, error) {
	var findings []check.Finding
	overlay, err := sc.Rewrite(func(dir string, k *kustscan.Kustomization, doc, hc map[string]any) ([]byte, error) {
		data, fs, err := rd.inflateHelmChart(dir, k, doc, hc)
		findings = append(findings, fs...)
		return data, err
	}, tr)
	return overlay, findings, err
}

// inflateHelmChart renders one helmCharts entry with the Helm SDK and
// returns a YAML stream whose objects carry their template origin.
func (rd *renderer) inflateHelmChart(kdir string, k *kustscan.Kustomization, doc, hc map[string]any) ([]byte, []check.Finding, error) {
	sc := rd.newKustScan()
	chartDir := sc.LocalChart(kdir, k.File, doc, hc)
	if chartDir == "" && len(sc.Refusals) > 0 {
		return nil, nil, sc.Refusals[0]
	}
	remote := helmChartsRemote(hc, chartDir)
	hv := HelmValues{Namespace: rd.opts.Helm.Namespace}
	hv.ReleaseName, _ = hc["releaseName"].(string)
	if hv.ReleaseName == "" {
		hv.ReleaseName = "release-name" // helm template's default, as kustomize uses it
	}
	if ns, _ := hc["namespace"].(string); ns != "" {
		hv.Namespace = ns
	}
	for _, f := range append(yamldoc.StrList(hc["valuesFile"]), yamldoc.StrList(hc["additionalValuesFiles"])...) {
		if kustscan.LooksRemote(f) {
			return nil, nil, &kustscan.Refusal{Check: check.RemoteBase, File: rd.repo.Rel(k.File), Msg: fmt.Sprintf("%s: helmCharts values file %q is remote; capreport never fetches it", rd.repo.Rel(k.File), f)}
		}
		hv.ValuesFiles = append(hv.ValuesFiles, filepath.Join(kdir, filepath.FromSlash(f)))
	}
	inline, _ := hc["valuesInline"].(map[string]any)
	if m, _ := hc["valuesMerge"].(string); m == "replace" && inline != nil {
		hv.ValuesFiles = nil
	}
	skipHooks, _ := hc["skipHooks"].(bool)
	kv, _ := hc["kubeVersion"].(string)
	hobjs, findings, err := rd.charts().Render(helm.Request{
		ChartDir: chartDir, Values: hv, Inline: inline, Remote: remote,
		APIVersions: yamldoc.StrList(hc["apiVersions"]), KubeVersion: kv,
		SkipTests: true, SkipHooks: skipHooks,
	})
	if err != nil {
		return nil, findings, fmt.Errorf("helmCharts %q: %w", hc["name"], err)
	}
	var b strings.Builder
	for _, h := range hobjs {
		y, err := sigsyaml.Marshal(kustomize.MarkHelmOrigin(h))
		if err != nil {
			return nil, findings, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return []byte(b.String()), findings, nil
}
