package render

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
	"github.com/capreport/capreport/render/kustomize"
)

// Annotations krusty adds on request and capreport strips.
const (
	originAnnotation = "config.kubernetes.io/origin"
	// helmOriginAnnotation carries "file:line" of objects inflated from a
	// helmCharts entry through krusty, then is stripped.
	helmOriginAnnotation = "render.capreport.io/origin"
	// helmAnnotationLinesAnnotation carries, as JSON, the rendered-output
	// line and value of each annotation of such an object, then is stripped.
	helmAnnotationLinesAnnotation = "render.capreport.io/annotation-lines"
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
	docs, err := builtDocs(rm, rd.opts.MaxObjects)
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
	case got.Unsure || got.Stubbed && unstub(rm):
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

// unstub takes the marker off every stubbed CRD the build yields, and
// reports whether one came out holding more than its stub, or as another
// kind (touched: the build must read the real files).
func unstub(rm resmap.ResMap) (touched bool) {
	for _, r := range rm.Resources() {
		if r.Field(kustread.Marker) == nil {
			continue
		}
		fields, err := r.Fields()
		if err != nil || kustread.Touched(r.GetKind(), fields) {
			return true
		}
		if err := r.PipeE(kyaml.Clear(kustread.Marker)); err != nil {
			return true
		}
	}
	return false
}

// builtDocs are krusty's resources as `kustomize build` prints them, taken
// from its resource nodes rather than printed and parsed again (the
// printing and the parse were an eighth of a large build). kustomize prints
// a resource through JSON, so a float with an integral value prints as an
// integer; asPrinted makes the documents say the same.
func builtDocs(rm resmap.ResMap, maxObjects int) ([]map[string]any, error) {
	res := rm.Resources()
	docs := make([]map[string]any, 0, len(res))
	for _, r := range res {
		raws, err := yamldoc.DecodeNode(r.YNode())
		if err != nil {
			return nil, fmt.Errorf("decoding krusty output: %w", err)
		}
		for _, raw := range raws {
			docs = append(docs, asPrinted(raw.Doc).(map[string]any))
		}
		if len(docs) > maxObjects {
			return nil, fmt.Errorf("%w: more than %d objects", yamldoc.ErrTooManyObjects, maxObjects)
		}
	}
	return docs, nil
}

// asPrinted turns, in place, every float of v that JSON prints without a
// fraction or exponent into the int64 YAML reads it back as.
func asPrinted(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = asPrinted(e)
		}
	case []any:
		for i, e := range x {
			x[i] = asPrinted(e)
		}
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x)
		}
	}
	return v
}

