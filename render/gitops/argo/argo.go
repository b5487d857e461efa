// Package argo is Argo CD's half of the GitOps engine (render/gitops):
// it reads an Application as Argo CD's repo-server generates its
// manifests, and an ApplicationSet as its controller generates its
// Applications (render/internal/appset). What it renders goes through the
// engine (Config.Render), which makes each build once per run and chains
// what the builds deliver.
package argo

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/appset"
	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/repourl"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Argo CD Applications are read as its repo-server generates manifests
// (argoproj/argo-cd reposerver/repository/repository.go): per source, the
// tool named by the source, else found from the directory (a kustomization
// wins over Chart.yaml, else plain files); Helm values as value files, then
// values or valuesObject, then parameters; the destination namespace on
// every namespaced object without one.

// Config is what a run's Argo CD objects are followed with.
type Config struct {
	// Repo is the repository, read as a tree.
	Repo *repofs.Repo
	// RepoURLs decide which repoURLs are this repository; SourceMaps map
	// others to directories inside it (--source).
	RepoURLs   repourl.Matcher
	SourceMaps []source.Map
	// Fetch: charts from chart repositories and OCI registries may be
	// downloaded.
	Fetch bool
	// Render renders a delivered source: the engine's, which makes each
	// build once per run.
	Render func(source.Spec) source.Out
}

// Run follows one run's Argo CD objects.
type Run struct {
	repo       *repofs.Repo
	repoURLs   repourl.Matcher
	sourceMaps []source.Map
	fetch      bool
	render     func(source.Spec) source.Out
	// appsetWork is the work all the run's ApplicationSets share.
	appsetWork *appset.RunWork
	tree       *repoTree
}

// New is the follower of one run's Argo CD objects.
func New(cfg Config) *Run {
	return &Run{repo: cfg.Repo, repoURLs: cfg.RepoURLs, sourceMaps: cfg.SourceMaps, fetch: cfg.Fetch, render: cfg.Render,
		appsetWork: appset.NewRunWork(appset.RunWorkBudget)}
}

// Expansion is what one Argo CD object delivers.
type Expansion struct {
	Outs []source.Out // the renders it made
	// Generated are the Applications an ApplicationSet yields, without a
	// render.
	Generated []object.Object
	Findings  []check.Finding // about the object itself
}

// Application renders every source of an Application.
func (g *Run) Application(o *object.Object) *Expansion {
	e := &Expansion{}
	spec := yamldoc.MapAt(o.Doc, "spec")
	var sources []map[string]any
	if l, ok := spec["sources"].([]any); ok && len(l) > 0 {
		for _, s := range l {
			if m, ok := s.(map[string]any); ok {
				sources = append(sources, m)
			}
		}
	} else if s := yamldoc.MapAt(spec, "source"); s != nil {
		sources = []map[string]any{s}
	}
	if len(sources) == 0 {
		e.Findings = append(e.Findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "it has no spec.source or spec.sources"))
		return e
	}
	refs := map[string]map[string]any{}
	for _, s := range sources {
		if r := yamldoc.Str(s, "ref"); r != "" {
			refs[r] = s
		}
	}
	destNS := yamldoc.Str(spec, "destination", "namespace")
	for i, s := range sources {
		if yamldoc.Str(s, "path") == "" && yamldoc.Str(s, "chart") == "" {
			continue // a ref-only source: value files for the others
		}
		out, f := g.applicationSource(o, s, i, len(sources), refs, destNS)
		e.Findings = append(e.Findings, f...)
		if out != nil {
			e.Outs = append(e.Outs, *out)
		}
	}
	return e
}

