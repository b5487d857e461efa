package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
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

// kustomizeRefusal is a reason not to hand a kustomization to krusty at all.
type kustomizeRefusal struct {
	check string // finding check ID
	file  string // root-relative kustomization (or config) file
	msg   string
}

func (e *kustomizeRefusal) Error() string { return e.msg }

// kustFile is one parsed kustomization.
type kustFile struct {
	file string // absolute
	doc  map[string]any
	// generated: no such file on disk (Flux generated it for a directory
	// without one); the overlay provides it.
	generated bool
}

// kustScan walks a kustomization and everything it refers to, without
// building: it finds remote references, exec/container functions, paths
// that leave the root, and collects what the tree uses (so discovery does
// not render those pieces again).
type kustScan struct {
	r               *repo
	seen            map[string]bool
	kusts           map[string]*kustFile // by absolute dir
	dirs            []string             // kustomization dirs visited, root first
	files           []string             // files referenced inside their kustomization's tree
	charts          []string             // local chart dirs used by helmCharts
	refusals        []*kustomizeRefusal
	rootIsComponent bool
	root            string
	// override replaces the kustomization read from disk in one directory
	// (a GitOps object's generated or amended kustomization).
	override map[string]*kustFile
	// dropped are entries left out of the render (remote, outside the
	// root, missing), by kustomization directory; each is also a refusal
	// in partials.
	dropped  map[string][]droppedEntry
	partials []*kustomizeRefusal
	// listedBy maps a resource file to the kustomization file listing it.
	listedBy map[string]string
	// fetch keeps remote bases and helmCharts repos for the build
	// (--fetch); remote records that the build will fetch a base.
	fetch, remote bool
}

// droppedEntry is one entry of a kustomization list field left out.
type droppedEntry struct{ field, entry string }

func newKustScan(r *repo) *kustScan {
	return &kustScan{r: r, seen: map[string]bool{}, kusts: map[string]*kustFile{},
		override: map[string]*kustFile{}, dropped: map[string][]droppedEntry{}, listedBy: map[string]string{}}
}

// droppable are the list fields whose unusable entries the render leaves
// out instead of failing: what they would add is missing, the rest stands.
var droppable = map[string]bool{"resources": true, "bases": true, "components": true, "crds": true}

// entryOrDrop is entry for a droppable field: a remote, escaping or missing
// entry is recorded as dropped rather than refusing the whole root.
func (sc *kustScan) entryOrDrop(dir, kf, field, e string) string {
	n := len(sc.refusals)
	abs := sc.entry(dir, kf, field, e)
	if len(sc.refusals) > n && droppable[field] {
		ref := sc.refusals[n]
		sc.refusals = sc.refusals[:n]
		sc.partials = append(sc.partials, &kustomizeRefusal{check: CheckPartialRender, file: ref.file,
			msg: ref.msg + "; rendered without it, so what it adds is missing from this report"})
		sc.dropped[dir] = append(sc.dropped[dir], droppedEntry{field, e})
		return ""
	}
	if abs == "" && len(sc.refusals) == n && droppable[field] && !looksRemote(e) && !filepath.IsAbs(e) {
		abs = filepath.Clean(filepath.Join(dir, filepath.FromSlash(e))) // missing: dropped below
	}
	if abs != "" && droppable[field] {
		if _, err := os.Stat(abs); err != nil {
			rel := sc.r.Rel(kf)
			sc.partials = append(sc.partials, &kustomizeRefusal{check: CheckPartialRender, file: rel,
				msg: fmt.Sprintf("%s: %s entry %q does not exist; rendered without it, so what it adds is missing from this report", rel, field, e)})
			sc.dropped[dir] = append(sc.dropped[dir], droppedEntry{field, e})
			return ""
		}
	}
	return abs
}

var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// looksRemote mirrors what krusty would treat as a remote file (http/https
// URL) or git repository (scheme, git::, user@host, github.com/...).
func looksRemote(s string) bool {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	return strings.Contains(s, "://") ||
		strings.HasPrefix(low, "git::") ||
		strings.HasPrefix(low, "github.com/") || strings.HasPrefix(low, "github.com:") ||
		scpUser.MatchString(s)
}

func (sc *kustScan) refuse(check, file, format string, args ...any) {
	sc.refusals = append(sc.refusals, &kustomizeRefusal{check: check, file: file, msg: fmt.Sprintf(format, args...)})
}

