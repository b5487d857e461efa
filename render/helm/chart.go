package helm

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
	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/helmkeys"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/valuesschema"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Render renders a chart directory with the Helm SDK, client-only:
// no kube client (lookup returns empty), no DNS, no dependency download,
// no post-renderer. Warnings are returned as findings; err is fatal.
//
// Origin lines: Line is the 1-based line, in the template's *rendered*
// output, of the first line of the object's document (its first key).
// For templates without leading conditionals it matches the source line.
// Annotation lines are in the same rendered output.
func (h *Renderer) Render(req Request) ([]Object, []check.Finding, error) {
	chrt, chartRel, err := h.loadChart(req)
	if err != nil {
		return nil, nil, err
	}
	if chrt.Metadata != nil && chrt.Metadata.Type == "library" {
		return nil, nil, ErrLibraryChart
	}
	vals, err := h.helmValues(req)
	if err != nil {
		return nil, nil, err
	}
	if req.Remote != nil && len(req.Remote.ValuesFiles) > 0 {
		fileVals, err := chartValuesFiles(chrt, req.Remote.ValuesFiles)
		if err != nil {
			return nil, nil, err
		}
		vals = chartspec.MergeMaps(fileVals, vals) // the object's own values win
	}
	findings, missing := h.resolveDependencies(chrt, req.ChartDir, chartRel, vals)
	out, fs, err := h.renderLoaded(req, chrt, chartRel, vals)
	findings = append(findings, fs...)
	if err != nil && len(missing) > 0 {
		names := make([]string, len(missing))
		for i, d := range missing {
			names[i] = DepName(d)
		}
		err = &MissingDepError{Err: err, Names: strings.Join(names, ", "), Cause: MissingCause(missing[0])}
	}
	return out, findings, err
}

// loadChart loads the chart of a request: its directory inside the root,
// or a remote chart through the fetcher.
func (h *Renderer) loadChart(req Request) (*chart.Chart, string, error) {
	if req.Remote != nil {
		c, err := h.loadRemote(*req.Remote)
		return c, req.Remote.Label(), err
	}
	r := h.Repo
	chartRel := r.Rel(req.ChartDir)
	if err := CheckTree(r, req.ChartDir); err != nil {
		return nil, chartRel, err
	}
	if _, err := r.Stat(filepath.Join(req.ChartDir, "Chart.yaml")); err != nil {
		return nil, chartRel, fmt.Errorf("%s: no Chart.yaml: %w", chartRel, err)
	}
	chrt, err := LoadDir(r, req.ChartDir)
	if err != nil {
		return nil, chartRel, fmt.Errorf("loading chart %s: %w", chartRel, err)
	}
	return chrt, chartRel, nil
}

