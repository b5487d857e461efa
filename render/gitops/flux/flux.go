// Package flux is Flux's half of the GitOps engine (render/gitops): it
// builds a Kustomization as kustomize-controller does, renders a
// HelmRelease as helm-controller does (and Flux v1's Helm Operator
// release), and generates a ResourceSet's objects as the Flux Operator
// does. It reads the objects the engine knows so far and renders through
// the engine (Engine), which makes each build once per run, remembers
// what each expansion read, and chains what the builds deliver.
package flux

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/internal/sourceroot"
	"github.com/capreport/capreport/render/internal/fluxgen"
	"github.com/capreport/capreport/render/internal/fluxsubst"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/repourl"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/valuesfrom"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux objects are read as the kustomize-controller and helm-controller
// read them (fluxcd/kustomize-controller internal/controller,
// fluxcd/helm-controller internal/chartutil and internal/release).

// Engine is what Flux's half asks of the GitOps engine.
type Engine interface {
	// Lookup finds a known object by group (any when ""), kind and
	// namespaced name, the latest found; OfKind lists the known objects of
	// a kind in a namespace, latest last. The engine counts both reads
	// against the expansion under way, which a later pass may find stale.
	Lookup(apiGroup, kind, namespace, name string) *object.Object
	OfKind(kind, namespace string) []*object.Object
	// Render renders a delivered source, once per run.
	Render(spec source.Spec) source.Out
	// Failed is the render of spec that err stopped, with a finding of
	// check id.
	Failed(spec source.Spec, id string, err error) source.Out
}

// Config is what a run's Flux objects are followed with.
type Config struct {
	// Repo is the repository, read as a tree.
	Repo *repofs.Repo
	// RepoURLs decide which GitRepositories are this repository;
	// SourceMaps map other sources to directories inside it (--source).
	RepoURLs   repourl.Matcher
	SourceMaps []source.Map
	// Fetch: charts from chart repositories and OCI registries may be
	// downloaded.
	Fetch  bool
	Engine Engine
}

// Run follows one run's Flux objects.
type Run struct {
	eng        Engine
	repo       *repofs.Repo
	repoURLs   repourl.Matcher
	sourceMaps []source.Map
	fetch      bool
	// fluxScans is the Flux generator's directory work, made once per run.
	fluxScans *fluxgen.Scans
	// manifests are the kustomizations the generator wrote, by directory
	// and Kustomization (fluxManifest): the walk asks for one when it
	// prefetches a build, when the plan reads what a nested one covers,
	// and when it expands the object.
	manifests map[string]generated
	// valuesFrom is the run's parsed valuesFrom documents and budget.
	valuesFrom *valuesfrom.Work
}

// New is the follower of one run's Flux objects.
func New(cfg Config) *Run {
	return &Run{eng: cfg.Engine, repo: cfg.Repo, repoURLs: cfg.RepoURLs, sourceMaps: cfg.SourceMaps, fetch: cfg.Fetch,
		fluxScans: fluxgen.NewScans(), valuesFrom: valuesfrom.NewWork(), manifests: map[string]generated{}}
}

// generated is one kustomization the generator wrote, or why it did not.
type generated struct {
	data []byte
	err  error
}

// Expansion is what one Flux object delivers.
type Expansion struct {
	Outs     []source.Out    // the renders it made
	Findings []check.Finding // about the object itself
	// LookupMiss: a referenced object (GitRepository, ConfigMap, HelmChart)
	// was not found, so a later pass, with more objects known, may differ.
	LookupMiss bool
}