func strList(v any) []string {
	var out []string
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	case string:
		out = append(out, t)
	}
	return out
}

func mapList(v any) []map[string]any {
	var out []map[string]any
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// entry resolves one path a kustomization refers to; "" if it must not or
// cannot be followed.
func (sc *kustScan) entry(dir, kf, field, e string) string {
	rel := sc.r.Rel(kf)
	if looksRemote(e) && sc.fetch && remoteBaseAllowed(field, e) {
		sc.remote = true
		return "" // kept for krusty's own loader to fetch
	}
	if looksRemote(e) {
		sc.refuse(CheckRemoteBase, rel, "%s: %s entry %q is remote; capreport never fetches remote bases or files (vendor it into the repository)", rel, field, e)
		return ""
	}
	if filepath.IsAbs(e) {
		sc.refuse(CheckPathEscape, rel, "%s: %s entry %q is an absolute path", rel, field, e)
		return ""
	}
	abs := filepath.Clean(filepath.Join(dir, filepath.FromSlash(e)))
	if !sc.r.Within(abs) {
		sc.refuse(CheckPathEscape, rel, "%s: %s entry %q leaves the repository root %q (pass --root to read a wider checkout)", rel, field, e, filepath.Base(sc.r.Root))
		return ""
	}
	if _, err := sc.r.Resolve(abs); err != nil {
		if c := repofs.CheckFor(err); c != "" {
			sc.refuse(c, rel, "%s: %s entry %q: %v", rel, field, e, err)
		}
		return ""
	}
	return abs
}

// addFile records a referenced file; only files below the kustomization's
// directory count (krusty's load restrictions refuse the others).
func (sc *kustScan) addFile(dir, abs string) {
	if abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
		sc.files = append(sc.files, abs)
		if k, ok := sc.kusts[dir]; ok && !k.generated {
			if _, seen := sc.listedBy[abs]; !seen {
				sc.listedBy[abs] = k.file
			}
		}
	}
}

func (sc *kustScan) file(dir, kf, field, e string, plugin bool) {
	if abs := sc.entry(dir, kf, field, e); abs != "" {
		sc.addFile(dir, abs)
		if plugin {
			sc.checkFunctions(kf, abs, nil)
		}
	}
}

// read parses the kustomization file of dir; nil when there is none (krusty
// reports it) or it is refused.
func (sc *kustScan) read(dir string) *kustFile {
	kf := kustomizationFile(dir)
	if kf == "" {
		return nil
	}
	rel := sc.r.Rel(kf)
	data, err := sc.r.ReadFile(kf)
	if err != nil {
		if c := repofs.CheckFor(err); c != "" {
			sc.refuse(c, rel, "%s: %v", rel, err)
		}
		return nil
	}
	raws, problems, err := yamldoc.Decode(data, 1)
	if err != nil || len(problems) > 0 || len(raws) != 1 {
		check := CheckRenderFailed
		if len(problems) > 0 && errors.Is(problems[0].Err, yamldoc.ErrAliasBudget) {
			check = CheckYAMLAliasBomb
		}
		sc.refuse(check, rel, "%s: not a single YAML mapping", rel)
		return nil
	}
	return &kustFile{file: kf, doc: raws[0].Doc}
}

// scan visits the kustomization in dir and everything it lists, in the
// order krusty reads them: what it builds on, the files it reads, the
// functions it runs and the Helm charts it inflates.
func (sc *kustScan) scan(dir string, plugin bool) {
	if sc.seen[dir] {
		return
	}
	sc.seen[dir] = true
	if sc.root == "" {
		sc.root = dir
	}
	k := sc.override[dir]
	if k == nil {
		if k = sc.read(dir); k == nil {
			return
		}
	}
	sc.dirs = append(sc.dirs, dir)
	sc.kusts[dir] = k
	if kind, _ := k.doc["kind"].(string); kind == "Component" && dir == sc.root {
		sc.rootIsComponent = true
	}
	sc.scanBases(dir, k, plugin)
	sc.scanFiles(dir, k)
	sc.scanFunctions(dir, k)
	sc.scanHelmCharts(dir, k)
}