// applicationSource renders one source of an Application.
func (g *Run) applicationSource(o *object.Object, s map[string]any, i, n int, refs map[string]map[string]any, destNS string) (*source.Out, []check.Finding) {
	repoURL := yamldoc.Str(s, "repoURL")
	if c := yamldoc.Str(s, "chart"); c != "" && g.fetch {
		return g.argoRemoteChart(o, s, i, n, refs, destNS)
	}
	if c := yamldoc.Str(s, "chart"); c != "" {
		return nil, []check.Finding{object.NotFollowed(o, fmt.Sprintf("chart %q version %q comes from the Helm repository %s, downloaded only with --fetch", c, yamldoc.Str(s, "targetRevision"), repoURL))}
	}
	root, ok := g.argoSourceRoot(repoURL)
	if !ok {
		return nil, []check.Finding{object.NotFollowed(o, fmt.Sprintf("its source %s; %s", g.repoURLs.Decision(repoURL), sourceroot.NotThisRepo(repoURL)))}
	}
	joined, inside := root.Within(yamldoc.Str(s, "path"))
	if !inside {
		return nil, []check.Finding{object.Finding(o, check.GitOpsReference, check.SeverityError, fmt.Sprintf("path %q leaves its repository", yamldoc.Str(s, "path")))}
	}
	rel, bad := sourceroot.Path(g.repo, joined)
	if bad != "" {
		return nil, []check.Finding{object.Finding(o, check.GitOpsReference, check.SeverityError, bad)}
	}
	tool, err := argoTool(g.repo, s, g.repo.Abs(rel))
	if err != "" {
		return nil, []check.Finding{object.NotFollowed(o, err)}
	}
	name := object.Ref(o)
	if n > 1 {
		name = fmt.Sprintf("%s#%d", name, i)
	}
	spec := source.Spec{Path: rel, Name: name, Explicit: true, Delivery: &source.Delivery{Namespace: destNS}}
	var findings []check.Finding
	switch tool {
	case "helm":
		spec.Type = object.SourceHelm
		findings = g.argoHelm(o, s, rel, refs, destNS, &spec)
	case "kustomize":
		spec.Type = object.SourceKustomize
		doc, f := g.argoKustomize(o, s, rel)
		if doc == nil {
			return nil, f
		}
		spec.Delivery.KustDoc = doc
	default:
		spec.Type = object.SourcePlain
		d := yamldoc.MapAt(s, "directory")
		rec, _ := d["recurse"].(bool)
		spec.Delivery.Dir = &source.Dir{Recurse: rec, Include: yamldoc.Str(d, "include"), Exclude: yamldoc.Str(d, "exclude")}
		if yamldoc.MapAt(d, "jsonnet") != nil || g.hasJsonnet(rel, rec) {
			findings = append(findings, object.NotFollowed(o, "its directory source holds Jsonnet, which capreport does not evaluate; only its YAML and JSON files are read"))
		}
	}
	out := g.render(spec)
	out.Result.Findings = append(out.Result.Findings, findings...)
	out.Result.Repository, out.Via = root.Note, root.Via
	return &out, nil
}

// argoTool chooses the source's tool as the repo-server does: the one the
// source names, else Kustomize when the directory has a kustomization,
// Helm when it has Chart.yaml, else a plain directory.
func argoTool(r *repofs.Repo, s map[string]any, dir string) (string, string) {
	var named []string
	for _, t := range []string{"kustomize", "helm", "directory", "plugin"} {
		if _, ok := s[t]; ok && s[t] != nil {
			named = append(named, t)
		}
	}
	switch {
	case len(named) > 1:
		return "", "its source names several tools (" + strings.Join(named, ", ") + "); Argo CD refuses it"
	case len(named) == 1 && named[0] == "plugin":
		return "", "its source uses a config management plugin, which capreport does not run"
	case len(named) == 1:
		return named[0], ""
	case kustscan.KustomizationFile(r, dir) != "":
		return "kustomize", ""
	case kustscan.IsChartDir(r, dir):
		return "helm", ""
	}
	return "directory", ""
}

