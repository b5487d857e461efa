package render

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// skippedDirs are never descended into (besides hidden directories).
var skippedDirs = map[string]bool{"vendor": true, "node_modules": true, "third_party": true, "bower_components": true}

func isYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}

var (
	apiVersionLine = regexp.MustCompile(`(?m)^["']?apiVersion["']?\s*:\s*\S`)
	kindLine       = regexp.MustCompile(`(?m)^["']?kind["']?\s*:\s*\S`)
)

// looksLikeManifest is discovery's cheap test for plain YAML: a top-level
// apiVersion and kind key somewhere in the file.
func looksLikeManifest(data []byte) bool {
	return apiVersionLine.Match(data) && kindLine.Match(data)
}

// discover lists the sources: explicit ones first (they own their paths),
// then what a walk of the rest of the root finds, less what kustomizations
// and value sets refer to, sorted by path and value-set name.
func (rd *renderer) discover() ([]SourceSpec, []check.Finding) {
	explicit, findings := rd.explicitSources()
	w := &sourceWalk{r: rd.repo, scope: rd.scope, maxBytes: rd.opts.MaxFileBytes, owned: ownedPaths(explicit), kustDirs: map[string]bool{}}
	_ = rd.repo.WalkDir(rd.scope, w.visit)
	findings = append(findings, w.findings...)

	refs := rd.findReferences(w.kusts, explicit)
	rd.manifests, rd.kustDirs = manifestFiles(w.plains, refs.files), w.kustDirs
	specs := append(w.unreferenced(refs), explicit...)
	sort.SliceStable(specs, func(i, j int) bool {
		if specs[i].Path != specs[j].Path {
			return specs[i].Path < specs[j].Path
		}
		return specs[i].Name < specs[j].Name
	})
	return specs, findings
}

// explicitSources checks opts.Sources: each one inside the root and present
// is kept, with a clean path and its type detected; the others are
// findings (a missing path once, however many value sets name it).
func (rd *renderer) explicitSources() ([]SourceSpec, []check.Finding) {
	r := rd.repo
	var explicit []SourceSpec
	var findings []check.Finding
	reported := map[string]bool{}
	for _, s := range rd.opts.Sources {
		p := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s.Path)))
		if p == "" {
			p = "."
		}
		abs := r.Abs(p)
		if filepath.IsAbs(filepath.FromSlash(s.Path)) || !r.Within(abs) {
			findings = append(findings, check.Finding{Check: check.PathEscape, Severity: check.SeverityError, Source: s.ID(),
				Message: fmt.Sprintf("source %q leaves the repository root; not rendered", s.Path)})
			continue
		}
		if _, err := r.Resolve(abs); err != nil {
			if !reported[p] {
				reported[p] = true
				findings = append(findings, missingSourceFinding(s, p, err))
			}
			continue
		}
		s.Path = p
		s.Explicit = true
		if s.Type == "" {
			s.Type = detectType(r, abs)
		}
		explicit = append(explicit, s)
	}
	return explicit, findings
}

// missingSourceFinding reports an explicit source whose path p (clean,
// root-relative) does not resolve. The message names the path as
// configured: the runner's absolute directory means nothing to the reader
// of a report.
func missingSourceFinding(s SourceSpec, p string, err error) check.Finding {
	f := check.Finding{Check: check.SourceMissing, Severity: check.SeverityError, Source: s.ID(), Location: check.At(p, 0),
		Message: fmt.Sprintf("source %q does not exist in the repository; not rendered", s.Path)}
	if c := repofs.CheckFor(err); c != "" {
		f.Check = c
		f.Message = fmt.Sprintf("source %q: %v", s.Path, err)
	}
	return f
}

// owned are the root-relative paths of explicit sources: discovery leaves
// them and everything below them alone.
type owned []string

func ownedPaths(explicit []SourceSpec) owned {
	var o owned
	for _, s := range explicit {
		o = append(o, s.Path)
	}
	return o
}

