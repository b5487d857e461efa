package render

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/helmkeys"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/valuesschema"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// errLibraryChart marks a chart that cannot be rendered on its own.
var errLibraryChart = errors.New("library chart: it has no objects of its own")

// helmRequest is one chart render.
type helmRequest struct {
	chartDir string // absolute, inside the root
	values   HelmValues
	// trusted lets value files lie outside the root (command-line values).
	trusted bool
	// inline values are merged after files and --set (kustomize valuesInline).
	inline map[string]any
	// overFiles are merged after the value files and before --set (a
	// GitOps object's own values); setString are --set-string pairs.
	overFiles map[string]any
	setString []string
	// apiVersions and kubeVersion override the renderer's (kustomize helmCharts).
	apiVersions []string
	kubeVersion string
	// remote is a chart to fetch instead of chartDir.
	remote *remoteChart
	// skipTests drops helm.sh/hook: test* objects (always true except when
	// a kustomize helmCharts entry says otherwise); skipHooks drops all hooks.
	skipTests, skipHooks bool
}

// helmObject is one rendered object before its Origin.Source is known.
type helmObject struct {
	doc  map[string]any
	file string // root-relative slash path of the template
	line int
	// annLines are the annotation keys' lines, like line in the rendered output.
	annLines map[string]int
}

// renderChart renders a chart directory with the Helm SDK, client-only:
// no kube client (lookup returns empty), no DNS, no dependency download,
// no post-renderer. Warnings are returned as findings; err is fatal.
//
// Origin lines: Line is the 1-based line, in the template's *rendered*
// output, of the first line of the object's document (its first key).
// For templates without leading conditionals it matches the source line.
// Annotation lines are in the same rendered output.
func (rd *renderer) renderChart(req helmRequest) ([]helmObject, []check.Finding, error) {
	chrt, chartRel, err := rd.loadChart(req)
	if err != nil {
		return nil, nil, err
	}
	if chrt.Metadata != nil && chrt.Metadata.Type == "library" {
		return nil, nil, errLibraryChart
	}
	vals, err := rd.helmValues(req)
	if err != nil {
		return nil, nil, err
	}
	if req.remote != nil && len(req.remote.ValuesFiles) > 0 {
		fileVals, err := chartValuesFiles(chrt, req.remote.ValuesFiles)
		if err != nil {
			return nil, nil, err
		}
		vals = mergeMaps(fileVals, vals) // the object's own values win
	}
	findings, missing := rd.resolveDependencies(chrt, req.chartDir, chartRel, vals)
	out, fs, err := rd.renderLoaded(req, chrt, chartRel, vals)
	findings = append(findings, fs...)
	if err != nil && len(missing) > 0 {
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = depName(d)
		}
		err = &missingDepError{err: err, names: strings.Join(names, ", "), cause: missingCause(missing[0])}
	}
	return out, findings, err
}

// loadChart loads the chart of a request: its directory inside the root,
// or a remote chart through the fetcher.
func (rd *renderer) loadChart(req helmRequest) (*chart.Chart, string, error) {
	if req.remote != nil {
		c, err := rd.loadRemote(*req.remote)
		return c, req.remote.label(), err
	}
	r := rd.repo
	chartRel := r.Rel(req.chartDir)
	if err := checkTree(r, req.chartDir); err != nil {
		return nil, chartRel, err
	}
	if _, err := r.Stat(filepath.Join(req.chartDir, "Chart.yaml")); err != nil {
		return nil, chartRel, fmt.Errorf("%s: no Chart.yaml: %w", chartRel, err)
	}
	chrt, err := loadChartDir(r, req.chartDir)
	if err != nil {
		return nil, chartRel, fmt.Errorf("loading chart %s: %w", chartRel, err)
	}
	return chrt, chartRel, nil
}