// scanBases follows resources, bases and components (a directory is a
// kustomization to scan, anything else a file) and lists the crds.
func (sc *kustScan) scanBases(dir string, k *kustFile, plugin bool) {
	kf, doc := k.file, k.doc
	for _, field := range []string{"resources", "bases", "components"} {
		for _, e := range strList(doc[field]) {
			abs := sc.entryOrDrop(dir, kf, field, e)
			if abs == "" {
				continue
			}
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				sc.scan(abs, plugin)
			} else {
				sc.addFile(dir, abs)
				if plugin {
					sc.checkFunctions(kf, abs, nil)
				}
			}
		}
	}
	for _, e := range strList(doc["crds"]) {
		if abs := sc.entryOrDrop(dir, kf, "crds", e); abs != "" {
			sc.addFile(dir, abs)
		}
	}
}

// scanFiles checks the other files the kustomization reads: configurations,
// patches (an inline patch is not a path), replacements, the OpenAPI schema
// and the generators' files and env files.
func (sc *kustScan) scanFiles(dir string, k *kustFile) {
	kf, doc := k.file, k.doc
	for _, e := range strList(doc["configurations"]) {
		sc.file(dir, kf, "configurations", e, false)
	}
	for _, e := range strList(doc["patchesStrategicMerge"]) {
		if !strings.ContainsAny(e, "\n:{") {
			sc.file(dir, kf, "patchesStrategicMerge", e, false)
		}
	}
	for _, field := range []string{"patches", "patchesJson6902", "replacements"} {
		for _, m := range mapList(doc[field]) {
			if p, ok := m["path"].(string); ok && p != "" {
				sc.file(dir, kf, field, p, false)
			}
		}
	}
	if m, ok := doc["openapi"].(map[string]any); ok {
		if p, ok := m["path"].(string); ok && p != "" {
			sc.file(dir, kf, "openapi", p, false)
		}
	}
	for _, field := range []string{"configMapGenerator", "secretGenerator"} {
		for _, m := range mapList(doc[field]) {
			for _, f := range strList(m["files"]) {
				if i := strings.Index(f, "="); i >= 0 {
					f = f[i+1:]
				}
				sc.file(dir, kf, field, f, false)
			}
			for _, f := range append(strList(m["envs"]), strList(m["env"])...) {
				sc.file(dir, kf, field, f, false)
			}
		}
	}
}

// scanFunctions checks generators, transformers and validators: an inline
// one, a file, or a directory scanned as a plugin kustomization.
func (sc *kustScan) scanFunctions(dir string, k *kustFile) {
	kf, doc := k.file, k.doc
	for _, field := range []string{"generators", "transformers", "validators"} {
		for _, e := range strList(doc[field]) {
			if strings.Contains(e, "\n") {
				sc.checkFunctions(kf, "", []byte(e))
				continue
			}
			abs := sc.entry(dir, kf, field, e)
			if abs == "" {
				continue
			}
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				sc.scan(abs, true)
			} else {
				sc.addFile(dir, abs)
				sc.checkFunctions(kf, abs, nil)
			}
		}
	}
}

// scanHelmCharts finds each helmCharts entry's vendored chart; a remote one
// is dropped from the build (the render is partial) instead of refusing it.
func (sc *kustScan) scanHelmCharts(dir string, k *kustFile) {
	kf, doc := k.file, k.doc
	if _, ok := doc["helmChartInflationGenerator"]; ok {
		rel := sc.r.Rel(kf)
		sc.refuse(CheckKustomizePlugin, rel, "%s: helmChartInflationGenerator is not supported (use helmCharts with a chart vendored under charts/)", rel)
	}
	for _, hc := range mapList(doc["helmCharts"]) {
		n := len(sc.refusals)
		if d := sc.localChart(dir, kf, doc, hc); d != "" {
			sc.charts = append(sc.charts, d)
		} else if len(sc.refusals) > n && sc.refusals[n].check == CheckHelmChartRemote {
			ref := sc.refusals[n]
			sc.refusals = sc.refusals[:n]
			sc.partials = append(sc.partials, &kustomizeRefusal{check: CheckHelmChartRemote, file: ref.file,
				msg: ref.msg + "; rendered without it, so what it adds is missing from this report"})
			name, _ := hc["name"].(string)
			sc.dropped[dir] = append(sc.dropped[dir], droppedEntry{"helmCharts", name})
		}
	}
}

