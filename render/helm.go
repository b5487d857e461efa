package render

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
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
		vals = helm.MergeMaps(fileVals, vals) // the object's own values win
	}
	findings, missing := rd.resolveDependencies(chrt, req.chartDir, chartRel, vals)
	out, fs, err := rd.renderLoaded(req, chrt, chartRel, vals)
	findings = append(findings, fs...)
	if err != nil && len(missing) > 0 {
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = helm.DepName(d)
		}
		err = &helm.MissingDepError{Err: err, Names: strings.Join(names, ", "), Cause: helm.MissingCause(missing[0])}
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
	chrt, err := helm.LoadDir(r, req.chartDir)
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
		return dirs.TemplateFile(r, name)
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
		if helm.IsTestHook(raw.Doc) && req.skipTests || req.skipHooks && helm.HookOf(raw.Doc) != "" {
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
	var files []helm.ValuesFile
	for _, f := range req.values.ValuesFiles {
		v, err := rd.valuesFile(req.chartDir, f, req.trusted)
		if err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		files = append(files, v)
	}
	vals, err := helm.MergeValueFiles(files)
	if err != nil {
		return nil, err
	}
	if req.overFiles != nil {
		vals = helm.MergeMaps(vals, req.overFiles)
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
	} else if err := helm.SetValues(vals, req.values.Set, req.setString); err != nil {
		return nil, err
	}
	if req.inline != nil {
		vals = helm.MergeMaps(vals, req.inline)
	}
	return vals, nil
}

// valuesFile resolves and reads a value file: relative paths are looked
// up in the working directory (trusted, command-line values only, on
// disk), then in the chart directory, then in the root.
func (rd *renderer) valuesFile(chartDir, f string, trusted bool) (helm.ValuesFile, error) {
	r := rd.repo
	if filepath.IsAbs(f) {
		if trusted {
			return helm.ReadValues(r, f, true)
		}
		if !r.Within(filepath.Clean(f)) {
			return helm.ValuesFile{}, &repofs.PathError{Rel: f, Err: repofs.ErrEscape}
		}
		return helm.ReadValues(r, f, false)
	}
	if trusted && r.OnDisk() {
		// Command-line paths are relative to the working directory.
		if abs, err := filepath.Abs(f); err == nil {
			if _, err := r.Stat(abs); err == nil {
				return helm.ReadValues(r, abs, true)
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
		return helm.ReadValues(r, c, false)
	}
	if escaped != nil {
		return helm.ValuesFile{}, escaped
	}
	return helm.ValuesFile{}, missing
}