// argoHelm fills a chart render: release name (the Application's name by
// default), namespace, value files ($ref/... from another source), values
// or valuesObject over them, parameters last.
func (g *Run) argoHelm(o *object.Object, s map[string]any, rel string, refs map[string]map[string]any, destNS string, spec *source.Spec) []check.Finding {
	h := yamldoc.MapAt(s, "helm")
	var findings []check.Finding
	hv := chartspec.Values{ReleaseName: yamldoc.Str(h, "releaseName"), Namespace: yamldoc.Str(h, "namespace")}
	if hv.ReleaseName == "" {
		hv.ReleaseName = o.Name
	}
	if hv.Namespace == "" {
		hv.Namespace = destNS
	}
	if hv.Namespace == "" {
		hv.Namespace = object.DefaultNamespace
	}
	ignoreMissing, _ := h["ignoreMissingValueFiles"].(bool)
	for _, f := range yamldoc.StrList(h["valueFiles"]) {
		p, why := g.argoValueFile(f, rel, refs)
		if why == "" {
			if _, err := g.repo.Stat(g.repo.Abs(p)); err != nil {
				why = fmt.Sprintf("value file %q does not exist", f)
				if ignoreMissing {
					continue
				}
			}
		}
		if why != "" {
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityWarning, why+"; rendered without it"))
			continue
		}
		hv.ValuesFiles = append(hv.ValuesFiles, p)
	}
	over := map[string]any{}
	if vs := yamldoc.Str(h, "values"); vs != "" {
		if err := sigsyaml.Unmarshal([]byte(vs), &over); err != nil {
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "helm.values is not a YAML mapping: "+err.Error()))
		}
	}
	if vo := yamldoc.MapAt(h, "valuesObject"); vo != nil {
		over = vo // valuesObject takes precedence over values
	}
	spec.Delivery.HelmOverFiles = over
	params, _ := h["parameters"].([]any)
	for _, p := range params {
		pm, _ := p.(map[string]any)
		kv := yamldoc.Str(pm, "name") + "=" + fmt.Sprint(pm["value"])
		if force, _ := pm["forceString"].(bool); force {
			spec.Delivery.HelmSetString = append(spec.Delivery.HelmSetString, kv)
		} else {
			hv.Set = append(hv.Set, kv)
		}
	}
	if fp, _ := h["fileParameters"].([]any); len(fp) > 0 {
		findings = append(findings, object.Finding(o, check.GitOpsNotFollowed, check.SeverityWarning, "helm.fileParameters are not applied"))
	}
	spec.Helm = hv
	spec.Delivery.Namespace = hv.Namespace
	return findings
}

// argoValueFile resolves a value file: "$ref/path" through the source
// named ref (this repository's root), else relative to the chart.
func (g *Run) argoValueFile(f, rel string, refs map[string]map[string]any) (string, string) {
	if strings.Contains(f, "://") {
		return "", fmt.Sprintf("value file %q is remote; capreport does not fetch it", f)
	}
	if strings.HasPrefix(f, "$") {
		name, p, _ := strings.Cut(f[1:], "/")
		src, ok := refs[name]
		if !ok {
			return "", fmt.Sprintf("value file %q names the source ref %q, which the Application does not have", f, name)
		}
		root, ok := g.argoSourceRoot(yamldoc.Str(src, "repoURL"))
		if !ok {
			return "", fmt.Sprintf("value file %q comes from %s", f, g.repoURLs.Decision(yamldoc.Str(src, "repoURL")))
		}
		joined, inside := root.Within(p)
		if !inside {
			return "", fmt.Sprintf("value file %q leaves its repository", f)
		}
		out, bad := sourceroot.Path(g.repo, joined)
		if bad != "" {
			return "", "value file " + bad
		}
		return out, ""
	}
	joined := path.Join(rel, f)
	if strings.HasPrefix(joined, "..") {
		return "", fmt.Sprintf("value file %q leaves the repository root", f)
	}
	return joined, ""
}