// localChart finds the vendored chart of a helmCharts entry.
func (sc *kustScan) localChart(dir, kf string, doc, hc map[string]any) string {
	rel := sc.r.Rel(kf)
	name, _ := hc["name"].(string)
	version, _ := hc["version"].(string)
	repoURL, _ := hc["repo"].(string)
	home := "charts"
	if g, ok := doc["helmGlobals"].(map[string]any); ok {
		if h, ok := g["chartHome"].(string); ok && h != "" {
			home = h
		}
	}
	if name == "" {
		sc.refuse(CheckRenderFailed, rel, "%s: helmCharts entry without a name", rel)
		return ""
	}
	homeAbs := sc.entry(dir, kf, "helmGlobals.chartHome", home)
	if homeAbs != "" {
		cands := []string{filepath.Join(homeAbs, name)}
		if version != "" {
			cands = append(cands, filepath.Join(homeAbs, name+"-"+version, name))
		}
		for _, c := range cands {
			if !sc.r.Within(filepath.Clean(c)) {
				continue
			}
			if _, err := sc.r.Resolve(c); err == nil && isChartDir(c) {
				return c
			}
		}
	}
	where := repoURL
	if where == "" {
		where = "no repo"
	}
	if sc.fetch && repoURL != "" {
		return "" // fetched when the entry is inflated
	}
	sc.refuse(CheckHelmChartRemote, rel, "%s: helmCharts entry %q (%s, version %q) is not vendored under %s; capreport never pulls charts", rel, name, where, version, path.Join(path.Dir(rel), home))
	return ""
}

// checkFunctions refuses KRM function configs (exec, container, starlark):
// capreport never runs them.
func (sc *kustScan) checkFunctions(kf, file string, inline []byte) {
	rel := sc.r.Rel(kf)
	data := inline
	where := rel + " (inline)"
	if file != "" {
		where = sc.r.Rel(file)
		var err error
		if data, err = sc.r.ReadFile(file); err != nil {
			return
		}
	}
	raws, _, _ := yamldoc.Decode(data, 1000)
	for _, raw := range raws {
		md, _ := raw.Doc["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		for _, key := range []string{"config.kubernetes.io/function", "config.k8s.io/function"} {
			spec, ok := ann[key].(string)
			if !ok {
				continue
			}
			kind := "KRM"
			for _, k := range []string{"exec", "container", "starlark"} {
				if strings.Contains(spec, k+":") {
					kind = k
					break
				}
			}
			sc.refuse(CheckExecFunction, where, "%s: %s function %q (%s) is configured; capreport never runs exec, container or starlark functions or plugins", where, kind, strings.TrimSpace(fmt.Sprint(raw.Doc["kind"])), strings.Join(strings.Fields(spec), " "))
		}
	}
}

// renderKustomizeSource builds a kustomization with krusty in-process. A
// remote, escaping or missing entry of a list field is left out of the
// build (an in-memory copy of its kustomization) and the render is partial.
func (rd *renderer) renderKustomizeSource(spec SourceSpec, meta *renderMeta) ([]Object, []Finding, error) {
	r := rd.repo
	dir := r.Abs(spec.Path)
	sc := rd.newKustScan()
	if d := spec.delivery; d != nil && d.kustDoc != nil {
		kf := kustomizationFile(dir)
		generated := kf == ""
		if generated {
			kf = filepath.Join(dir, "kustomization.yaml")
		}
		sc.override[dir] = &kustFile{file: kf, doc: d.kustDoc, generated: generated}
	}
	sc.scan(dir, false)
	var findings []Finding
	for _, ref := range sc.partials {
		findings = append(findings, Finding{Check: ref.check, Severity: SeverityWarning, File: ref.file, Message: ref.msg})
	}
	if len(sc.refusals) > 0 {
		for _, ref := range sc.refusals[1:] {
			findings = append(findings, Finding{Check: ref.check, Severity: SeverityError, File: ref.file, Message: ref.msg})
		}
		return nil, findings, sc.refusals[0]
	}
	if sc.rootIsComponent {
		return nil, nil, fmt.Errorf("%s is a Component; it renders only as part of a kustomization", spec.Path)
	}
	meta.partial = len(sc.partials) > 0
	meta.covered = sc.coveredPaths()

	overlay, fs, err := rd.rewriteKustomizations(sc)
	findings = append(findings, fs...)
	if err != nil {
		return nil, findings, err
	}
	safe := sc.safeFS(overlay)
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsRootOnly
	kopts.PluginConfig = types.DisabledPluginConfig()
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, findings, err
	}
	rm, err := krusty.MakeKustomizer(kopts).Run(safe, realDir)
	if v := safe.firstViolation(); v != nil {
		return nil, findings, v
	}
	if err != nil {
		return nil, findings, err
	}
	out, err := rm.AsYaml()
	if err != nil {
		return nil, findings, err
	}
	raws, problems, err := yamldoc.Decode(out, rd.opts.MaxObjects)
	if err != nil {
		return nil, findings, fmt.Errorf("%w: more than %d objects", err, rd.opts.MaxObjects)
	}
	if len(problems) > 0 {
		return nil, findings, fmt.Errorf("decoding krusty output: %w", problems[0].Err)
	}
	return rd.kustomizeObjects(raws, spec, realDir, sc), findings, nil
}