// localGitSource decides where a Flux sourceRef's files are read: a
// source --source maps to a directory; this repository, when it is the
// bootstrap GitRepository flux-system/flux-system or a GitRepository whose
// URL names it; else ok is false with the reason, and miss says the source
// object was not found.
func (g *Run) localGitSource(o *object.Object, ref map[string]any) (root sourceroot.Root, ok bool, why string, miss bool) {
	kind, name := yamldoc.Str(ref, "kind"), yamldoc.Str(ref, "name")
	ns := yamldoc.Str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	if m, ok := g.mappedFlux(kind, ns, name); ok && kind != "" {
		return m, true, "", false
	}
	switch kind {
	case "GitRepository":
	case "":
		return sourceroot.Root{}, false, "spec.sourceRef has no kind", false
	default:
		return sourceroot.Root{}, false, fmt.Sprintf("its source is %s %s/%s, a remote artifact capreport does not fetch (map it to a local copy with --source %s/%s/%s=PATH)", kind, ns, name, kind, ns, name), false
	}
	src := g.eng.Lookup("source.toolkit.fluxcd.io", "GitRepository", ns, name)
	if src == nil {
		if ns == "flux-system" && name == "flux-system" {
			return sourceroot.Root{Note: "GitRepository flux-system/flux-system is Flux's bootstrap source: this repository"}, true, "", false
		}
		return sourceroot.Root{}, false, fmt.Sprintf("GitRepository %s/%s is not among the rendered objects, so capreport cannot tell which repository it is (map it with --source GitRepository/%s/%s=PATH)", ns, name, ns, name), true
	}
	url := yamldoc.Str(src.Doc, "spec", "url")
	if g.repoURLs.Matches(url) {
		return sourceroot.Root{Note: fmt.Sprintf("GitRepository %s/%s: %s", ns, name, g.repoURLs.Decision(url))}, true, "", false
	}
	if ns == "flux-system" && name == "flux-system" {
		return sourceroot.Root{Note: fmt.Sprintf("GitRepository flux-system/flux-system (%s) is Flux's bootstrap source: this repository", url)}, true, "", false
	}
	return sourceroot.Root{}, false, fmt.Sprintf("GitRepository %s/%s is %s, another repository (%s); %s", ns, name, url, g.repoURLs.Another(url),
		sourceroot.NotThisRepo(fmt.Sprintf("GitRepository/%s/%s", ns, name))), false
}

// KustomizationSource resolves a Kustomization's sourceRef: a source read
// from this repository or a mapped directory, or an ExternalArtifact that
// an ArtifactGenerator assembles from one by copies that keep the layout
// below a common prefix, which spec.path is then relative to.
func (g *Run) KustomizationSource(o *object.Object, ref map[string]any) (sourceroot.Root, bool, string, bool) {
	if yamldoc.Str(ref, "kind") != "ExternalArtifact" {
		return g.localGitSource(o, ref)
	}
	ns := yamldoc.Str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	name := yamldoc.Str(ref, "name")
	if m, ok := g.mappedFlux("ExternalArtifact", ns, name); ok {
		return m, true, "", false
	}
	for _, gen := range g.eng.OfKind("ArtifactGenerator", ns) {
		for _, a := range yamldoc.MapList(yamldoc.Dig(gen.Doc, "spec", "artifacts")) {
			if yamldoc.Str(a, "name") != name {
				continue
			}
			return g.artifactPrefix(o, gen, a)
		}
	}
	return sourceroot.Root{}, false, fmt.Sprintf("its source is ExternalArtifact %s/%s, and no ArtifactGenerator among the rendered objects produces it", ns, name), true
}

// artifactPrefix reads the copies of one ArtifactGenerator artifact: each
// must copy "@alias/<dir>/**" of a local GitRepository to
// "@artifact/<sub>/" with <dir> ending in <sub> and one common rest, so
// that the artifact is this repository's <rest> directory.
func (g *Run) artifactPrefix(o, gen *object.Object, a map[string]any) (sourceroot.Root, bool, string, bool) {
	aliases := map[string]map[string]any{}
	for _, src := range yamldoc.MapList(yamldoc.Dig(gen.Doc, "spec", "sources")) {
		aliases[yamldoc.Str(src, "alias")] = src
	}
	prefix, set := "", false
	for _, c := range yamldoc.MapList(a["copy"]) {
		from, to := yamldoc.Str(c, "from"), yamldoc.Str(c, "to")
		alias, dir, ok := strings.Cut(strings.TrimPrefix(from, "@"), "/")
		sub := strings.Trim(strings.TrimPrefix(to, "@artifact"), "/")
		if !strings.HasPrefix(from, "@") || !ok || !strings.HasSuffix(dir, "/**") || !strings.HasPrefix(to, "@artifact") {
			return sourceroot.Root{}, false, fmt.Sprintf("ArtifactGenerator %s copies %q to %q, which capreport does not map onto this repository", object.Ref(gen), from, to), false
		}
		dir = strings.TrimSuffix(dir, "/**")
		src, ok := aliases[alias]
		if !ok {
			return sourceroot.Root{}, false, fmt.Sprintf("ArtifactGenerator %s copies from unknown source alias %q", object.Ref(gen), alias), false
		}
		root, local, why, miss := g.localGitSource(gen, src)
		if !local {
			return sourceroot.Root{}, false, fmt.Sprintf("its ExternalArtifact comes from a source capreport does not follow: %s", why), miss
		}
		dir = path.Join(root.Prefix, dir)
		rest, ok := strings.CutSuffix(dir, sub)
		if sub == "" {
			rest, ok = dir+"/", true
		}
		if !ok || (set && rest != prefix) {
			return sourceroot.Root{}, false, fmt.Sprintf("ArtifactGenerator %s rearranges the repository's layout (%q to %q), which capreport does not follow", object.Ref(gen), from, to), false
		}
		prefix, set = rest, true
	}
	if !set {
		return sourceroot.Root{}, false, fmt.Sprintf("ArtifactGenerator %s artifact %q copies nothing", object.Ref(gen), yamldoc.Str(a, "name")), false
	}
	return sourceroot.Root{Prefix: strings.Trim(prefix, "/")}, true, "", false
}