// argoKustomize amends the source's kustomization with the Application's
// overrides, as the repo-server's kustomize edit calls do.
func (g *Run) argoKustomize(o *object.Object, s map[string]any, rel string) (map[string]any, []check.Finding) {
	kf := kustscan.KustomizationFile(g.repo, g.repo.Abs(rel))
	if kf == "" {
		return nil, []check.Finding{object.Finding(o, check.GitOpsReference, check.SeverityError, rel+" has no kustomization, which its kustomize source needs")}
	}
	data, err := g.repo.ReadFile(kf)
	if err != nil {
		return nil, []check.Finding{object.Finding(o, check.RenderFailed, check.SeverityError, err.Error())}
	}
	raws, _, err := yamldoc.Decode(data, 1)
	if err != nil || len(raws) != 1 {
		return nil, []check.Finding{object.Finding(o, check.RenderFailed, check.SeverityError, g.repo.Rel(kf)+" is not one YAML mapping")}
	}
	doc := raws[0].Doc
	k := yamldoc.MapAt(s, "kustomize")
	for _, f := range []string{"namePrefix", "nameSuffix", "namespace"} {
		if v := yamldoc.Str(k, f); v != "" {
			doc[f] = v
		}
	}
	for field, src := range map[string]string{"commonLabels": "commonLabels", "commonAnnotations": "commonAnnotations"} {
		if add := yamldoc.MapAt(k, src); add != nil {
			cur, _ := doc[field].(map[string]any)
			doc[field] = chartspec.MergeMaps(cur, add)
		}
	}
	if imgs := yamldoc.StrList(k["images"]); len(imgs) > 0 {
		doc["images"] = mergeImages(doc["images"], imgs)
	}
	for _, f := range []string{"patches", "replicas", "components"} {
		if l, ok := k[f].([]any); ok {
			cur, _ := doc[f].([]any)
			doc[f] = append(append([]any{}, cur...), l...)
		}
	}
	return doc, nil
}

// mergeImages applies "name=newName:tag" or "name:tag" overrides to a
// kustomization's images list, replacing an entry of the same name.
func mergeImages(cur any, overrides []string) []any {
	list, _ := cur.([]any)
	out := append([]any{}, list...)
	for _, ov := range overrides {
		name, target := ov, ov
		if i := strings.Index(ov, "="); i >= 0 {
			name, target = ov[:i], ov[i+1:]
		}
		img := map[string]any{}
		newName, tag := target, ""
		if at := strings.Index(target, "@"); at >= 0 {
			newName, img["digest"] = target[:at], target[at+1:]
		} else if c := strings.LastIndex(target, ":"); c > strings.LastIndex(target, "/") {
			newName, tag = target[:c], target[c+1:]
		}
		if i := strings.Index(name, ":"); i >= 0 && !strings.Contains(ov, "=") {
			name = name[:i]
		}
		img["name"] = name
		if newName != name {
			img["newName"] = newName
		}
		if tag != "" {
			img["newTag"] = tag
		}
		replaced := false
		for j, e := range out {
			if m, ok := e.(map[string]any); ok && m["name"] == name {
				out[j], replaced = img, true
			}
		}
		if !replaced {
			out = append(out, img)
		}
	}
	return out
}

// hasJsonnet reports .jsonnet files the directory source would evaluate.
func (g *Run) hasJsonnet(rel string, recurse bool) bool {
	found := false
	root := g.repo.Abs(rel)
	_ = g.repo.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if d.IsDir() && p != root && (!recurse || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		found = strings.HasSuffix(d.Name(), ".jsonnet")
		return nil
	})
	return found
}