// kustomizeObjects turns krusty's output into objects, each traced to the
// file and line it came from (its origin annotation), or to the
// kustomization when krusty generated it.
func (rd *renderer) kustomizeObjects(raws []yamldoc.Raw, spec SourceSpec, realDir string, sc *kustScan) []Object {
	r := rd.repo
	lines := lineIndex{r: r, cache: map[string][]docPos{}}
	objs := make([]Object, 0, len(raws))
	for _, raw := range raws {
		file, line, annLines := takeOrigin(raw.Doc, realDir, r, &lines)
		o, ok := objectFromDoc(raw.Doc)
		if !ok {
			continue
		}
		if file == "" {
			file = spec.Path
			if kf := kustomizationFile(realDir); kf != "" {
				file = r.Rel(kf)
			}
		}
		o.Origin = Origin{Source: spec.ID(), SourceType: SourceKustomize, File: file, Line: line, AnnotationLines: annLines}
		if via, ok := sc.listedBy[r.Abs(file)]; ok && spec.delivery != nil {
			o.Origin.Via = r.Rel(via)
		}
		objs = append(objs, o)
	}
	return objs
}

// rewriteKustomizations returns the in-memory copy of every kustomization
// the build reads: origin annotations asked for, helmCharts replaced by
// files inflated with the Helm SDK, dropped entries left out.
func (rd *renderer) rewriteKustomizations(sc *kustScan) (map[string][]byte, []Finding, error) {
	var findings []Finding
	overlay := map[string][]byte{}
	for kdir, k := range sc.kusts {
		doc := mergeMaps(k.doc, nil)
		bm := strList(doc["buildMetadata"])
		if !containsString(bm, "originAnnotations") {
			bm = append(bm, "originAnnotations")
		}
		doc["buildMetadata"] = toAnyList(bm)
		dropEntries(doc, sc.dropped[kdir])
		realDir, err := filepath.EvalSymlinks(kdir)
		if err != nil {
			return nil, findings, err
		}
		if charts := mapList(doc["helmCharts"]); len(charts) > 0 {
			res := toAnyList(strList(doc["resources"]))
			for i, hc := range charts {
				data, fs, err := rd.inflateHelmChart(kdir, k, doc, hc)
				findings = append(findings, fs...)
				if err != nil {
					return nil, findings, err
				}
				name := fmt.Sprintf("capreport-helmchart-%d.yaml", i)
				overlay[filepath.Join(realDir, name)] = data
				res = append(res, name)
			}
			doc["resources"] = res
			delete(doc, "helmCharts")
			delete(doc, "helmGlobals")
		}
		data, err := sigsyaml.Marshal(doc)
		if err != nil {
			return nil, findings, err
		}
		overlay[filepath.Join(realDir, filepath.Base(k.file))] = data
	}
	return overlay, findings, nil
}

// dropEntries removes dropped entries from their list fields; a
// helmCharts entry is dropped by name.
func dropEntries(doc map[string]any, dropped []droppedEntry) {
	for _, d := range dropped {
		l, _ := doc[d.field].([]any)
		kept := make([]any, 0, len(l))
		for _, e := range l {
			if s, ok := e.(string); ok && s == d.entry {
				continue
			}
			if m, ok := e.(map[string]any); ok && d.field == "helmCharts" && m["name"] == d.entry {
				continue
			}
			kept = append(kept, e)
		}
		doc[d.field] = kept
	}
}

// coveredPaths lists, root-relative, what the build reads as its parts.
func (sc *kustScan) coveredPaths() []string {
	var out []string
	for _, d := range sc.dirs {
		out = append(out, sc.r.Rel(d))
	}
	for _, f := range sc.files {
		out = append(out, sc.r.Rel(f))
	}
	for _, c := range sc.charts {
		out = append(out, sc.r.Rel(c))
	}
	return out
}