func (o owned) owns(rel string) bool {
	for _, p := range o {
		if p == "." || rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// sourceWalk collects what a walk of the root finds: charts, Kustomize
// roots and plain manifests (root-relative), and the symlinks it refused.
type sourceWalk struct {
	r        *repo
	scope    string // the directory walked
	maxBytes int64
	owned    owned

	charts, kusts, plains []string
	kustDirs              map[string]bool
	findings              []check.Finding
}

// visit is the fs.WalkDirFunc of the walk.
func (w *sourceWalk) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return nil
	}
	rel := w.r.Rel(p)
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		// Symlinks inside the root are not followed: their targets are
		// discovered where they live.
		w.symlink(p, rel, d)
		return nil
	case d.IsDir():
		return w.dir(p, rel, d)
	}
	w.file(p, rel, d)
	return nil
}

// symlink reports a link that escapes the root if it would have been a
// source (a YAML file outside kustomizations, a directory); a
// kustomization reports its own.
func (w *sourceWalk) symlink(p, rel string, d fs.DirEntry) {
	if w.kustDirs[path.Dir(rel)] || w.owned.owns(rel) {
		return
	}
	if fi, err := w.r.Stat(p); err != nil || (!fi.IsDir() && !isYAMLName(d.Name())) {
		return
	}
	if _, err := w.r.Resolve(p); err != nil {
		if c := repofs.CheckFor(err); c != "" {
			w.findings = append(w.findings, check.Finding{Check: c, Severity: check.SeverityError, Location: check.At(rel, 0), Source: rel,
				Message: fmt.Sprintf("%s: refused: %v", rel, err)})
		}
	}
}

// dir records a chart (whose templates, values, ci/ and charts/ belong to
// it) or a Kustomize root, and skips hidden, vendored and owned directories.
func (w *sourceWalk) dir(p, rel string, d fs.DirEntry) error {
	if p != w.scope && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
		return filepath.SkipDir
	}
	if w.owned.owns(rel) {
		return filepath.SkipDir
	}
	if kustscan.IsChartDir(w.r, p) {
		w.charts = append(w.charts, rel)
		return filepath.SkipDir
	}
	if kustscan.KustomizationFile(w.r, p) != "" {
		w.kusts = append(w.kusts, rel)
		w.kustDirs[rel] = true
	}
	return nil
}

// file records a visible YAML file that looks like a manifest, outside
// owned paths and kustomization directories. A file over the size limit
// is kept unread, so that its refusal is reported when it is rendered.
func (w *sourceWalk) file(p, rel string, d fs.DirEntry) {
	if !d.Type().IsRegular() || !isYAMLName(d.Name()) || strings.HasPrefix(d.Name(), ".") {
		return
	}
	if w.owned.owns(rel) || w.kustDirs[path.Dir(rel)] {
		return
	}
	fi, err := d.Info()
	if err != nil {
		return
	}
	if fi.Size() > w.maxBytes {
		w.plains = append(w.plains, rel)
		return
	}
	data, err := w.r.ReadFile(p)
	if err == nil {
		data, _ = normalizeText(data)
	}
	if err != nil || !looksLikeManifest(data) {
		return
	}
	w.plains = append(w.plains, rel)
}

