// Package kustscan walks a kustomization and everything it refers to
// without building it, as render does before it hands a kustomization to
// krusty: it refuses remote references, functions and paths that leave the
// repository root, drops the list entries it cannot use, and writes the
// copy of each kustomization the build reads. It is apart from render, and
// so from Helm and krusty, so that FuzzKustomizeRewrite's test binary is
// small: Go's fuzzing engine copies and compares the whole coverage map of
// the binary on every execution, and render's is 23 times the size.
package kustscan

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Refusal is a reason not to hand a kustomization to krusty at all.
type Refusal struct {
	Check string // finding check ID
	File  string // root-relative kustomization (or config) file
	Msg   string
}

func (e *Refusal) Error() string { return e.Msg }

// Kustomization is one parsed kustomization.
type Kustomization struct {
	File string // absolute
	Doc  map[string]any
	// Generated: no such file on disk (Flux generated it for a directory
	// without one); the overlay provides it.
	Generated bool
}

// Scan walks a kustomization and everything it refers to, without
// building: it finds remote references, exec/container functions, paths
// that leave the root, and collects what the tree uses (so discovery does
// not render those pieces again).
type Scan struct {
	r               *repofs.Repo
	seen            map[string]bool
	kusts           map[string]*Kustomization // by absolute dir
	Dirs            []string                  // kustomization dirs visited, root first
	Files           []string                  // files referenced inside their kustomization's tree
	Charts          []string                  // local chart dirs used by helmCharts
	Refusals        []*Refusal
	RootIsComponent bool
	root            string
	// Override replaces the kustomization read from disk in one directory
	// (a GitOps object's generated or amended kustomization).
	Override map[string]*Kustomization
	// dropped are entries left out of the render (remote, outside the
	// root), by kustomization directory; each is also a refusal in
	// Partials.
	dropped  map[string][]droppedEntry
	Partials []*Refusal
	// ListedBy maps a resource file to the kustomization file listing it.
	ListedBy map[string]string
	// resources are the files some kustomization lists as resources, and
	// other the files one reads for anything else (crds, patches,
	// generators, configurations, ...): see ResourceOnly.
	resources, other map[string]bool
	// Fetch keeps remote bases and helmCharts repos for the build
	// (--fetch); Remote records that the build will fetch a base.
	Fetch, Remote bool
	// LoadAnywhere: the build runs without kustomize's load restrictions
	// (a Flux Kustomization's), so a file outside its kustomization's
	// directory is read too, and counts as covered.
	LoadAnywhere bool
}

// droppedEntry is one entry of a kustomization list field left out.
type droppedEntry struct{ field, entry string }

// New is a scan inside r that keeps nothing remote (Fetch keeps what
// --fetch downloads).
func New(r *repofs.Repo) *Scan {
	return &Scan{r: r, seen: map[string]bool{}, kusts: map[string]*Kustomization{},
		Override: map[string]*Kustomization{}, dropped: map[string][]droppedEntry{}, ListedBy: map[string]string{},
		resources: map[string]bool{}, other: map[string]bool{}}
}

// ResourceOnly reports whether the build reads the file abs only as a
// resource: no kustomization of the tree lists it under any other field.
func (sc *Scan) ResourceOnly(abs string) bool {
	return sc.resources[abs] && !sc.other[abs]
}

// MayNameSchema reports whether the build may replace kustomize's OpenAPI
// schema: a kustomization of the tree has an openapi field, or a remote
// base, which the scan does not read, is fetched.
func (sc *Scan) MayNameSchema() bool {
	if sc.Remote {
		return true
	}
	for _, kusts := range []map[string]*Kustomization{sc.kusts, sc.Override} {
		for _, k := range kusts {
			if v, ok := k.Doc["openapi"]; ok && v != nil {
				return true
			}
		}
	}
	return false
}

// Annotatable reports whether every object the build starts from comes
// from a file read only as a resource or from a configMapGenerator or
// secretGenerator: no generator plugin makes one, no resource file is
// read for anything else, and nothing is fetched. Such a build can be
// traced by annotating those objects with their file (Tracing.Generators
// for the generated) instead of by krusty's origin annotations.
func (sc *Scan) Annotatable() bool {
	if sc.Remote {
		return false
	}
	for _, k := range sc.kusts {
		if v, ok := k.Doc["generators"]; ok && v != nil {
			return false
		}
	}
	for abs := range sc.resources {
		if sc.other[abs] {
			return false
		}
	}
	return true
}

