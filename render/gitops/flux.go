package gitops

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/fluxgen"
	"github.com/capreport/capreport/render/internal/fluxsubst"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/valuesfrom"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux objects are read as the kustomize-controller and helm-controller
// read them (fluxcd/kustomize-controller internal/controller,
// fluxcd/helm-controller internal/chartutil and internal/release).

// str reads a string at a path of nested maps.
func str(m map[string]any, keys ...string) string {
	v, _ := dig(m, keys...).(string)
	return v
}

// dig walks nested maps.
func dig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

func mapAt(m map[string]any, keys ...string) map[string]any {
	v, _ := dig(m, keys...).(map[string]any)
	return v
}

// objNamespace is a GitOps object's namespace, "default" when unset.
func objNamespace(o *object.Object) string {
	if o.Namespace == "" {
		return object.DefaultNamespace
	}
	return o.Namespace
}

// localGitSource decides where a Flux sourceRef's files are read: a
// source --source maps to a directory; this repository, when it is the
// bootstrap GitRepository flux-system/flux-system or a GitRepository whose
// URL names it; else ok is false with the reason, and miss says the source
// object was not found.
func (g *engine) localGitSource(o *object.Object, ref map[string]any) (root sourceRoot, ok bool, why string, miss bool) {
	kind, name := str(ref, "kind"), str(ref, "name")
	ns := str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	if m, ok := g.mappedFlux(kind, ns, name); ok && kind != "" {
		return m, true, "", false
	}
	switch kind {
	case "GitRepository":
	case "":
		return sourceRoot{}, false, "spec.sourceRef has no kind", false
	default:
		return sourceRoot{}, false, fmt.Sprintf("its source is %s %s/%s, a remote artifact capreport does not fetch (map it to a local copy with --source %s/%s/%s=PATH)", kind, ns, name, kind, ns, name), false
	}
	src := g.lookup("source.toolkit.fluxcd.io", "GitRepository", ns, name)
	if src == nil {
		if ns == "flux-system" && name == "flux-system" {
			return sourceRoot{note: "GitRepository flux-system/flux-system is Flux's bootstrap source: this repository"}, true, "", false
		}
		return sourceRoot{}, false, fmt.Sprintf("GitRepository %s/%s is not among the rendered objects, so capreport cannot tell which repository it is (map it with --source GitRepository/%s/%s=PATH)", ns, name, ns, name), true
	}
	url := str(src.Doc, "spec", "url")
	if g.repoURLs.Matches(url) {
		return sourceRoot{note: fmt.Sprintf("GitRepository %s/%s: %s", ns, name, g.repoURLs.Decision(url))}, true, "", false
	}
	if ns == "flux-system" && name == "flux-system" {
		return sourceRoot{note: fmt.Sprintf("GitRepository flux-system/flux-system (%s) is Flux's bootstrap source: this repository", url)}, true, "", false
	}
	return sourceRoot{}, false, fmt.Sprintf("GitRepository %s/%s is %s, another repository (%s); %s", ns, name, url, g.repoURLs.Another(url),
		notThisRepo(fmt.Sprintf("GitRepository/%s/%s", ns, name))), false
}

// kustomizationSource resolves a Kustomization's sourceRef: a source read
// from this repository or a mapped directory, or an ExternalArtifact that
// an ArtifactGenerator assembles from one by copies that keep the layout
// below a common prefix, which spec.path is then relative to.
func (g *engine) kustomizationSource(o *object.Object, ref map[string]any) (sourceRoot, bool, string, bool) {
	if str(ref, "kind") != "ExternalArtifact" {
		return g.localGitSource(o, ref)
	}
	ns := str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	name := str(ref, "name")
	if m, ok := g.mappedFlux("ExternalArtifact", ns, name); ok {
		return m, true, "", false
	}
	for _, gen := range g.ofKind("ArtifactGenerator", ns) {
		for _, a := range yamldoc.MapList(dig(gen.Doc, "spec", "artifacts")) {
			if str(a, "name") != name {
				continue
			}
			return g.artifactPrefix(o, gen, a)
		}
	}
	return sourceRoot{}, false, fmt.Sprintf("its source is ExternalArtifact %s/%s, and no ArtifactGenerator among the rendered objects produces it", ns, name), true
}