// Kustomization builds spec.path as kustomize-controller does:
// Flux's generator amends (or, for a directory without one, writes) the
// kustomization, krusty builds it, then postBuild substitution and
// commonMetadata apply to every object.
func (g *Run) Kustomization(o *object.Object) *Expansion {
	e := &Expansion{}
	root, local, why, miss := g.KustomizationSource(o, yamldoc.MapAt(o.Doc, "spec", "sourceRef"))
	e.LookupMiss = miss
	if !local {
		e.Findings = append(e.Findings, object.NotFollowed(o, why))
		return e
	}
	rel, bad := sourceroot.Path(g.repo, path.Join(root.Prefix, CleanPath(yamldoc.Str(o.Doc, "spec", "path"))))
	if bad != "" {
		e.Findings = append(e.Findings, object.Finding(o, check.GitOpsReference, check.SeverityError, bad))
		return e
	}
	spec, err := g.BuildSpec(o, rel)
	if err != nil {
		// The controller's build fails here too: a failed source, which
		// withholds what lies beneath it.
		e.Outs = append(e.Outs, g.eng.Failed(spec, check.RenderFailed, err))
		return e
	}
	out := g.eng.Render(spec)
	if pb := yamldoc.MapAt(o.Doc, "spec", "postBuild"); pb != nil {
		vars, fs, miss := g.fluxVars(o, pb)
		e.LookupMiss = e.LookupMiss || miss
		out.Result.Findings = append(out.Result.Findings, fs...)
		out.Result.Findings = append(out.Result.Findings, fluxsubst.All(o, out.Objects, vars)...)
	}
	if cm := yamldoc.MapAt(o.Doc, "spec", "commonMetadata"); cm != nil {
		for i := range out.Objects {
			object.MergeMetadata(&out.Objects[i], yamldoc.MapAt(cm, "labels"), yamldoc.MapAt(cm, "annotations"))
		}
	}
	out.Result.Repository, out.Via = root.Note, root.Via
	e.Outs = append(e.Outs, out)
	return e
}

// BuildSpec is the build of a Flux Kustomization at rel: the
// kustomization Flux's generator writes there, built without load
// restrictions. The error is the generator's (the spec then names the
// source that failed).
func (g *Run) BuildSpec(o *object.Object, rel string) (source.Spec, error) {
	spec := source.Spec{Path: rel, Type: object.SourceKustomize, Name: object.Ref(o), Explicit: true}
	data, err := g.fluxManifest(o, rel)
	if err != nil {
		return spec, fmt.Errorf("generating the kustomization Flux builds for %s: %w", rel, err)
	}
	raws, _, err := yamldoc.Decode(data, 1)
	if err != nil || len(raws) != 1 {
		return spec, fmt.Errorf("the kustomization Flux generates for %s does not decode", rel)
	}
	spec.Delivery = &source.Delivery{KustDoc: raws[0].Doc, LoadAnywhere: true}
	return spec, nil
}

// fluxManifest is the kustomization Flux's generator builds for rel
// (render/internal/fluxgen), written once per directory and Kustomization
// in a run: the generator reads only the tree, which does not change, and
// the object.
func (g *Run) fluxManifest(o *object.Object, rel string) ([]byte, error) {
	doc, err := json.Marshal(o.Doc) // sorted keys: one text per content
	key := rel + "\x00" + string(doc)
	if m, ok := g.manifests[key]; ok && err == nil {
		return m.data, m.err
	}
	r := g.repo
	data, genErr := fluxgen.Generate(r, g.fluxScans, o.Doc, fluxgen.DefaultIgnore, r.Abs(rel))
	if err == nil {
		g.manifests[key] = generated{data: data, err: genErr}
	}
	return data, genErr
}