// droppable are the list fields whose remote or escaping entries the render
// leaves out instead of failing: what they would add is missing, the rest
// stands. A missing entry fails the build, as it fails kustomize's.
var droppable = map[string]bool{"resources": true, "bases": true, "components": true, "crds": true}

// entryOrDrop is entry for a droppable field: a remote, escaping or missing
// entry is recorded as dropped rather than refusing the whole root.
func (sc *Scan) entryOrDrop(dir, kf, field, e string) string {
	n := len(sc.Refusals)
	abs := sc.entry(dir, kf, field, e)
	if len(sc.Refusals) > n && droppable[field] {
		ref := sc.Refusals[n]
		sc.Refusals = sc.Refusals[:n]
		sc.Partials = append(sc.Partials, &Refusal{Check: check.PartialRender, File: ref.File,
			Msg: ref.Msg + "; rendered without it, so what it adds is missing from this report"})
		sc.dropped[dir] = append(sc.dropped[dir], droppedEntry{field, e})
		return ""
	}
	if abs == "" && len(sc.Refusals) == n && droppable[field] && !LooksRemote(e) && !filepath.IsAbs(e) {
		abs = filepath.Clean(filepath.Join(dir, filepath.FromSlash(e))) // missing: dropped below
	}
	if abs != "" && droppable[field] {
		if _, err := sc.r.Stat(abs); err != nil {
			// kustomize build, and so Flux and Argo CD, fail on it: unlike
			// a remote entry, nothing is missing here for want of a network.
			rel := sc.r.Rel(kf)
			sc.refuse(check.RenderFailed, rel, "%s: %s entry %q does not exist in the repository, so kustomize build fails", rel, field, e)
			return ""
		}
	}
	return abs
}

var scpUser = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// LooksRemote mirrors what krusty would treat as a remote file (http/https
// URL) or git repository (scheme, git::, user@host, github.com/...).
func LooksRemote(s string) bool {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	return strings.Contains(s, "://") ||
		strings.HasPrefix(low, "git::") ||
		strings.HasPrefix(low, "github.com/") || strings.HasPrefix(low, "github.com:") ||
		scpUser.MatchString(s)
}

func (sc *Scan) refuse(check, file, format string, args ...any) {
	sc.Refusals = append(sc.Refusals, &Refusal{Check: check, File: file, Msg: fmt.Sprintf(format, args...)})
}

// entry resolves one path a kustomization refers to; "" if it must not or
// cannot be followed.
func (sc *Scan) entry(dir, kf, field, e string) string {
	rel := sc.r.Rel(kf)
	if LooksRemote(e) && sc.Fetch && remoteBaseAllowed(field, e) {
		sc.Remote = true
		return "" // kept for krusty's own loader to fetch
	}
	if LooksRemote(e) {
		sc.refuse(check.RemoteBase, rel, "%s: %s entry %q is remote; capreport never fetches remote bases or files (vendor it into the repository)", rel, field, e)
		return ""
	}
	if filepath.IsAbs(e) {
		sc.refuse(check.PathEscape, rel, "%s: %s entry %q is an absolute path", rel, field, e)
		return ""
	}
	abs := filepath.Clean(filepath.Join(dir, filepath.FromSlash(e)))
	if !sc.r.Within(abs) {
		sc.refuse(check.PathEscape, rel, "%s: %s entry %q leaves the repository root %q (pass --root to read a wider checkout)", rel, field, e, filepath.Base(sc.r.Root))
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
// directory count (krusty's load restrictions refuse the others) unless the
// build loads anywhere.
func (sc *Scan) addFile(dir, abs string) {
	if sc.LoadAnywhere || abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
		sc.Files = append(sc.Files, abs)
		if k, ok := sc.kusts[dir]; ok && !k.Generated {
			if _, seen := sc.ListedBy[abs]; !seen {
				sc.ListedBy[abs] = k.File
			}
		}
	}
}

func (sc *Scan) file(dir, kf, field, e string, plugin bool) {
	if abs := sc.entry(dir, kf, field, e); abs != "" {
		sc.other[abs] = true
		sc.addFile(dir, abs)
		if plugin {
			sc.checkFunctions(kf, abs, nil)
		}
	}
}

// read parses the kustomization file of dir; nil when there is none (krusty
// reports it) or it is refused.
func (sc *Scan) read(dir string) *Kustomization {
	kf := KustomizationFile(sc.r, dir)
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
		id := check.RenderFailed
		if len(problems) > 0 && errors.Is(problems[0].Err, yamldoc.ErrAliasBudget) {
			id = check.YAMLAliasBomb
		}
		sc.refuse(id, rel, "%s: not a single YAML mapping", rel)
		return nil
	}
	return &Kustomization{File: kf, Doc: raws[0].Doc}
}