func containsString(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

func toAnyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// inflateHelmChart renders one helmCharts entry with the Helm SDK and
// returns a YAML stream whose objects carry their template origin.
func (rd *renderer) inflateHelmChart(kdir string, k *kustFile, doc, hc map[string]any) ([]byte, []Finding, error) {
	sc := rd.newKustScan()
	chartDir := sc.localChart(kdir, k.file, doc, hc)
	if chartDir == "" && len(sc.refusals) > 0 {
		return nil, nil, sc.refusals[0]
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
	for _, f := range append(strList(hc["valuesFile"]), strList(hc["additionalValuesFiles"])...) {
		if looksRemote(f) {
			return nil, nil, &kustomizeRefusal{check: CheckRemoteBase, file: rd.repo.Rel(k.file), msg: fmt.Sprintf("%s: helmCharts values file %q is remote; capreport never fetches it", rd.repo.Rel(k.file), f)}
		}
		hv.ValuesFiles = append(hv.ValuesFiles, filepath.Join(kdir, filepath.FromSlash(f)))
	}
	inline, _ := hc["valuesInline"].(map[string]any)
	if m, _ := hc["valuesMerge"].(string); m == "replace" && inline != nil {
		hv.ValuesFiles = nil
	}
	skipHooks, _ := hc["skipHooks"].(bool)
	kv, _ := hc["kubeVersion"].(string)
	hobjs, findings, err := rd.renderChart(helmRequest{
		chartDir: chartDir, values: hv, inline: inline, remote: remote,
		apiVersions: strList(hc["apiVersions"]), kubeVersion: kv,
		skipTests: true, skipHooks: skipHooks,
	})
	if err != nil {
		return nil, findings, fmt.Errorf("helmCharts %q: %w", hc["name"], err)
	}
	var b strings.Builder
	for _, h := range hobjs {
		md, _ := h.doc["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			h.doc["metadata"] = md
		}
		ann, _ := md["annotations"].(map[string]any)
		if ann == nil {
			ann = map[string]any{}
			md["annotations"] = ann
		}
		if len(h.annLines) > 0 {
			at := make(map[string]helmAnnPos, len(h.annLines))
			for k, l := range h.annLines {
				if v, ok := ann[k]; ok {
					at[k] = helmAnnPos{Line: l, Value: annotationText(v)}
				}
			}
			if j, err := json.Marshal(at); err == nil {
				ann[helmAnnotationLinesAnnotation] = string(j)
			}
		}
		ann[helmOriginAnnotation] = h.file + ":" + strconv.Itoa(h.line)
		y, err := sigsyaml.Marshal(h.doc)
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
	o, ok := ann[originAnnotation].(string)
	if !ok {
		return "", 0, nil
	}
	delete(ann, originAnnotation)
	var origin struct {
		Path         string `json:"path"`
		ConfiguredIn string `json:"configuredIn"`
	}
	if err := sigsyaml.Unmarshal([]byte(o), &origin); err != nil {
		return "", 0, nil
	}
	p := origin.Path
	if p == "" {
		p = origin.ConfiguredIn
	}
	if p == "" {
		return "", 0, nil
	}
	abs := filepath.Clean(filepath.Join(buildDir, filepath.FromSlash(p)))
	if !r.Within(abs) {
		return "", 0, nil
	}
	file := r.Rel(abs)
	if origin.Path == "" {
		return file, 0, nil // generated: point at the kustomization that configured it
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
	docs, ok := li.cache[abs]
	if !ok {
		if data, err := li.r.ReadFile(abs); err == nil {
			raws, _, _ := yamldoc.Decode(data, DefaultMaxObjects)
			for _, raw := range raws {
				k, _ := raw.Doc["kind"].(string)
				md, _ := raw.Doc["metadata"].(map[string]any)
				n, _ := md["name"].(string)
				d := docPos{kind: k, name: n, line: raw.Line}
				if len(raw.AnnLines) > 0 {
					ann, _ := md["annotations"].(map[string]any)
					d.ann = make(map[string]annPos, len(raw.AnnLines))
					for key, l := range raw.AnnLines {
						if v, ok := ann[key]; ok {
							d.ann[key] = annPos{line: l, value: annotationText(v)}
						}
					}
				}
				docs = append(docs, d)
			}
		}
		li.cache[abs] = docs
	}
	var sameKind, contained []docPos
	for _, d := range docs {
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