// artifactPrefix reads the copies of one ArtifactGenerator artifact: each
// must copy "@alias/<dir>/**" of a local GitRepository to
// "@artifact/<sub>/" with <dir> ending in <sub> and one common rest, so
// that the artifact is this repository's <rest> directory.
func (g *engine) artifactPrefix(o, gen *object.Object, a map[string]any) (sourceRoot, bool, string, bool) {
	aliases := map[string]map[string]any{}
	for _, src := range yamldoc.MapList(dig(gen.Doc, "spec", "sources")) {
		aliases[str(src, "alias")] = src
	}
	prefix, set := "", false
	for _, c := range yamldoc.MapList(a["copy"]) {
		from, to := str(c, "from"), str(c, "to")
		alias, dir, ok := strings.Cut(strings.TrimPrefix(from, "@"), "/")
		sub := strings.Trim(strings.TrimPrefix(to, "@artifact"), "/")
		if !strings.HasPrefix(from, "@") || !ok || !strings.HasSuffix(dir, "/**") || !strings.HasPrefix(to, "@artifact") {
			return sourceRoot{}, false, fmt.Sprintf("ArtifactGenerator %s copies %q to %q, which capreport does not map onto this repository", object.Ref(gen), from, to), false
		}
		dir = strings.TrimSuffix(dir, "/**")
		src, ok := aliases[alias]
		if !ok {
			return sourceRoot{}, false, fmt.Sprintf("ArtifactGenerator %s copies from unknown source alias %q", object.Ref(gen), alias), false
		}
		root, local, why, miss := g.localGitSource(gen, src)
		if !local {
			return sourceRoot{}, false, fmt.Sprintf("its ExternalArtifact comes from a source capreport does not follow: %s", why), miss
		}
		dir = path.Join(root.prefix, dir)
		rest, ok := strings.CutSuffix(dir, sub)
		if sub == "" {
			rest, ok = dir+"/", true
		}
		if !ok || (set && rest != prefix) {
			return sourceRoot{}, false, fmt.Sprintf("ArtifactGenerator %s rearranges the repository's layout (%q to %q), which capreport does not follow", object.Ref(gen), from, to), false
		}
		prefix, set = rest, true
	}
	if !set {
		return sourceRoot{}, false, fmt.Sprintf("ArtifactGenerator %s artifact %q copies nothing", object.Ref(gen), str(a, "name")), false
	}
	return sourceRoot{prefix: strings.Trim(prefix, "/")}, true, "", false
}

// sourcePath resolves a path of this repository's source; "" and a
// finding message when it leaves the root or does not exist.
func (g *engine) sourcePath(p string) (string, string) {
	rel := path.Clean(filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Sprintf("path %q leaves the repository root", p)
	}
	if rel = strings.TrimPrefix(rel, "/"); rel == "" {
		rel = "."
	}
	if _, err := g.repo.Resolve(g.repo.Abs(rel)); err != nil {
		return "", fmt.Sprintf("path %q does not exist in this repository", p)
	}
	return rel, ""
}

// fluxPath reads a path inside a Flux source as the controllers join it
// (securejoin): ".." stops at the source's root instead of leaving it.
func fluxPath(p string) string {
	return strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(p)), "/")
}