// Scan visits the kustomization in dir and everything it lists, in the
// order krusty reads them: what it builds on, the files it reads, the
// functions it runs and the Helm charts it inflates.
func (sc *Scan) Scan(dir string, plugin bool) {
	if sc.seen[dir] {
		return
	}
	sc.seen[dir] = true
	if sc.root == "" {
		sc.root = dir
	}
	k := sc.Override[dir]
	if k == nil {
		if k = sc.read(dir); k == nil {
			return
		}
	}
	sc.Dirs = append(sc.Dirs, dir)
	sc.kusts[dir] = k
	if kind, _ := k.Doc["kind"].(string); kind == "Component" && dir == sc.root {
		sc.RootIsComponent = true
	}
	sc.scanBases(dir, k, plugin)
	sc.scanFiles(dir, k)
	sc.scanFunctions(dir, k)
	sc.scanHelmCharts(dir, k)
}

// scanBases follows resources, bases and components (a directory is a
// kustomization to scan, anything else a file) and lists the crds.
func (sc *Scan) scanBases(dir string, k *Kustomization, plugin bool) {
	kf, doc := k.File, k.Doc
	for _, field := range []string{"resources", "bases", "components"} {
		for _, e := range yamldoc.StrList(doc[field]) {
			abs := sc.entryOrDrop(dir, kf, field, e)
			if abs == "" {
				continue
			}
			if fi, err := sc.r.Stat(abs); err == nil && fi.IsDir() {
				sc.Scan(abs, plugin)
			} else {
				// A plugin kustomization's resources are function configs.
				if plugin {
					sc.other[abs] = true
				} else {
					sc.resources[abs] = true
				}
				sc.addFile(dir, abs)
				if plugin {
					sc.checkFunctions(kf, abs, nil)
				}
			}
		}
	}
	for _, e := range yamldoc.StrList(doc["crds"]) {
		if abs := sc.entryOrDrop(dir, kf, "crds", e); abs != "" {
			sc.other[abs] = true
			sc.addFile(dir, abs)
		}
	}
}

