package render

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// kustomizationNames are the file names krusty accepts, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// skippedDirs are never descended into (besides hidden directories).
var skippedDirs = map[string]bool{"vendor": true, "node_modules": true, "third_party": true, "bower_components": true}

// Discover lists the sources under root: Helm charts, Kustomize roots and
// plain manifests, each to be rendered once, with explicit opts.Sources
// replacing discovery under their paths. Findings name what discovery
// refused (symlinks out of the root, explicit paths that leave it).
func Discover(root string, opts Options) ([]SourceSpec, []Finding, error) {
	opts = opts.withDefaults()
	root, opts = fileRoot(root, opts)
	r, err := openRepo(root, opts.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	specs, findings := (&renderer{repo: r, opts: opts}).discover()
	return specs, findings, nil
}

func kustomizationFile(dir string) string {
	for _, n := range kustomizationNames {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

func isChartDir(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && !fi.IsDir()
}

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

func (rd *renderer) discover() ([]SourceSpec, []Finding) {
	r := rd.repo
	var findings []Finding

	// Explicit sources first: they own their paths.
	var explicit []SourceSpec
	var owned []string
	reported := map[string]bool{} // a missing path is one finding, however many value sets name it
	for _, s := range rd.opts.Sources {
		p := filepath.ToSlash(filepath.Clean(filepath.FromSlash(s.Path)))
		if p == "" {
			p = "."
		}
		abs := r.abs(p)
		if filepath.IsAbs(filepath.FromSlash(s.Path)) || !r.within(abs) {
			findings = append(findings, Finding{Check: CheckPathEscape, Severity: SeverityError, Source: s.ID(),
				Message: fmt.Sprintf("source %q leaves the repository root; not rendered", s.Path)})
			continue
		}
		if _, err := r.resolve(abs); err != nil {
			if reported[p] {
				continue
			}
			reported[p] = true
			// The message names the path as configured: the runner's
			// absolute directory means nothing to the reader of a report.
			f := Finding{Check: CheckSourceMissing, Severity: SeverityError, Source: s.ID(), File: p,
				Message: fmt.Sprintf("source %q does not exist in the repository; not rendered", s.Path)}
			if c := checkForPathError(err); c != "" {
				f.Check = c
				f.Message = fmt.Sprintf("source %q: %v", s.Path, err)
			}
			findings = append(findings, f)
			continue
		}
		s.Path = p
		s.explicit = true
		if s.Type == "" {
			s.Type = detectType(abs)
		}
		explicit = append(explicit, s)
		owned = append(owned, p)
	}
	ownedBy := func(rel string) bool {
		for _, o := range owned {
			if o == "." || rel == o || strings.HasPrefix(rel, o+"/") {
				return true
			}
		}
		return false
	}

	var charts, kusts, plains []string // root-relative
	kustDirs := map[string]bool{}
	_ = filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel := r.rel(p)
		if d.Type()&os.ModeSymlink != 0 {
			// Report links that would have been sources (YAML files outside
			// kustomizations, directories); a kustomization reports its own.
			if kustDirs[path.Dir(rel)] || ownedBy(rel) {
				return nil
			}
			if fi, err := os.Stat(p); err != nil || (!fi.IsDir() && !isYAMLName(d.Name())) {
				return nil
			}
			if _, err := r.resolve(p); err != nil {
				if c := checkForPathError(err); c != "" {
					findings = append(findings, Finding{Check: c, Severity: SeverityError, File: rel, Source: rel,
						Message: fmt.Sprintf("%s: refused: %v", rel, err)})
				}
			}
			// Symlinks inside the root are not followed: their targets are
			// discovered where they live.
			return nil
		}
		if d.IsDir() {
			if p != r.root && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
				return filepath.SkipDir
			}
			if ownedBy(rel) {
				return filepath.SkipDir
			}
			if isChartDir(p) {
				charts = append(charts, rel)
				return filepath.SkipDir // templates, values, ci/, charts/ belong to it
			}
			if kustomizationFile(p) != "" {
				kusts = append(kusts, rel)
				kustDirs[rel] = true
			}
			return nil
		}
		if !d.Type().IsRegular() || !isYAMLName(d.Name()) || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if ownedBy(rel) || kustDirs[path.Dir(rel)] {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if fi.Size() > rd.opts.MaxFileBytes {
			// Unknown content: keep it as a source so the refusal is reported.
			plains = append(plains, rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !looksLikeManifest(data) {
			return nil
		}
		plains = append(plains, rel)
		return nil
	})

	// What kustomizations refer to is rendered through them.
	referencedDirs := map[string]bool{}
	referencedFiles := map[string]bool{}
	components := map[string]bool{}
	scanned := append([]string(nil), kusts...)
	for _, s := range explicit {
		if s.Type == SourceKustomize {
			scanned = append(scanned, s.Path)
		}
	}
	for _, k := range scanned {
		sc := newKustScan(r)
		sc.scan(r.abs(k), false)
		for _, d := range sc.dirs {
			if d != r.abs(k) {
				referencedDirs[r.rel(d)] = true
			}
		}
		for _, f := range sc.files {
			referencedFiles[r.rel(f)] = true
		}
		for _, c := range sc.charts {
			referencedDirs[r.rel(c)] = true
		}
		if sc.rootIsComponent {
			components[k] = true
		}
	}
	for _, s := range rd.opts.Sources {
		for _, f := range s.Helm.ValuesFiles {
			referencedFiles[path.Clean(filepath.ToSlash(f))] = true
		}
	}

	var specs []SourceSpec
	for _, c := range charts {
		if !referencedDirs[c] {
			specs = append(specs, SourceSpec{Path: c, Type: SourceHelm})
		}
	}
	for _, k := range kusts {
		if !referencedDirs[k] && !components[k] {
			specs = append(specs, SourceSpec{Path: k, Type: SourceKustomize})
		}
	}
	for _, p := range plains {
		if !referencedFiles[p] {
			specs = append(specs, SourceSpec{Path: p, Type: SourcePlain})
		}
	}
	specs = append(specs, explicit...)
	sort.SliceStable(specs, func(i, j int) bool {
		if specs[i].Path != specs[j].Path {
			return specs[i].Path < specs[j].Path
		}
		return specs[i].Name < specs[j].Name
	})
	return specs, findings
}

func detectType(abs string) SourceType {
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return SourcePlain
	}
	if isChartDir(abs) {
		return SourceHelm
	}
	if kustomizationFile(abs) != "" {
		return SourceKustomize
	}
	return SourcePlain
}

// renderPlainSource renders a plain file, or every YAML file under a
// directory (hidden and vendor directories excepted).
func (rd *renderer) renderPlainSource(spec SourceSpec) ([]Object, []Finding, error) {
	r := rd.repo
	abs := r.abs(spec.Path)
	real, err := r.resolve(abs)
	if err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	var findings []Finding
	if fi.IsDir() {
		_ = filepath.WalkDir(abs, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != abs && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
					return filepath.SkipDir
				}
				return nil
			}
			if isYAMLName(d.Name()) && !strings.HasPrefix(d.Name(), ".") {
				files = append(files, p)
			}
			return nil
		})
	} else {
		files = []string{abs}
	}
	var objs []Object
	for _, f := range files {
		data, err := r.readFile(f)
		if err != nil {
			if fi.IsDir() && checkForPathError(err) != "" {
				// One bad file in a directory: report it, render the rest.
				fd := failureFinding(spec, err)
				fd.Severity = SeverityError
				findings = append(findings, fd)
				continue
			}
			return nil, findings, err
		}
		rel := r.rel(f)
		raws, problems, err := decodeStream(data, rd.opts.MaxObjects-len(objs))
		if err != nil {
			return nil, findings, fmt.Errorf("%s: %w: more than %d objects", rel, err, rd.opts.MaxObjects)
		}
		for _, p := range problems {
			f := Finding{Check: CheckYAMLInvalid, Severity: SeverityError, File: rel, Line: p.line,
				Message: fmt.Sprintf("%s:%d: document not decoded: %v", rel, p.line, p.err)}
			if p.err == errAliasBudget {
				f.Check = CheckYAMLAliasBomb
				f.Message = fmt.Sprintf("%s:%d: document refused: %v", rel, p.line, p.err)
			}
			findings = append(findings, f)
		}
		for _, raw := range raws {
			o, ok := objectFromDoc(raw.doc)
			if !ok {
				findings = append(findings, Finding{Check: CheckNotAnObject, Severity: SeverityInfo, File: rel, Line: raw.line,
					Message: fmt.Sprintf("%s:%d: document has no apiVersion or kind; skipped", rel, raw.line)})
				continue
			}
			o.Origin = Origin{Source: spec.ID(), SourceType: SourcePlain, File: rel, Line: raw.line, AnnotationLines: raw.annLines}
			objs = append(objs, o)
		}
	}
	// A file whose only documents were refused is a failed source.
	if !fi.IsDir() && len(objs) == 0 && hasErrorFinding(findings) {
		return nil, findings, fmt.Errorf("%s: no document could be decoded", spec.Path)
	}
	return objs, findings, nil
}

func hasErrorFinding(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// renderHelmSource renders a chart source.
func (rd *renderer) renderHelmSource(spec SourceSpec) ([]Object, []Finding, error) {
	hv := spec.Helm
	trusted := false
	if !spec.explicit {
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
	hobjs, findings, err := rd.renderChart(helmRequest{chartDir: rd.repo.abs(spec.Path), values: hv, trusted: trusted, skipTests: true})
	if err != nil {
		return nil, findings, err
	}
	objs := make([]Object, 0, len(hobjs))
	for _, h := range hobjs {
		o, _ := objectFromDoc(h.doc)
		o.Origin = Origin{Source: spec.ID(), SourceType: SourceHelm, File: h.file, Line: h.line, AnnotationLines: h.annLines}
		objs = append(objs, o)
	}
	return objs, findings, nil
}