// renderLoaded renders a loaded chart with its values.
func (rd *renderer) renderLoaded(req helmRequest, chrt *chart.Chart, chartRel string, vals map[string]any) ([]helmObject, []check.Finding, error) {
	r := rd.repo
	var findings []check.Finding
	caps, err := rd.capabilities(req)
	if err != nil {
		return nil, findings, err
	}
	if err := chartutil.ProcessDependenciesWithMerge(chrt, vals); err != nil {
		return nil, findings, fmt.Errorf("chart %s dependencies: %w", chartRel, err)
	}
	if c := chrt.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, caps.KubeVersion.String()) {
		return nil, findings, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s (set the Kubernetes version to render against)", c, caps.KubeVersion.String())
	}
	relOpts := chartutil.ReleaseOptions{
		Name:      req.values.ReleaseName,
		Namespace: req.values.Namespace,
		Revision:  1,
		IsInstall: true,
	}
	schemaFinding := valuesschema.RefFinding(chrt, chartRel)
	if schemaFinding != nil {
		findings = append(findings, *schemaFinding)
	}
	renderVals, err := chartutil.ToRenderValuesWithSchemaValidation(chrt, vals, relOpts, caps, schemaFinding != nil)
	if err != nil {
		return nil, findings, err
	}
	var eng engine.Engine // no client: lookup returns empty; EnableDNS false
	keyed, rewritten := helmkeys.Rewrite(chrt)
	files, err := eng.Render(keyed, renderVals)
	if err != nil {
		return nil, findings, err
	}

	dirs := rd.templateDirs(req)
	fileOf := func(name string) string {
		if req.remote != nil {
			return req.remote.label() + "/" + strings.SplitN(name, "/", 2)[1]
		}
		return dirs.templateFile(r, name)
	}
	if f := helmkeys.Finding(chartRel, rewritten, files, fileOf); f != nil {
		findings = append(findings, *f)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	var out []helmObject
	for _, name := range names {
		content := files[name]
		if strings.TrimSpace(content) == "" {
			continue
		}
		file := fileOf(name)
		raws, problems, err := yamldoc.Decode([]byte(content), rd.opts.MaxObjects-len(out))
		if err != nil {
			if errors.Is(err, yamldoc.ErrTooManyObjects) {
				return nil, findings, fmt.Errorf("%w: more than %d objects", yamldoc.ErrTooManyObjects, rd.opts.MaxObjects)
			}
			return nil, findings, err
		}
		if len(problems) > 0 {
			p := problems[0]
			if errors.Is(p.Err, yamldoc.ErrAliasBudget) {
				return nil, findings, &docError{file: file, line: p.Line, err: p.Err}
			}
			return nil, findings, &docError{file: file, line: p.Line, err: fmt.Errorf("YAML parse error on %s: %w", name, p.Err)}
		}
		objs, fs := templateObjects(raws, file, req)
		out, findings = append(out, objs...), append(findings, fs...)
	}
	return out, findings, nil
}

// capabilities are what the chart's templates see of the cluster: the
// Kubernetes version asked for (the request's, else the run's) and the
// API versions given.
func (rd *renderer) capabilities(req helmRequest) (*chartutil.Capabilities, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	kv := rd.opts.KubeVersion
	if req.kubeVersion != "" {
		kv = req.kubeVersion
	}
	kver, err := chartutil.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("kube version %q: %w", kv, err)
	}
	caps.KubeVersion = *kver
	caps.APIVersions = append(caps.APIVersions, rd.opts.APIVersions...)
	caps.APIVersions = append(caps.APIVersions, req.apiVersions...)
	return caps, nil
}

// templateObjects keeps the objects of one rendered template that the
// render installs (test hooks and, when asked, all hooks left out), with
// findings for documents that are no object or repeat a key.
func templateObjects(raws []yamldoc.Raw, file string, req helmRequest) ([]helmObject, []check.Finding) {
	var out []helmObject
	var findings []check.Finding
	for _, raw := range raws {
		if isTestHook(raw.Doc) && req.skipTests || req.skipHooks && hookOf(raw.Doc) != "" {
			continue
		}
		if _, ok := object.FromDoc(raw.Doc); !ok {
			findings = append(findings, check.Finding{Check: check.NotAnObject, Severity: check.SeverityInfo,
				Message:  fmt.Sprintf("%s:%d: rendered document has no apiVersion or kind; skipped", file, raw.Line),
				Location: check.At(file, raw.Line)})
			continue
		}
		if len(raw.DupKeys) > 0 {
			findings = append(findings, duplicateKeyFinding(file, raw))
		}
		out = append(out, helmObject{doc: raw.Doc, file: file, line: raw.Line, annLines: raw.AnnLines})
	}
	return out, findings
}