// scanFiles checks the other files the kustomization reads: configurations,
// patches (an inline patch is not a path), replacements, the OpenAPI schema
// and the generators' files and env files.
func (sc *Scan) scanFiles(dir string, k *Kustomization) {
	kf, doc := k.File, k.Doc
	for _, e := range yamldoc.StrList(doc["configurations"]) {
		sc.file(dir, kf, "configurations", e, false)
	}
	for _, e := range yamldoc.StrList(doc["patchesStrategicMerge"]) {
		if !strings.ContainsAny(e, "\n:{") {
			sc.file(dir, kf, "patchesStrategicMerge", e, false)
		}
	}
	for _, field := range []string{"patches", "patchesJson6902", "replacements"} {
		for _, m := range yamldoc.MapList(doc[field]) {
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
		for _, m := range yamldoc.MapList(doc[field]) {
			for _, f := range yamldoc.StrList(m["files"]) {
				if i := strings.Index(f, "="); i >= 0 {
					f = f[i+1:]
				}
				sc.file(dir, kf, field, f, false)
			}
			for _, f := range append(yamldoc.StrList(m["envs"]), yamldoc.StrList(m["env"])...) {
				sc.file(dir, kf, field, f, false)
			}
		}
	}
}

// scanFunctions checks generators, transformers and validators: an inline
// one, a file, or a directory scanned as a plugin kustomization.
func (sc *Scan) scanFunctions(dir string, k *Kustomization) {
	kf, doc := k.File, k.Doc
	for _, field := range []string{"generators", "transformers", "validators"} {
		for _, e := range yamldoc.StrList(doc[field]) {
			if strings.Contains(e, "\n") {
				sc.checkFunctions(kf, "", []byte(e))
				continue
			}
			abs := sc.entry(dir, kf, field, e)
			if abs == "" {
				continue
			}
			if fi, err := sc.r.Stat(abs); err == nil && fi.IsDir() {
				sc.Scan(abs, true)
			} else {
				sc.other[abs] = true
				sc.addFile(dir, abs)
				sc.checkFunctions(kf, abs, nil)
			}
		}
	}
}

// scanHelmCharts finds each helmCharts entry's vendored chart; a remote one
// is dropped from the build (the render is partial) instead of refusing it.
func (sc *Scan) scanHelmCharts(dir string, k *Kustomization) {
	kf, doc := k.File, k.Doc
	if _, ok := doc["helmChartInflationGenerator"]; ok {
		rel := sc.r.Rel(kf)
		sc.refuse(check.KustomizePlugin, rel, "%s: helmChartInflationGenerator is not supported (use helmCharts with a chart vendored under charts/)", rel)
	}
	for _, hc := range yamldoc.MapList(doc["helmCharts"]) {
		n := len(sc.Refusals)
		if d := sc.LocalChart(dir, kf, doc, hc); d != "" {
			sc.Charts = append(sc.Charts, d)
		} else if len(sc.Refusals) > n && sc.Refusals[n].Check == check.HelmChartRemote {
			ref := sc.Refusals[n]
			sc.Refusals = sc.Refusals[:n]
			sc.Partials = append(sc.Partials, &Refusal{Check: check.HelmChartRemote, File: ref.File,
				Msg: ref.Msg + "; rendered without it, so what it adds is missing from this report"})
			name, _ := hc["name"].(string)
			sc.dropped[dir] = append(sc.dropped[dir], droppedEntry{"helmCharts", name})
		}
	}
}

// LocalChart finds the vendored chart of a helmCharts entry.
func (sc *Scan) LocalChart(dir, kf string, doc, hc map[string]any) string {
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
		sc.refuse(check.RenderFailed, rel, "%s: helmCharts entry without a name", rel)
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
			if _, err := sc.r.Resolve(c); err == nil && IsChartDir(sc.r, c) {
				return c
			}
		}
	}
	where := repoURL
	if where == "" {
		where = "no repo"
	}
	if sc.Fetch && repoURL != "" {
		return "" // fetched when the entry is inflated
	}
	sc.refuse(check.HelmChartRemote, rel, "%s: helmCharts entry %q (%s, version %q) is not vendored under %s; capreport never pulls charts", rel, name, where, version, path.Join(path.Dir(rel), home))
	return ""
}

// checkFunctions refuses KRM function configs (exec, container, starlark):
// capreport never runs them.
func (sc *Scan) checkFunctions(kf, file string, inline []byte) {
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
			sc.refuse(check.ExecFunction, where, "%s: %s function %q (%s) is configured; capreport never runs exec, container or starlark functions or plugins", where, kind, strings.TrimSpace(fmt.Sprint(raw.Doc["kind"])), strings.Join(strings.Fields(spec), " "))
		}
	}
}

// kustomizationNames are the file names krusty accepts, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomizationName reports whether krusty reads a file of this name.
func IsKustomizationName(name string) bool {
	for _, n := range kustomizationNames {
		if name == n {
			return true
		}
	}
	return false
}

// KustomizationFile is the kustomization krusty reads in dir; "" if none.
func KustomizationFile(r *repofs.Repo, dir string) string {
	for _, n := range kustomizationNames {
		p := filepath.Join(dir, n)
		if fi, err := r.Lstat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// IsChartDir reports whether dir holds a chart (a Chart.yaml file).
func IsChartDir(r *repofs.Repo, dir string) bool {
	fi, err := r.Lstat(filepath.Join(dir, "Chart.yaml"))
	return err == nil && !fi.IsDir()
}

// remoteBaseAllowed admits http(s) remote entries only: a file:// or ssh
// URL would make the runner read its own disk or use its keys.
func remoteBaseAllowed(field, e string) bool {
	if field != "resources" && field != "bases" && field != "components" {
		return false
	}
	low := strings.ToLower(strings.TrimSpace(e))
	low = strings.TrimPrefix(low, "git::")
	return strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "github.com/")
}