// ApplicationSet generates the Applications of an ApplicationSet;
// each is then followed like any Application.
func (g *Run) ApplicationSet(o *object.Object) *Expansion {
	e := &Expansion{}
	res := appset.Expand(o.Doc, g.repoTree(), appset.Options{IsThisRepo: g.repoURLs.Matches, Run: g.appsetWork})
	for _, f := range res.Problems {
		// The generator's messages name the ApplicationSet already.
		e.Findings = append(e.Findings, check.Finding{Check: appsetCheck(f.Check), Severity: f.Severity,
			Location: check.At(o.Origin.File, o.Origin.Line), Source: o.Origin.Source,
			Message: fmt.Sprintf("%s:%d: %s", o.Origin.File, o.Origin.Line, f.Message)})
	}
	for _, doc := range res.Applications {
		app, ok := object.FromDoc(doc)
		if !ok {
			continue
		}
		app.Origin = o.Origin
		e.Generated = append(e.Generated, app)
	}
	return e
}

// appsetCheck maps the generator package's finding kinds to render's.
func appsetCheck(c string) string {
	switch c {
	case "appset-too-many":
		return check.GitOpsLimit
	case "appset-template", "appset-invalid":
		return check.GitOpsReference
	}
	return check.GitOpsNotFollowed
}

func (g *Run) repoTree() *repoTree {
	if g.tree == nil {
		g.tree = &repoTree{r: g.repo}
	}
	return g.tree
}

// argoRemoteChart renders an Application source with chart + repoURL +
// targetRevision, as the repo-server pulls and templates it.
func (g *Run) argoRemoteChart(o *object.Object, s map[string]any, i, n int, refs map[string]map[string]any, destNS string) (*source.Out, []check.Finding) {
	repoURL := yamldoc.Str(s, "repoURL")
	if !strings.Contains(repoURL, "://") {
		repoURL = "oci://" + repoURL
	}
	rc := chartspec.Remote{RepoURL: repoURL, Name: yamldoc.Str(s, "chart"), Version: yamldoc.Str(s, "targetRevision")}
	s = chartspec.MergeMaps(s, nil)
	if h := yamldoc.MapAt(s, "helm"); h != nil {
		var kept []any
		for _, f := range yamldoc.StrList(h["valueFiles"]) {
			if strings.HasPrefix(f, "$") || strings.Contains(f, "://") {
				kept = append(kept, f)
			} else {
				rc.ValuesFiles = append(rc.ValuesFiles, f) // inside the chart
			}
		}
		h["valueFiles"] = kept
	}
	name := object.Ref(o)
	if n > 1 {
		name = fmt.Sprintf("%s#%d", name, i)
	}
	spec := source.Spec{Path: rc.Label(), Type: object.SourceHelm, Name: name, Explicit: true,
		Delivery: &source.Delivery{Namespace: destNS, Remote: &rc}}
	findings := g.argoHelm(o, s, "", refs, destNS, &spec)
	out := g.render(spec)
	out.Result.Findings = append(out.Result.Findings, findings...)
	return &out, nil
}

// mappedRepo finds the mapping of an Argo CD repoURL: a mapping named by a
// URL of the same repository identity.
func (g *Run) mappedRepo(repoURL string) (sourceroot.Root, bool) {
	id := repourl.Identity(repoURL)
	if id == "" {
		return sourceroot.Root{}, false
	}
	for _, m := range g.sourceMaps {
		if repourl.Identity(m.Name) == id {
			return sourceroot.Root{Prefix: m.Path, Via: &object.Link{File: m.Path, Kind: "Repository", Name: repoURL},
				Note: fmt.Sprintf("%s is read from %s, which --source %s maps it to (identity %s)", repoURL, m.Path, m.Name, id)}, true
		}
	}
	return sourceroot.Root{}, false
}

// argoSourceRoot is where an Argo CD source's repoURL is read: this
// repository, or a mapped clone; ok is false for another repository.
func (g *Run) argoSourceRoot(repoURL string) (sourceroot.Root, bool) {
	if m, ok := g.mappedRepo(repoURL); ok {
		return m, true
	}
	return sourceroot.Root{Note: g.repoURLs.Decision(repoURL)}, g.repoURLs.Matches(repoURL)
}