// docError is a document-level failure at file:line.
type docError struct {
	file string
	line int
	err  error
}

func (e *docError) Error() string {
	if e.line <= 0 {
		return fmt.Sprintf("%s: %v", e.file, e.err)
	}
	return fmt.Sprintf("%s:%d: %v", e.file, e.line, e.err)
}
func (e *docError) Unwrap() error { return e.err }

// helmValues merges value files (in order), --set pairs and inline values
// with `helm template` semantics. Value files are read through the
// repository: inside the root (unless trusted), no symlink escape, within
// the size limit, no alias bomb.
func (rd *renderer) helmValues(req helmRequest) (map[string]any, error) {
	var files []valuesData
	for _, f := range req.values.ValuesFiles {
		v, err := rd.valuesFile(req.chartDir, f, req.trusted)
		if err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		files = append(files, v)
	}
	vals, err := mergeValueFiles(files)
	if err != nil {
		return nil, err
	}
	if req.overFiles != nil {
		vals = mergeMaps(vals, req.overFiles)
		for _, s := range req.values.Set {
			if err := strvals.ParseInto(s, vals); err != nil {
				return nil, fmt.Errorf("parameter %q: %w", s, err)
			}
		}
		for _, s := range req.setString {
			if err := strvals.ParseIntoString(s, vals); err != nil {
				return nil, fmt.Errorf("parameter %q: %w", s, err)
			}
		}
	} else if err := setValues(vals, req.values.Set, req.setString); err != nil {
		return nil, err
	}
	if req.inline != nil {
		vals = mergeMaps(vals, req.inline)
	}
	return vals, nil
}

// valuesData is a value file, read.
type valuesData struct {
	path string
	data []byte
}

// mergeValueFiles merges value files in order, as Helm's
// values.Options.MergeValues does with -f files.
func mergeValueFiles(files []valuesData) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		if _, err := url.Parse(f.path); err != nil {
			return nil, err // as Helm's readFile, which takes a path for a URL
		}
		cur := map[string]any{}
		if err := sigsyaml.Unmarshal(f.data, &cur); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f.path, err)
		}
		base = mergeMaps(base, cur)
	}
	return base, nil
}

// setValues applies --set, then --set-string pairs, as MergeValues does.
func setValues(vals map[string]any, set, setString []string) error {
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, s := range setString {
		if err := strvals.ParseIntoString(s, vals); err != nil {
			return fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	return nil
}

// valuesFile resolves and reads a value file: relative paths are looked
// up in the working directory (trusted, command-line values only, on
// disk), then in the chart directory, then in the root.
func (rd *renderer) valuesFile(chartDir, f string, trusted bool) (valuesData, error) {
	r := rd.repo
	if filepath.IsAbs(f) {
		if trusted {
			return readValues(r, f, true)
		}
		if !r.Within(filepath.Clean(f)) {
			return valuesData{}, &repofs.PathError{Rel: f, Err: repofs.ErrEscape}
		}
		return readValues(r, f, false)
	}
	if trusted && r.OnDisk() {
		// Command-line paths are relative to the working directory.
		if abs, err := filepath.Abs(f); err == nil {
			if _, err := r.Stat(abs); err == nil {
				return readValues(r, abs, true)
			}
		}
	}
	candidates := []string{filepath.Join(chartDir, filepath.FromSlash(f)), filepath.Join(rd.scope, filepath.FromSlash(f)), r.Abs(f)}
	var escaped, missing error
	for _, c := range candidates {
		if !r.Within(filepath.Clean(c)) {
			escaped = &repofs.PathError{Rel: f, Err: repofs.ErrEscape}
			continue
		}
		if _, err := r.Lstat(c); err != nil {
			if missing == nil {
				missing = fmt.Errorf("not found in the chart directory nor the root")
			}
			continue
		}
		return readValues(r, c, false)
	}
	if escaped != nil {
		return valuesData{}, escaped
	}
	return valuesData{}, missing
}

// readValues reads a value file (a trusted one from anywhere its file
// system reaches) and refuses an alias bomb.
func readValues(r *repo, p string, trusted bool) (valuesData, error) {
	read := r.ReadFile
	if trusted {
		read = r.ReadTrusted
	}
	data, err := read(p)
	if err != nil {
		return valuesData{path: p}, err
	}
	return valuesData{path: p, data: data}, yamldoc.CheckAliases(data)
}

// mergeMaps deep-merges b onto a (b wins), like Helm's -f merging.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bv, ok := v.(map[string]any); ok {
			if av, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(av, bv)
				continue
			}
		}
		out[k] = v
	}
	return out
}