// expandFluxKustomization builds spec.path as kustomize-controller does:
// Flux's generator amends (or, for a directory without one, writes) the
// kustomization, krusty builds it, then postBuild substitution and
// commonMetadata apply to every object.
func (g *engine) expandFluxKustomization(o *object.Object) *expansion {
	e := &expansion{}
	root, local, why, miss := g.kustomizationSource(o, mapAt(o.Doc, "spec", "sourceRef"))
	e.lookupMiss = miss
	if !local {
		e.findings = append(e.findings, notFollowed(o, why))
		return e
	}
	rel, bad := g.sourcePath(path.Join(root.prefix, fluxPath(str(o.Doc, "spec", "path"))))
	if bad != "" {
		e.findings = append(e.findings, object.Finding(o, check.GitOpsReference, check.SeverityError, bad))
		return e
	}
	spec, err := g.fluxBuildSpec(o, rel)
	if err != nil {
		// The controller's build fails here too: a failed source, which
		// withholds what lies beneath it.
		e.outs = append(e.outs, g.src.Failed(spec, check.RenderFailed, err))
		return e
	}
	out := g.render(spec)
	if pb := mapAt(o.Doc, "spec", "postBuild"); pb != nil {
		vars, fs, miss := g.fluxVars(o, pb)
		e.lookupMiss = e.lookupMiss || miss
		out.Result.Findings = append(out.Result.Findings, fs...)
		out.Result.Findings = append(out.Result.Findings, fluxsubst.All(o, out.Objects, vars)...)
	}
	if cm := mapAt(o.Doc, "spec", "commonMetadata"); cm != nil {
		for i := range out.Objects {
			object.MergeMetadata(&out.Objects[i], mapAt(cm, "labels"), mapAt(cm, "annotations"))
		}
	}
	out.Result.Repository, out.Via = root.note, root.via
	e.outs = append(e.outs, out)
	return e
}