// kustomizeObjects turns krusty's output into objects, each traced to the
// file and line it came from (its origin annotation), or to the
// kustomization when krusty generated it.
func (rd *renderer) kustomizeObjects(docs []map[string]any, spec SourceSpec, realDir string, sc *kustscan.Scan) []Object {
	r := rd.repo
	lines := lineIndex{r: r, cache: map[string][]docPos{}}
	objs := make([]Object, 0, len(docs))
	for _, doc := range docs {
		file, line, annLines := takeOrigin(doc, realDir, r, &lines)
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
		md, _ := h.Doc["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			h.Doc["metadata"] = md
		}
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		if len(h.AnnLines) > 0 {
			at := make(map[string]helmAnnPos, len(h.AnnLines))
			for k, l := range h.AnnLines {
				if v, ok := ann[k]; ok {
					at[k] = helmAnnPos{Line: l, Value: annotationText(v)}
				}
			}
			if j, err := json.Marshal(at); err == nil {
				ann[helmAnnotationLinesAnnotation] = string(j)
			}
		}
		ann[helmOriginAnnotation] = h.File + ":" + strconv.Itoa(h.Line)
		y, err := sigsyaml.Marshal(h.Doc)
		if err != nil {
			return nil, findings, err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return []byte(b.String()), findings, nil
}

// takeOrigin reads and strips the origin annotations of one built object
// and returns its root-relative file and line, and the lines in that file
// of the annotations the built object still carries unchanged from it.
func takeOrigin(doc map[string]any, buildDir string, r *repo, lines *lineIndex) (string, int, map[string]int) {
	md, _ := doc["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		return "", 0, nil
	}
	defer func() {
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}()
	if h, ok := ann[helmOriginAnnotation].(string); ok {
		delete(ann, helmOriginAnnotation)
		delete(ann, originAnnotation)
		al := helmAnnotationLines(ann)
		if i := strings.LastIndex(h, ":"); i > 0 {
			n, _ := strconv.Atoi(h[i+1:])
			return h[:i], n, al
		}
		return h, 0, al
	}
	delete(ann, helmAnnotationLinesAnnotation)
	abs, generated, ok := originFile(ann, buildDir)
	if !ok || !r.Within(abs) {
		return "", 0, nil
	}
	file := r.Rel(abs)
	if generated {
		return file, 0, nil // point at the kustomization that configured it
	}
	kind, _ := doc["kind"].(string)
	name, _ := md["name"].(string)
	d, ok := lines.find(abs, kind, name)
	if !ok {
		return file, 0, nil
	}
	return file, d.line, d.annotationLines(ann)
}

// helmAnnPos is one entry of helmAnnotationLinesAnnotation.
type helmAnnPos struct {
	Line  int    `json:"l"`
	Value string `json:"v"`
}

// helmAnnotationLines reads and strips helmAnnotationLinesAnnotation and
// returns the line of each annotation a patch left unchanged.
// originFile is the file an object came from, taking the annotations
// that say so off it: capreport's file annotation (kustread), else
// krusty's origin, whose path is relative to the build's directory; an
// origin with only configuredIn is a generated object's, and points at
// the kustomization that configured it.
func originFile(ann map[string]any, buildDir string) (abs string, generated, ok bool) {
	o, hasOrigin := ann[originAnnotation].(string)
	delete(ann, originAnnotation)
	if f, ok := ann[kustread.FileAnnotation].(string); ok {
		delete(ann, kustread.FileAnnotation)
		kf, generated := strings.CutPrefix(f, kustread.GeneratedPrefix)
		return kf, generated, true
	}
	if !hasOrigin {
		return "", false, false
	}
	var origin struct {
		Path         string `json:"path"`
		ConfiguredIn string `json:"configuredIn"`
	}
	if err := sigsyaml.Unmarshal([]byte(o), &origin); err != nil {
		return "", false, false
	}
	p := origin.Path
	if p == "" {
		p = origin.ConfiguredIn
	}
	if p == "" {
		return "", false, false
	}
	return filepath.Clean(filepath.Join(buildDir, filepath.FromSlash(p))), origin.Path == "", true
}

func helmAnnotationLines(ann map[string]any) map[string]int {
	j, ok := ann[helmAnnotationLinesAnnotation].(string)
	delete(ann, helmAnnotationLinesAnnotation)
	if !ok {
		return nil
	}
	var at map[string]helmAnnPos
	if json.Unmarshal([]byte(j), &at) != nil {
		return nil
	}
	var out map[string]int
	for k, v := range ann {
		p, ok := at[k]
		if !ok || p.Line <= 0 || p.Value != annotationText(v) {
			continue
		}
		if out == nil {
			out = make(map[string]int, len(at))
		}
		out[k] = p.Line
	}
	return out
}

// docPos is one document of a resource file.
type docPos struct {
	kind, name string
	line       int
	// ann holds each metadata.annotations key's line in the file and value.
	ann map[string]annPos
}

// annPos is where an annotation stands in its resource file, and its value.
type annPos struct {
	line  int
	value string
}

// annotationLines returns the file line of each built annotation whose key
// and value the document has: one a patch or commonAnnotations added or
// changed has no line. Nil when none is known.
func (d docPos) annotationLines(built map[string]any) map[string]int {
	var out map[string]int
	for k, v := range built {
		p, ok := d.ann[k]
		if !ok || p.value != annotationText(v) {
			continue
		}
		if out == nil {
			out = make(map[string]int, len(built))
		}
		out[k] = p.line
	}
	return out
}

// annotationText is the comparable text of a decoded annotation value.
func annotationText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// lineIndex finds an object's document in its resource file.
type lineIndex struct {
	r     *repo
	cache map[string][]docPos
}

// find returns the document of this kind whose name matches the built name
// (exactly, else as the only name contained in it or the only document of
// the kind, since name prefixes and suffixes change it); ok is false if
// unsure. A document of another kind never matches.
func (li *lineIndex) find(abs, kind, name string) (docPos, bool) {
	var sameKind, contained []docPos
	for _, d := range li.docs(abs) {
		if d.kind != kind {
			continue
		}
		if d.name == name {
			return d, true
		}
		sameKind = append(sameKind, d)
		if d.name != "" && strings.Contains(name, d.name) {
			contained = append(contained, d)
		}
	}
	if len(contained) == 1 {
		return contained[0], true
	}
	if len(sameKind) == 1 {
		return sameKind[0], true
	}
	return docPos{}, false
}

// docs returns the documents of resource file abs, read once. A file that cannot be read has none: find
// is then unsure, and the object keeps its file but no line.
func (li *lineIndex) docs(abs string) []docPos {
	if docs, ok := li.cache[abs]; ok {
		return docs
	}
	var docs []docPos
	if data, err := li.r.ReadFile(abs); err == nil {
		raws, _, _ := yamldoc.Decode(data, DefaultMaxObjects)
		for _, raw := range raws {
			docs = append(docs, docPosOf(raw))
		}
	}
	li.cache[abs] = docs
	return docs
}

// docPosOf is where a decoded document stands: its kind, name and line, and the line and value of each of
// its annotations.
func docPosOf(raw yamldoc.Raw) docPos {
	k, _ := raw.Doc["kind"].(string)
	md, _ := raw.Doc["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	d := docPos{kind: k, name: n, line: raw.Line}
	if len(raw.AnnLines) == 0 {
		return d
	}
	ann, _ := md["annotations"].(map[string]any)
	d.ann = make(map[string]annPos, len(raw.AnnLines))
	for key, l := range raw.AnnLines {
		if v, ok := ann[key]; ok {
			d.ann[key] = annPos{line: l, value: annotationText(v)}
		}
	}
	return d
}