func hookOf(doc map[string]any) string {
	md, _ := doc["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	h, _ := ann["helm.sh/hook"].(string)
	return h
}

// isTestHook reports helm.sh/hook: test, test-success, test-failure.
func isTestHook(doc map[string]any) bool {
	for _, h := range strings.Split(hookOf(doc), ",") {
		if strings.HasPrefix(strings.TrimSpace(h), "test") {
			return true
		}
	}
	return false
}

// chartTree maps template keys ("name/charts/sub/templates/x.yaml") back to
// files on disk.
type chartTree struct {
	dir  string                // chart directory (or .tgz archive)
	subs map[string]*chartTree // by chart name and by dependency alias
}

// chartDirs maps the chart at dir and its vendored subcharts. Chart.yaml
// files are read through the repository, like every other read: one that
// is too large or a symlink out of the root is not read, so its aliases,
// or the subchart, are left out.
func chartDirs(r *repo, dir string) *chartTree {
	t := &chartTree{dir: dir, subs: map[string]*chartTree{}}
	aliases := map[string][]string{} // chart name -> aliases
	if md, ok := chartMetadata(r, dir); ok {
		for _, d := range md.Dependencies {
			if d != nil && d.Alias != "" {
				aliases[d.Name] = append(aliases[d.Name], d.Alias)
			}
		}
	}
	ents, err := r.ReadDir(filepath.Join(dir, "charts"))
	if err != nil {
		return t
	}
	for _, e := range ents {
		p := filepath.Join(dir, "charts", e.Name())
		var sub *chartTree
		var name string
		if strings.HasSuffix(e.Name(), ".tgz") {
			sub = &chartTree{dir: p, subs: map[string]*chartTree{}}
			name = strings.TrimSuffix(e.Name(), ".tgz")
			if i := strings.LastIndex(name, "-"); i > 0 {
				name = name[:i]
			}
		} else {
			md, ok := chartMetadata(r, p)
			if !ok {
				continue
			}
			name = md.Name
			sub = chartDirs(r, p)
		}
		t.subs[name] = sub
		t.subs[e.Name()] = sub
		for _, a := range aliases[name] {
			t.subs[a] = sub
		}
	}
	return t
}

// chartMetadata reads and decodes dir/Chart.yaml; ok is false when it
// cannot be read from the repository or does not decode.
func chartMetadata(r *repo, dir string) (*chart.Metadata, bool) {
	data, err := r.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, false
	}
	var md chart.Metadata
	if sigsyaml.Unmarshal(data, &md) != nil {
		return nil, false
	}
	return &md, true
}

// templateFile turns a rendered template key into a root-relative path.
func (t *chartTree) templateFile(r *repo, key string) string {
	parts := strings.Split(key, "/")
	cur := t
	i := 1
	for i+1 < len(parts) && parts[i] == "charts" {
		sub, ok := cur.subs[parts[i+1]]
		if !ok {
			break
		}
		cur = sub
		i += 2
	}
	rest := strings.Join(parts[i:], "/")
	if strings.HasSuffix(cur.dir, ".tgz") {
		return r.Rel(cur.dir) + "/" + rest
	}
	return path.Join(r.Rel(cur.dir), rest)
}