// fluxBuildSpec is the build of a Flux Kustomization at rel: the
// kustomization Flux's generator writes there, built without load
// restrictions. The error is the generator's (the spec then names the
// source that failed).
func (g *engine) fluxBuildSpec(o *object.Object, rel string) (source.Spec, error) {
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
// (render/internal/fluxgen).
func (g *engine) fluxManifest(o *object.Object, rel string) ([]byte, error) {
	r := g.repo
	return fluxgen.Generate(r, g.fluxScans, o.Doc, fluxgen.DefaultIgnore, r.Abs(rel))
}

// fluxVars gathers postBuild variables: each substituteFrom ConfigMap or
// Secret in order, then the inline substitute map over them; newlines are
// removed from values, as kustomize-controller does.
func (g *engine) fluxVars(o *object.Object, pb map[string]any) (map[string]string, []check.Finding, bool) {
	vars := map[string]string{}
	var findings []check.Finding
	miss := false
	refs, _ := pb["substituteFrom"].([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := str(ref, "kind"), str(ref, "name")
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
	if sub := mapAt(pb, "substitute"); sub != nil {
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
func (g *engine) configData(kind, ns, name string) (map[string]string, bool) {
	obj := g.lookup("", kind, ns, name)
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
func (g *engine) notReadable(kind, ns, name string) string {
	obj := g.lookup("", kind, ns, name)
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

// expandHelmRelease renders the chart of a HelmRelease as helm-controller
// installs it: chart from spec.chart.spec (a GitRepository path) or
// spec.chartRef (a HelmChart), values from valuesFrom then spec.values,
// release name and namespace as Flux derives them.
func (g *engine) expandHelmRelease(o *object.Object) *expansion {
	if e, ok := g.expandRemoteHelmRelease(o); ok {
		return e // a chart in a Helm repository or OCI registry (--fetch)
	}
	e := &expansion{}
	chartSpec, root, why, miss := g.helmReleaseChart(o)
	e.lookupMiss = miss
	if why != "" {
		e.findings = append(e.findings, notFollowed(o, why))
		return e
	}
	rel, bad := g.sourcePath(path.Join(root.prefix, fluxPath(str(chartSpec, "chart"))))
	if bad != "" {
		e.findings = append(e.findings, object.Finding(o, check.GitOpsReference, check.SeverityError, "chart "+bad))
		return e
	}
	hv, vals, fs, partial := g.releaseInputs(o, e)
	for _, f := range yamldoc.StrList(chartSpec["valuesFiles"]) {
		hv.ValuesFiles = append(hv.ValuesFiles, path.Join(rel, f))
	}
	if f := str(chartSpec, "valuesFile"); f != "" && len(hv.ValuesFiles) == 0 {
		hv.ValuesFiles = []string{path.Join(rel, f)}
	}
	out := g.renderRelease(o, rel, hv, vals, fs, partial)
	if pr, _ := dig(o.Doc, "spec", "postRenderers").([]any); len(pr) > 0 {
		out.Result.Findings = append(out.Result.Findings, object.Finding(o, check.GitOpsNotFollowed, check.SeverityWarning,
			"spec.postRenderers are not applied: the objects are reported as the chart renders them"))
	}
	out.Result.Repository, out.Via = root.note, root.via
	e.outs = append(e.outs, out)
	return e
}

// renderRelease renders a chart as a release installs it: hv's release
// name, namespace and value files, vals over them; fs are the release's
// findings, and partial marks a render that left a values reference out.
func (g *engine) renderRelease(o *object.Object, rel string, hv helm.Values, vals map[string]any, fs []check.Finding, partial bool) source.Out {
	spec := source.Spec{Path: rel, Type: object.SourceHelm, Name: object.Ref(o), Explicit: true, Helm: hv,
		Delivery: &source.Delivery{HelmOverFiles: vals, Namespace: hv.Namespace}}
	out := g.render(spec)
	out.Result.Findings = append(out.Result.Findings, fs...)
	if partial {
		out.Result.Partial = true
		for i := range out.Objects {
			out.Objects[i].Origin.Partial = true
		}
	}
	return out
}

// helmReleaseChart returns the chart template of a HelmRelease (chart,
// version, sourceRef, valuesFiles), resolving spec.chartRef to a HelmChart;
// why is set when the chart is not in this repository.
func (g *engine) helmReleaseChart(o *object.Object) (map[string]any, sourceRoot, string, bool) {
	chartSpec := mapAt(o.Doc, "spec", "chart", "spec")
	if ref := mapAt(o.Doc, "spec", "chartRef"); ref != nil {
		kind, name, ns := str(ref, "kind"), str(ref, "name"), str(ref, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		if m, ok := g.mappedFlux(kind, ns, name); ok && kind == "OCIRepository" {
			return map[string]any{"chart": "."}, m, "", false // the artifact is the chart
		}
		if kind != "HelmChart" {
			return nil, sourceRoot{}, fmt.Sprintf("spec.chartRef is %s %s/%s, a chart in a registry capreport does not fetch", kind, ns, name), false
		}
		hc := g.lookup("source.toolkit.fluxcd.io", "HelmChart", ns, name)
		if hc == nil {
			return nil, sourceRoot{}, fmt.Sprintf("spec.chartRef HelmChart %s/%s is not among the rendered objects", ns, name), true
		}
		chartSpec = mapAt(hc.Doc, "spec")
		if chartSpec != nil && str(chartSpec, "sourceRef", "namespace") == "" {
			chartSpec = helm.MergeMaps(chartSpec, map[string]any{"sourceRef": map[string]any{"namespace": ns}})
		}
	}
	if chartSpec == nil {
		return nil, sourceRoot{}, "it names no chart (spec.chart.spec or spec.chartRef)", false
	}
	src := mapAt(chartSpec, "sourceRef")
	if k := str(src, "kind"); k == "HelmRepository" || k == "Bucket" && !g.isMapped(o, src) {
		ns := str(src, "namespace")
		if ns == "" {
			ns = objNamespace(o)
		}
		where := ""
		if repo := g.lookup("source.toolkit.fluxcd.io", k, ns, str(src, "name")); repo != nil {
			where = " at " + str(repo.Doc, "spec", "url")
		}
		version := str(chartSpec, "version")
		if version == "" {
			version = "*"
		}
		return nil, sourceRoot{}, fmt.Sprintf("chart %q version %q comes from %s %s/%s%s, which capreport does not fetch", str(chartSpec, "chart"), version, k, ns, str(src, "name"), where), false
	}
	root, local, why, miss := g.localGitSource(o, src)
	if !local {
		return nil, sourceRoot{}, why, miss
	}
	return chartSpec, root, "", false
}

// isMapped reports whether --source maps the source ref of o.
func (g *engine) isMapped(o *object.Object, ref map[string]any) bool {
	ns := str(ref, "namespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	_, ok := g.mappedFlux(str(ref, "kind"), ns, str(ref, "name"))
	return ok
}

// releaseInputs are what helm-controller renders a HelmRelease's chart
// with, wherever the chart comes from: the release name, the target
// namespace (else the release's own) and the composed values. A missing
// reference marks e.
func (g *engine) releaseInputs(o *object.Object, e *expansion) (helm.Values, map[string]any, []check.Finding, bool) {
	vals, fs, partial, miss := g.helmReleaseValues(o)
	e.lookupMiss = e.lookupMiss || miss
	ns := str(o.Doc, "spec", "targetNamespace")
	if ns == "" {
		ns = objNamespace(o)
	}
	return helm.Values{ReleaseName: fluxReleaseName(o), Namespace: ns}, vals, fs, partial
}

// helmReleaseValues merges valuesFrom in order (a whole values document,
// or one value at targetPath), then spec.values over them, as
// helm-controller's ChartValuesFromReferences does. A missing reference is
// skipped when optional, else a finding and the render is partial.
func (g *engine) helmReleaseValues(o *object.Object) (map[string]any, []check.Finding, bool, bool) {
	result := map[string]any{}
	var findings []check.Finding
	partial, miss := false, false
	unread := 0
	refs, _ := dig(o.Doc, "spec", "valuesFrom").([]any)
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := str(ref, "kind"), str(ref, "name")
		key := str(ref, "valuesKey")
		if key == "" {
			key = "values.yaml"
		}
		optional, _ := ref["optional"].(bool)
		data, found := g.configData(kind, objNamespace(o), name)
		value, hasKey := data[key]
		if !found || !hasKey {
			miss = miss || !found
			if optional {
				continue
			}
			what := g.notReadable(kind, objNamespace(o), name)
			if found {
				what = fmt.Sprintf("has no key %q", key)
			}
			partial = true
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityWarning,
				fmt.Sprintf("valuesFrom %s %s/%s %s; rendered without those values", kind, objNamespace(o), name, what)))
			continue
		}
		if g.valuesFrom.Spend(len(value)) != nil {
			unread++
			continue
		}
		if tp := str(ref, "targetPath"); tp != "" {
			if err := replacePathValue(result, tp, value); err != nil {
				findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError,
					fmt.Sprintf("valuesFrom %s %s targetPath %q: %v", kind, name, tp, err)))
			}
			continue
		}
		vals, err := g.valuesFrom.Document(value)
		if err != nil {
			findings = append(findings, object.Finding(o, check.GitOpsReference, check.SeverityError,
				fmt.Sprintf("valuesFrom %s %s key %q is not a YAML mapping: %v", kind, name, key, err)))
			continue
		}
		result = helm.MergeMaps(result, vals)
	}
	if unread > 0 {
		partial = true
		findings = append(findings, valuesfrom.BudgetFinding(o, unread))
	}
	if v := mapAt(o.Doc, "spec", "values"); v != nil {
		result = helm.MergeMaps(result, v)
	}
	return result, findings, partial, miss
}

// replacePathValue sets the value at a dot path with Helm's --set parser;
// a quoted value is taken as a string (helm-controller ReplacePathValue).
func replacePathValue(values map[string]any, p, value string) error {
	quoted := (strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'")) ||
		(strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`))
	if quoted {
		return strvals.ParseIntoString(p+"="+strings.Trim(value, `'"`), values)
	}
	return strvals.ParseInto(p+"="+value, values)
}

// fluxReleaseName is spec.releaseName, else [targetNamespace-]name,
// shortened past Helm's 53 characters as helm-controller does (the first
// 40 characters, a dash, and 12 hex digits of the full name's SHA-256).
func fluxReleaseName(o *object.Object) string {
	if n := str(o.Doc, "spec", "releaseName"); n != "" {
		return n
	}
	name := o.Name
	if tn := str(o.Doc, "spec", "targetNamespace"); tn != "" {
		name = tn + "-" + name
	}
	if len(name) <= 53 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:40] + "-" + fmt.Sprintf("%x", sum)[:12]
}