// renderLoaded renders a loaded chart with its values.
func (h *Renderer) renderLoaded(req Request, chrt *chart.Chart, chartRel string, vals map[string]any) ([]Object, []check.Finding, error) {
	r := h.Repo
	var findings []check.Finding
	caps, err := h.capabilities(req)
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
		Name:      req.Values.ReleaseName,
		Namespace: req.Values.Namespace,
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

	dirs := h.templateDirs(req)
	fileOf := func(name string) string {
		if req.Remote != nil {
			return req.Remote.Label() + "/" + strings.SplitN(name, "/", 2)[1]
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
	var out []Object
	for _, name := range names {
		content := files[name]
		if strings.TrimSpace(content) == "" {
			continue
		}
		file := fileOf(name)
		raws, problems, err := yamldoc.Decode([]byte(content), h.MaxObjects-len(out))
		if err != nil {
			if errors.Is(err, yamldoc.ErrTooManyObjects) {
				return nil, findings, fmt.Errorf("%w: more than %d objects", yamldoc.ErrTooManyObjects, h.MaxObjects)
			}
			return nil, findings, err
		}
		if len(problems) > 0 {
			p := problems[0]
			if errors.Is(p.Err, yamldoc.ErrAliasBudget) {
				return nil, findings, &yamldoc.DocError{File: file, Line: p.Line, Err: p.Err}
			}
			return nil, findings, &yamldoc.DocError{File: file, Line: p.Line, Err: fmt.Errorf("YAML parse error on %s: %w", name, p.Err)}
		}
		objs, fs := templateObjects(raws, file, req)
		out, findings = append(out, objs...), append(findings, fs...)
	}
	return out, findings, nil
}

// capabilities are what the chart's templates see of the cluster: the
// Kubernetes version asked for (the request's, else the run's) and the
// API versions given.
func (h *Renderer) capabilities(req Request) (*chartutil.Capabilities, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	kv := h.KubeVersion
	if req.KubeVersion != "" {
		kv = req.KubeVersion
	}
	kver, err := chartutil.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("kube version %q: %w", kv, err)
	}
	caps.KubeVersion = *kver
	caps.APIVersions = append(caps.APIVersions, h.APIVersions...)
	caps.APIVersions = append(caps.APIVersions, req.APIVersions...)
	return caps, nil
}

// templateObjects keeps the objects of one rendered template that the
// render installs (test hooks and, when asked, all hooks left out), with
// findings for documents that are no object or repeat a key.
func templateObjects(raws []yamldoc.Raw, file string, req Request) ([]Object, []check.Finding) {
	var out []Object
	var findings []check.Finding
	for _, raw := range raws {
		if IsTestHook(raw.Doc) && req.SkipTests || req.SkipHooks && HookOf(raw.Doc) != "" {
			continue
		}
		if _, ok := object.FromDoc(raw.Doc); !ok {
			findings = append(findings, check.Finding{Check: check.NotAnObject, Severity: check.SeverityInfo,
				Message:  fmt.Sprintf("%s:%d: rendered document has no apiVersion or kind; skipped", file, raw.Line),
				Location: check.At(file, raw.Line)})
			continue
		}
		if len(raw.DupKeys) > 0 {
			findings = append(findings, object.DuplicateKeyFinding(file, raw.Line, raw.DupKeys))
		}
		out = append(out, Object{Doc: raw.Doc, File: file, Line: raw.Line, AnnLines: raw.AnnLines})
	}
	return out, findings
}

// helmValues merges value files (in order), --set pairs and inline values
// with `helm template` semantics. Value files are read through the
// repository: inside the root (unless trusted), no symlink escape, within
// the size limit, no alias bomb.
func (h *Renderer) helmValues(req Request) (map[string]any, error) {
	var files []ValuesFile
	for _, f := range req.Values.ValuesFiles {
		v, err := h.valuesFile(req.ChartDir, f, req.Trusted)
		if err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		files = append(files, v)
	}
	vals, err := MergeValueFiles(files)
	if err != nil {
		return nil, err
	}
	if req.OverFiles != nil {
		vals = chartspec.MergeMaps(vals, req.OverFiles)
		for _, s := range req.Values.Set {
			if err := strvals.ParseInto(s, vals); err != nil {
				return nil, fmt.Errorf("parameter %q: %w", s, err)
			}
		}
		for _, s := range req.SetString {
			if err := strvals.ParseIntoString(s, vals); err != nil {
				return nil, fmt.Errorf("parameter %q: %w", s, err)
			}
		}
	} else if err := SetValues(vals, req.Values.Set, req.SetString); err != nil {
		return nil, err
	}
	if req.Inline != nil {
		vals = chartspec.MergeMaps(vals, req.Inline)
	}
	return vals, nil
}

// valuesFile resolves and reads a value file: relative paths are looked
// up in the working directory (trusted, command-line values only, on
// disk), then in the chart directory, then in the root.
func (h *Renderer) valuesFile(chartDir, f string, trusted bool) (ValuesFile, error) {
	r := h.Repo
	if filepath.IsAbs(f) {
		if trusted {
			return ReadValues(r, f, true)
		}
		if !r.Within(filepath.Clean(f)) {
			return ValuesFile{}, &repofs.PathError{Rel: f, Err: repofs.ErrEscape}
		}
		return ReadValues(r, f, false)
	}
	if trusted && r.OnDisk() {
		// Command-line paths are relative to the working directory.
		if abs, err := filepath.Abs(f); err == nil {
			if _, err := r.Stat(abs); err == nil {
				return ReadValues(r, abs, true)
			}
		}
	}
	candidates := []string{filepath.Join(chartDir, filepath.FromSlash(f)), filepath.Join(h.Scope, filepath.FromSlash(f)), r.Abs(f)}
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
		return ReadValues(r, c, false)
	}
	if escaped != nil {
		return ValuesFile{}, escaped
	}
	return ValuesFile{}, missing
}

// chartValuesFiles merges value files inside a loaded chart in order; a
// missing one is an error, as helm-controller and the repo-server report.
func chartValuesFiles(chrt *chart.Chart, files []string) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range files {
		var data []byte
		for _, raw := range chrt.Raw {
			if raw.Name == strings.TrimPrefix(f, "./") {
				data = raw.Data
			}
		}
		if data == nil {
			return nil, fmt.Errorf("values file %q is not in chart %s", f, chrt.Name())
		}
		if err := yamldoc.CheckAliases(data); err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		v, err := chartutil.ReadValues(data)
		if err != nil {
			return nil, fmt.Errorf("values file %q: %w", f, err)
		}
		out = chartspec.MergeMaps(out, v)
	}
	return out, nil
}