// manifestFiles are the YAML files among the plain manifests and the files
// kustomizations refer to, sorted.
func manifestFiles(plains []string, referenced map[string]bool) []string {
	files := slices.Clone(plains)
	for f := range referenced {
		if isYAMLName(f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// references is what kustomizations and value sets refer to, by
// root-relative path: it is rendered through them, not on its own.
type references struct {
	dirs, files map[string]bool
	// components are Kustomize roots that are components.
	components map[string]bool
}

// findReferences scans the discovered and explicit Kustomize roots and the
// explicit sources' value files.
func (rd *renderer) findReferences(kusts []string, explicit []SourceSpec) references {
	r := rd.repo
	refs := references{dirs: map[string]bool{}, files: map[string]bool{}, components: map[string]bool{}}
	scanned := append([]string(nil), kusts...)
	for _, s := range explicit {
		if s.Type == SourceKustomize {
			scanned = append(scanned, s.Path)
		}
	}
	for _, k := range scanned {
		sc := kustscan.New(r)
		sc.Scan(r.Abs(k), false)
		for _, d := range sc.Dirs {
			if d != r.Abs(k) {
				refs.dirs[r.Rel(d)] = true
			}
		}
		for _, f := range sc.Files {
			refs.files[r.Rel(f)] = true
		}
		for _, c := range sc.Charts {
			refs.dirs[r.Rel(c)] = true
		}
		if sc.RootIsComponent {
			refs.components[k] = true
		}
	}
	for _, s := range rd.opts.Sources {
		for _, f := range s.Helm.ValuesFiles {
			refs.files[path.Clean(filepath.ToSlash(f))] = true
		}
	}
	return refs
}

// unreferenced returns what the walk found and nothing refers to, as
// sources: charts, then Kustomize roots (components excepted), then plain
// manifests.
func (w *sourceWalk) unreferenced(refs references) []SourceSpec {
	var specs []SourceSpec
	for _, c := range w.charts {
		if !refs.dirs[c] {
			specs = append(specs, SourceSpec{Path: c, Type: SourceHelm})
		}
	}
	for _, k := range w.kusts {
		if !refs.dirs[k] && !refs.components[k] {
			specs = append(specs, SourceSpec{Path: k, Type: SourceKustomize})
		}
	}
	for _, p := range w.plains {
		if !refs.files[p] {
			specs = append(specs, SourceSpec{Path: p, Type: SourcePlain})
		}
	}
	return specs
}

func detectType(r *repo, abs string) SourceType {
	fi, err := r.Stat(abs)
	if err != nil || !fi.IsDir() {
		return SourcePlain
	}
	if kustscan.IsChartDir(r, abs) {
		return SourceHelm
	}
	if kustscan.KustomizationFile(r, abs) != "" {
		return SourceKustomize
	}
	return SourcePlain
}

// plainFiles lists the YAML files of a plain directory source: every one
// below it (hidden and vendored directories excepted), or, for an Argo CD
// directory source, those its recurse, include and exclude select (JSON
// files too, as Argo CD reads them).
func (rd *renderer) plainFiles(abs string, d *deliverySpec) []string {
	var dir *dirOptions
	if d != nil {
		dir = d.Dir
	}
	var files []string
	_ = rd.repo.WalkDir(abs, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if p != abs && (strings.HasPrefix(e.Name(), ".") || skippedDirs[e.Name()] || (dir != nil && !dir.Recurse)) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(e.Name(), ".") {
			return nil
		}
		if dir == nil {
			if isYAMLName(e.Name()) {
				files = append(files, p)
			}
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, abs+string(filepath.Separator)))
		if dir.Selects(rel, e.Name()) {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// renderPlainSource renders a plain file, or every YAML file under a
// directory (hidden and vendor directories excepted).
func (rd *renderer) renderPlainSource(spec SourceSpec, meta *renderMeta) ([]Object, []check.Finding, error) {
	r := rd.repo
	abs := r.Abs(spec.Path)
	real, err := r.Resolve(abs)
	if err != nil {
		return nil, nil, err
	}
	fi, err := r.Stat(real)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	var findings []check.Finding
	if fi.IsDir() {
		files = rd.plainFiles(abs, spec.Delivery)
		meta.covered = append(meta.covered, spec.Path)
	} else {
		files = []string{abs}
	}
	var objs []Object
	for _, f := range files {
		meta.covered = append(meta.covered, r.Rel(f))
		data, err := r.ReadFile(f)
		if err != nil {
			if fi.IsDir() && repofs.CheckFor(err) != "" {
				// One bad file in a directory: report it, render the rest.
				fd := failureFinding(spec, err)
				fd.Severity = check.SeverityError
				findings = append(findings, fd)
				continue
			}
			return nil, findings, err
		}
		rel := r.Rel(f)
		data, note := normalizeText(data)
		if note != "" {
			findings = append(findings, check.Finding{Check: check.YAMLEncoding, Severity: check.SeverityInfo, Location: check.At(rel, 0),
				Message: fmt.Sprintf("%s: the file has %s; read as UTF-8 YAML with newline breaks (kubectl and other tools may read it differently)", rel, note)})
		}
		raws, problems, err := yamldoc.Decode(data, rd.opts.MaxObjects-len(objs))
		if err != nil {
			return nil, findings, fmt.Errorf("%s: %w: more than %d objects", rel, err, rd.opts.MaxObjects)
		}
		for _, p := range problems {
			f := check.Finding{Check: check.YAMLInvalid, Severity: check.SeverityError, Location: check.At(rel, p.Line),
				Message: fmt.Sprintf("%s:%d: document not decoded: %v", rel, p.Line, p.Err)}
			if p.Err == yamldoc.ErrAliasBudget {
				f.Check = check.YAMLAliasBomb
				f.Message = fmt.Sprintf("%s:%d: document refused: %v", rel, p.Line, p.Err)
			}
			findings = append(findings, f)
		}
		for _, raw := range raws {
			o, ok := object.FromDoc(raw.Doc)
			if !ok {
				findings = append(findings, check.Finding{Check: check.NotAnObject, Severity: check.SeverityInfo, Location: check.At(rel, raw.Line),
					Message: fmt.Sprintf("%s:%d: document has no apiVersion or kind; skipped", rel, raw.Line)})
				continue
			}
			o.Origin = Origin{Source: spec.ID(), SourceType: SourcePlain, File: rel, Line: raw.Line, AnnotationLines: raw.AnnLines}
			if len(raw.DupKeys) > 0 {
				findings = append(findings, object.DuplicateKeyFinding(rel, raw.Line, raw.DupKeys))
			}
			objs = append(objs, o)
		}
	}
	// A file whose only documents were refused is a failed source.
	if !fi.IsDir() && len(objs) == 0 && hasErrorFinding(findings) {
		return nil, findings, fmt.Errorf("%s: no document could be decoded", spec.Path)
	}
	return objs, findings, nil
}

func hasErrorFinding(fs []check.Finding) bool {
	for _, f := range fs {
		if f.Severity == check.SeverityError {
			return true
		}
	}
	return false
}

// renderHelmSource renders a chart source.
func (rd *renderer) renderHelmSource(spec SourceSpec, meta *renderMeta) ([]Object, []check.Finding, error) {
	hv := spec.Helm
	trusted := false
	if !spec.Explicit {
		// Discovered charts take the command-line values, which are trusted.
		hv = rd.opts.Helm
		trusted = true
	}
	if hv.ReleaseName == "" {
		hv.ReleaseName = rd.opts.Helm.ReleaseName
	}
	if hv.Namespace == "" {
		hv.Namespace = rd.opts.Helm.Namespace
	}
	req := helm.Request{ChartDir: rd.repo.Abs(spec.Path), Values: hv, Trusted: trusted, SkipTests: true}
	if d := spec.Delivery; d != nil {
		req.OverFiles, req.SetString, req.Remote = d.HelmOverFiles, d.HelmSetString, d.Remote
	}
	meta.covered = append(meta.covered, spec.Path)
	hobjs, findings, err := rd.charts().Render(req)
	if err != nil {
		return nil, findings, err
	}
	objs := make([]Object, 0, len(hobjs))
	for _, h := range hobjs {
		o, _ := object.FromDoc(h.Doc)
		o.Origin = Origin{Source: spec.ID(), SourceType: SourceHelm, File: h.File, Line: h.Line, AnnotationLines: h.AnnLines}
		if spec.Delivery != nil {
			o.Origin.Via = spec.Path
		}
		// helm install -n puts namespace-less objects in the release namespace.
		object.SetDefaultNamespace(&o, hv.Namespace)
		objs = append(objs, o)
	}
	return objs, findings, nil
}