// fluxVars gathers postBuild variables: each substituteFrom ConfigMap or
// Secret in order, then the inline substitute map over them; newlines are
// removed from values, as kustomize-controller does.
func (g *Run) fluxVars(o *object.Object, pb map[string]any) (map[string]string, []check.Finding, bool) {
	vars := map[string]string{}
	var findings []check.Finding
	miss := false
	refs, _ := pb["substituteFrom"].([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := yamldoc.Str(ref, "kind"), yamldoc.Str(ref, "name")
		optional, _ := ref["optional"].(bool)
		data, found := g.configData(kind, objNamespace(o), name)
		if !found {
			miss = true
			if !optional {
				findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityWarning,
					fmt.Sprintf("postBuild.substituteFrom %s %s/%s %s; its variables stay unresolved", kind, objNamespace(o), name, g.notReadable(kind, objNamespace(o), name))))
			}
			continue
		}
		for k, v := range data {
			vars[k] = strings.ReplaceAll(v, "\n", "")
		}
	}
	if sub := yamldoc.MapAt(pb, "substitute"); sub != nil {
		for k, v := range sub {
			if s, ok := v.(string); ok {
				vars[k] = strings.ReplaceAll(s, "\n", "")
			} else {
				vars[k] = strings.ReplaceAll(fmt.Sprint(v), "\n", "")
			}
		}
	}
	return vars, findings, miss
}

// configData returns the data of a rendered ConfigMap or Secret (a
// Secret's data decoded from base64, stringData merged over it as the API
// server does).
func (g *Run) configData(kind, ns, name string) (map[string]string, bool) {
	obj := g.eng.Lookup("", kind, ns, name)
	if obj == nil || (kind != "ConfigMap" && kind != "Secret") || sopsEncrypted(obj) {
		return nil, false
	}
	if _, over := g.valuesFrom.OverLimit(kind, obj); over {
		return nil, false
	}
	out := map[string]string{}
	data, _ := obj.Doc["data"].(map[string]any)
	for k, v := range data {
		s := fmt.Sprint(v)
		if kind == "Secret" {
			if b, err := base64.StdEncoding.DecodeString(s); err == nil {
				s = string(b)
			}
		}
		out[k] = s
	}
	if kind == "Secret" {
		sd, _ := obj.Doc["stringData"].(map[string]any)
		for k, v := range sd {
			out[k] = fmt.Sprint(v)
		}
	}
	return out, true
}

// sopsEncrypted reports whether a ConfigMap or Secret is a SOPS file (a
// top-level sops block): Flux decrypts it in the cluster (the
// Kustomization's spec.decryption), offline its values are ciphertext,
// which must not stand in for them.
func sopsEncrypted(o *object.Object) bool {
	_, ok := o.Doc["sops"].(map[string]any)
	return ok
}

// notReadable says why configData found nothing for a reference: the
// object is encrypted, too large for the cluster to hold, or not among
// the rendered objects.
func (g *Run) notReadable(kind, ns, name string) string {
	obj := g.eng.Lookup("", kind, ns, name)
	if obj == nil || kind != "ConfigMap" && kind != "Secret" {
		return "is not among the rendered objects"
	}
	if sopsEncrypted(obj) {
		return "is SOPS-encrypted, which capreport does not decrypt (Flux does, in the cluster)"
	}
	if size, over := g.valuesFrom.OverLimit(kind, obj); over {
		return fmt.Sprintf("holds %d bytes of data, more than the %d the Kubernetes API server accepts, so the cluster never holds it", size, valuesfrom.MaxConfigData)
	}
	return "is not among the rendered objects"
}

// mappedFlux finds the mapping of a Flux source by kind, namespace and
// name; a mapping's name may leave out the kind, or the kind and namespace.
func (g *Run) mappedFlux(kind, ns, name string) (sourceroot.Root, bool) {
	for _, m := range g.sourceMaps {
		if repourl.Identity(m.Name) != "" {
			continue // an Argo CD repoURL
		}
		parts := strings.Split(m.Name, "/")
		var ok bool
		switch len(parts) {
		case 1:
			ok = parts[0] == name
		case 2:
			ok = parts[0] == ns && parts[1] == name
		case 3:
			ok = strings.EqualFold(parts[0], kind) && parts[1] == ns && parts[2] == name
		}
		if ok {
			return sourceroot.Root{Prefix: m.Path, Via: &object.Link{File: m.Path, Kind: kind, Namespace: ns, Name: name},
				Note: fmt.Sprintf("%s %s/%s is read from %s, which --source %s maps it to", kind, ns, name, m.Path, m.Name)}, true
		}
	}
	return sourceroot.Root{}, false
}

// CleanPath reads a path inside a Flux source as the controllers join it
// (securejoin): ".." stops at the source's root instead of leaving it.
func CleanPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/")
}

// objNamespace is a GitOps object's namespace, "default" when unset.
func objNamespace(o *object.Object) string {
	if o.Namespace == "" {
		return object.DefaultNamespace
	}
	return o.Namespace
}
