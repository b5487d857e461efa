package kustomize

import (
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// A Builder builds kustomizations as `kustomize build` does (krusty,
// in-process, plugins off), reading the repository only through Repo.
type Builder struct {
	Repo *repofs.Repo
	// Fetch keeps remote bases and charts in a scan, for krusty and the
	// chart renderer to fetch (--fetch); Fetched, when set, is called when
	// a build reads krusty's clones.
	Fetch   bool
	Fetched func()
	// StubCRDs has the CRDs a kustomization lists only as resources read
	// as stubs; KrustyTraced traces every traced build with krusty's own
	// tracing rather than capreport's file annotations (the tests compare).
	StubCRDs, KrustyTraced bool
	// MaxObjects bounds the objects of one build.
	MaxObjects int
	// Memo, when set, is the process's memo of what reading each file
	// cost (ReadMemo), shared by its builds.
	Memo *ReadMemo
	// Charts renders helmCharts entries; Namespace is their namespace when
	// the entry names none.
	Charts    *helm.Renderer
	Namespace string
}

// A Source is one kustomization to build.
type Source struct {
	Dir string // absolute, inside the root
	// Path and ID name the source in messages and origins.
	Path, ID string
	// KustDoc, when set, is a GitOps object's own kustomization, built in
	// place of the directory's file; LoadAnywhere lets the build list
	// files outside its directory (Flux's build); Delivered says a GitOps
	// object delivers it (its objects' origins name the file that listed
	// them).
	KustDoc      map[string]any
	LoadAnywhere bool
	Delivered    bool
}

func (b *Builder) fetched() {
	if b.Fetched != nil {
		b.Fetched()
	}
}

// Scan scans the kustomization of a source (a GitOps
// object's own in place of the file, when it has one) and returns the
// findings of what it leaves out; err refuses the source.
func (b *Builder) Scan(src Source) (*kustscan.Scan, []check.Finding, error) {
	dir := src.Dir
	r := b.Repo
	sc := b.NewScan()
	if src.KustDoc != nil {
		kf := kustscan.KustomizationFile(r, dir)
		generated := kf == ""
		if generated {
			kf = filepath.Join(dir, "kustomization.yaml")
		}
		sc.Override[dir] = &kustscan.Kustomization{File: kf, Doc: src.KustDoc, Generated: generated}
	}
	sc.LoadAnywhere = src.LoadAnywhere
	sc.Scan(dir, false)
	var findings []check.Finding
	for _, ref := range sc.Partials {
		findings = append(findings, check.Finding{Check: ref.Check, Severity: check.SeverityWarning, Location: check.At(ref.File, 0), Message: ref.Msg})
	}
	if len(sc.Refusals) > 0 {
		for _, ref := range sc.Refusals[1:] {
			findings = append(findings, check.Finding{Check: ref.Check, Severity: check.SeverityError, Location: check.At(ref.File, 0), Message: ref.Msg})
		}
		return nil, findings, sc.Refusals[0]
	}
	if sc.RootIsComponent && !sc.LoadAnywhere {
		return nil, nil, fmt.Errorf("%s is a Component; it renders only as part of a kustomization", src.Path)
	}
	return sc, findings, nil
}

// Build runs krusty on a scanned kustomization, traced or not,
// and returns its objects. krusty first reads the files listed only as
// resources rewritten (kustread): with Options.StubCRDs their CRDs as
// stubs, and in a traced build whose every object comes from such a file
// each object annotated with its file, in place of krusty's own tracing
// (kustscan.Scan.Annotatable). A build that fails then, in which
// something wrote to a stub past its identity, or that holds an object
// the annotations missed, is built again from the files as they are
// (traced by krusty when traced at all), so that what it yields or
// reports is krusty's own.
func (b *Builder) Build(src Source, sc *kustscan.Scan, trace bool) ([]object.Object, []check.Finding, error) {
	realDir, err := b.Repo.EvalSymlinks(src.Dir)
	if err != nil {
		return nil, nil, err
	}
	rm, findings, err := b.runKrustyRewritten(sc, realDir, trace)
	if err != nil {
		return nil, findings, err
	}
	docs, err := BuiltDocs(rm, b.MaxObjects)
	if err != nil {
		return nil, findings, err
	}
	return b.objects(docs, src, realDir, sc), findings, nil
}

// runKrustyRewritten builds realDir reading the resource files rewritten,
// and again from the files as they are when the rewrite could have
// changed the outcome. A build that failed yields no objects, so only its
// error matters: it is built again untraced (tracing changes no error),
// and traced only if it then succeeds.
func (b *Builder) runKrustyRewritten(sc *kustscan.Scan, realDir string, trace bool) (resmap.ResMap, []check.Finding, error) {
	read := Rewrite{Stub: b.StubCRDs, Annotate: trace && !b.KrustyTraced && sc.Annotatable()}
	rm, findings, got, err := b.runKrusty(sc, realDir, trace && !read.Annotate, read)
	switch {
	case !got.Stubbed && !read.Annotate:
		return rm, findings, err
	case err != nil:
		rm, findings, _, err = b.runKrusty(sc, realDir, false, Rewrite{})
		if err == nil && trace {
			rm, findings, _, err = b.runKrusty(sc, realDir, true, Rewrite{})
		}
	case got.Unsure || got.Stubbed && Unstub(rm):
		rm, findings, _, err = b.runKrusty(sc, realDir, trace, Rewrite{})
	}
	return rm, findings, err
}

// runKrusty builds realDir over the scanned tree, with krusty's tracing
// when trace is set and the files listed only as resources rewritten as
// read says.
func (b *Builder) runKrusty(sc *kustscan.Scan, realDir string, trace bool, read Rewrite) (resmap.ResMap, []check.Finding, Rewritten, error) {
	tr := kustscan.Tracing{Krusty: trace, Generators: read.Annotate}
	overlay, findings, err := b.rewriteKustomizations(sc, tr)
	if err != nil {
		return nil, findings, Rewritten{}, err
	}
	safe := b.scanFS(sc, overlay)
	if read.Stub || read.Annotate {
		safe.Rewrite, safe.RewriteFile = read, sc.ResourceOnly
	}
	kopts := krusty.MakeDefaultOptions()
	kopts.LoadRestrictions = types.LoadRestrictionsRootOnly
	if sc.LoadAnywhere {
		// kustomize-controller's build (fluxcd/pkg/kustomize Build); safe
		// still refuses every read outside the repository root.
		kopts.LoadRestrictions = types.LoadRestrictionsNone
	}
	kopts.PluginConfig = types.DisabledPluginConfig()
	var rm resmap.ResMap
	withSchemaState(sc.MayNameSchema(), func() { rm, err = krusty.MakeKustomizer(kopts).Run(safe, realDir) })
	if v := safe.FirstViolation(); v != nil {
		return nil, findings, safe.Rewrote(), v
	}
	return rm, findings, safe.Rewrote(), err
}

// objects turns krusty's output into objects, each traced to the
// file and line it came from (its origin annotation), or to the
// kustomization when krusty generated it.
func (b *Builder) objects(docs []map[string]any, src Source, realDir string, sc *kustscan.Scan) []object.Object {
	r := b.Repo
	lines := NewLineIndex(r, b.MaxObjects, b.Memo)
	objs := make([]object.Object, 0, len(docs))
	for _, doc := range docs {
		file, line, annLines := TakeOrigin(doc, realDir, r, lines)
		o, ok := object.FromDoc(doc)
		if !ok {
			continue
		}
		if file == "" {
			file = src.Path
			if kf := kustscan.KustomizationFile(r, realDir); kf != "" {
				file = r.Rel(kf)
			}
		}
		o.Origin = object.Origin{Source: src.ID, SourceType: object.SourceKustomize, File: file, Line: line, AnnotationLines: annLines}
		if via, ok := sc.ListedBy[r.Abs(file)]; ok && src.Delivered {
			o.Origin.Via = r.Rel(via)
		}
		objs = append(objs, o)
	}
	return objs
}

// rewriteKustomizations returns the in-memory copy of every kustomization
// the build reads (kustscan.Scan.Rewrite), helmCharts entries inflated
// with the Helm SDK.
func (b *Builder) rewriteKustomizations(sc *kustscan.Scan, tr kustscan.Tracing) (map[string][]byte, []check.Finding, error) {
	var findings []check.Finding
	overlay, err := sc.Rewrite(func(dir string, k *kustscan.Kustomization, doc, hc map[string]any) ([]byte, error) {
		data, fs, err := b.inflateHelmChart(dir, k, doc, hc)
		findings = append(findings, fs...)
		return data, err
	}, tr)
	return overlay, findings, err
}

// inflateHelmChart renders one helmCharts entry with the Helm SDK and
// returns a YAML stream whose objects carry their template origin.
func (b *Builder) inflateHelmChart(kdir string, k *kustscan.Kustomization, doc, hc map[string]any) ([]byte, []check.Finding, error) {
	sc := b.NewScan()
	chartDir := sc.LocalChart(kdir, k.File, doc, hc)
	if chartDir == "" && len(sc.Refusals) > 0 {
		return nil, nil, sc.Refusals[0]
	}
	remote := helmChartsRemote(hc, chartDir)
	hv := helm.Values{Namespace: b.Namespace}
	hv.ReleaseName, _ = hc["releaseName"].(string)
	if hv.ReleaseName == "" {
		hv.ReleaseName = "release-name" // helm template's default, as kustomize uses it
	}
	if ns, _ := hc["namespace"].(string); ns != "" {
		hv.Namespace = ns
	}
	for _, f := range append(yamldoc.StrList(hc["valuesFile"]), yamldoc.StrList(hc["additionalValuesFiles"])...) {
		if kustscan.LooksRemote(f) {
			return nil, nil, &kustscan.Refusal{Check: check.RemoteBase, File: b.Repo.Rel(k.File), Msg: fmt.Sprintf("%s: helmCharts values file %q is remote; capreport never fetches it", b.Repo.Rel(k.File), f)}
		}
		hv.ValuesFiles = append(hv.ValuesFiles, filepath.Join(kdir, filepath.FromSlash(f)))
	}
	inline, _ := hc["valuesInline"].(map[string]any)
	if m, _ := hc["valuesMerge"].(string); m == "replace" && inline != nil {
		hv.ValuesFiles = nil
	}
	skipHooks, _ := hc["skipHooks"].(bool)
	kv, _ := hc["kubeVersion"].(string)
	hobjs, findings, err := b.Charts.Render(helm.Request{
		ChartDir: chartDir, Values: hv, Inline: inline, Remote: remote,
		APIVersions: yamldoc.StrList(hc["apiVersions"]), KubeVersion: kv,
		SkipTests: true, SkipHooks: skipHooks,
	})
	if err != nil {
		return nil, findings, fmt.Errorf("helmCharts %q: %w", hc["name"], err)
	}
	var out strings.Builder
	for _, h := range hobjs {
		y, err := sigsyaml.Marshal(MarkHelmOrigin(h))
		if err != nil {
			return nil, findings, err
		}
		out.WriteString("---\n")
		out.Write(y)
	}
	return []byte(out.String()), findings, nil
}

// helmChartsRemote is a helmCharts entry to fetch, as kustomize's
// HelmChartInflationGenerator pulls it (helm pull --repo <repo> <name>
// --version <version>, or <repo>/<name> for an oci:// repo); nil when the
// chart is vendored.
func helmChartsRemote(hc map[string]any, chartDir string) *helm.Remote {
	if chartDir != "" {
		return nil
	}
	repo, _ := hc["repo"].(string)
	name, _ := hc["name"].(string)
	version, _ := hc["version"].(string)
	return &helm.Remote{RepoURL: repo, Name: name, Version: version}
}

// NewScan is a scan that keeps remote entries when fetching is on.
func (b *Builder) NewScan() *kustscan.Scan {
	sc := kustscan.New(b.Repo)
	sc.Fetch = b.Fetch
	return sc
}

// scanFS is the filesystem the scanned build reads, with krusty's
// clones readable when the scan kept a remote base.
func (b *Builder) scanFS(sc *kustscan.Scan, overlay map[string][]byte) *FS {
	fs := NewFS(b.Repo, overlay)
	fs.Memo = b.Memo
	fs.Clones = sc.Remote
	if sc.Remote {
		b.fetched()
	}
	return fs
}
