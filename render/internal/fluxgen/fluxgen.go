// Package fluxgen is Flux's kustomization generator (fluxcd/pkg/kustomize
// Generator) over the repository as capreport reads it: the
// kustomization kustomize-controller builds in a Kustomization's
// spec.path, amended with the Kustomization's own fields, or written for a
// directory that has none, with source-controller's ignore rules.
package fluxgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	fluxapi "github.com/fluxcd/pkg/apis/kustomize"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/repofs"
)

// fluxGen is fluxcd/pkg/kustomize's Generator (v1.41.0, as
// NewGeneratorWithIgnore makes it) reading through the Repo, step by step
// and error texts included: the Repo's bounds and refusals apply to what it
// reads (the upstream generator reads the disk itself, every file whole).
// What depends only on the directory, not on the Kustomization (the
// ignore rules and the kustomization found or generated there), is made
// once per run (Scans).
type fluxGen struct {
	r        *repofs.Repo
	ks       map[string]any // the Kustomization object
	patterns []gitignore.Pattern
	domain   []string
	scans    *Scans
	// matcher is Flux's default matcher over patterns, made when first
	// needed (ignored); nil again whenever patterns change.
	matcher gitignore.Matcher
}

// DefaultIgnore are source-controller's default exclusions: the artifact a
// Kustomization builds never holds them.
var DefaultIgnore = strings.ReplaceAll(strings.Join([]string{sourceignore.ExcludeVCS, sourceignore.ExcludeExt, sourceignore.ExcludeCI, sourceignore.ExcludeExtra}, ","), ",", "\n")

// Scans is one run's memo of the generator's directory work, and the
// parent's budget for decoding the files it lists. The generator decodes
// every YAML file it lists (kyaml's resource factory), and fails when one
// does not decode; krusty decodes each again with the same factory when
// the Kustomization is built, in a worker whose memory and time are
// bounded. That decoding costs far more than the file: 190 bytes allocated
// per byte read, and time growing with the square of a mapping's keys (a
// 576 KB ConfigMap of 50,000 keys: 19 s; Flux's generator lets a 40 MB one
// take over 4 GB). So the parent decodes only files of at most
// fluxDecodeBytes, fluxDecodeBudget bytes in all; a larger one, or one
// past the budget, is listed undecoded and the build decides: a file that
// does not decode fails the build there as it fails Flux's generation,
// with krusty's words instead of the generator's.
type Scans struct {
	dirs    map[string]fluxDirScan
	decoded map[string]error
	budget  int64
}

// fluxDirScan is the generator's work in one directory.
type fluxDirScan struct {
	patterns  []gitignore.Pattern
	data      []byte
	generated bool
	err       error
}

const (
	// fluxDecodeBytes is the largest file the parent decodes: a
	// Kubernetes manifest is rarely larger, and a hostile one takes
	// about 20 ms.
	fluxDecodeBytes = 16 << 10
	// fluxDecodeBudget is what the parent decodes in one run: several
	// times the YAML of the largest GitOps repositories read here, and at
	// most about 20 s of hostile files.
	fluxDecodeBudget = 16 << 20
)

func NewScans() *Scans {
	return &Scans{dirs: map[string]fluxDirScan{}, decoded: map[string]error{}, budget: fluxDecodeBudget}
}

// Generate is Generator.GenerateManifest(dir): the
// kustomization Flux builds in dir (an absolute directory of r).
func Generate(r *repofs.Repo, scans *Scans, ks map[string]any, ignore, dir string) ([]byte, error) {
	g := &fluxGen{r: r, ks: ks, domain: strings.Split(dir, string(filepath.Separator)), scans: scans}
	scan := g.scanDir(ignore, dir)
	if scan.err != nil {
		return nil, scan.err
	}
	g.patterns, g.matcher = scan.patterns, nil
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	if err := yaml.Unmarshal(scan.data, &kus); err != nil {
		return nil, err
	}
	if !scan.generated && len(kus.Resources) == 0 {
		// no resources: build metadata avoids "kustomization.yaml is empty"
		kus.BuildMetadata = []string{"originAnnotations"}
	}
	if err := g.filterIgnored(&kus, dir); err != nil {
		return nil, err
	}
	if err := g.amend(&kus, dir); err != nil {
		return nil, err
	}
	return yaml.Marshal(kus)
}

// scanDir is the generator's work in dir that does not depend on the
// Kustomization, from the run's memo when it was done already.
func (g *fluxGen) scanDir(ignore, dir string) fluxDirScan {
	key := dir + "\x00" + ignore
	if s, ok := g.scans.dirs[key]; ok {
		return s
	}
	var s fluxDirScan
	ps, err := g.loadIgnorePatterns(dir, g.domain)
	if err != nil {
		s.err = fmt.Errorf("failed to load ignore patterns: %w", err)
	} else {
		g.patterns, g.matcher = append(ps, sourceignore.ReadPatterns(strings.NewReader(ignore), g.domain)...), nil
		s.patterns = g.patterns
		s.data, s.generated, s.err = g.findOrGenerate(dir)
	}
	g.scans.dirs[key] = s
	return s
}

// loadIgnorePatterns is sourceignore.LoadIgnorePatterns: the .sourceignore
// files of dir and of every directory below it but .git.
func (g *fluxGen) loadIgnorePatterns(dir string, domain []string) ([]gitignore.Pattern, error) {
	dom := slices.Clone(domain)
	var ps []gitignore.Pattern
	data, err := g.r.ReadFile(filepath.Join(dir, sourceignore.IgnoreFile))
	switch {
	case err == nil:
		ps = sourceignore.ReadPatterns(strings.NewReader(string(data)), dom)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	ents, err := g.r.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir() && e.Name() != ".git" {
			sub, err := g.loadIgnorePatterns(filepath.Join(dir, e.Name()), append(dom, e.Name()))
			if err != nil {
				return nil, err
			}
			ps = append(ps, sub...)
		}
	}
	return ps, nil
}

// findOrGenerate is findOrGenerateKustomization: dir's kustomization, else
// (generated) one listing the manifests and kustomizations below dir.
func (g *fluxGen) findOrGenerate(dir string) ([]byte, bool, error) {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if kpath := filepath.Join(dir, n); g.r.Exists(kpath) && !g.r.IsDir(kpath) {
			data, err := g.r.ReadFile(kpath)
			return data, false, err
		}
	}
	files, err := g.scanManifests(dir)
	if err != nil {
		return nil, true, err
	}
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	var resources []string
	for _, f := range files {
		resources = append(resources, strings.Replace(f, dir, ".", 1))
	}
	if len(resources) == 0 {
		kus.Namespace = "_placeholder" // avoids "kustomization.yaml is empty"
	} else {
		kus.Resources = resources
	}
	data, err := yaml.Marshal(kus)
	return data, true, err
}

// scanManifests lists the YAML files below base that decode as
// Kubernetes objects, and the directories holding a kustomization (not
// descended into).
func (g *fluxGen) scanManifests(base string) ([]string, error) {
	var paths []string
	rf := provider.NewDefaultDepProvider().GetResourceFactory()
	err := g.r.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == base {
			return err
		}
		if d.IsDir() {
			for _, n := range konfig.RecognizedKustomizationFileNames() {
				if kpath := filepath.Join(p, n); g.r.Exists(kpath) && !g.r.IsDir(kpath) {
					paths = append(paths, p)
					return filepath.SkipDir
				}
			}
			return nil
		}
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" || len(g.patterns) > 0 && g.ignored(p, false) {
			return nil
		}
		if err := g.decodes(p, d, rf); err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	return paths, err
}

// decodes is the generator's check that a file decodes as Kubernetes
// YAML, made once per file in a run and only within the parent's bounds
// (Scans); a file it does not decode passes, for the build to decide.
func (g *fluxGen) decodes(p string, d fs.DirEntry, rf *resource.Factory) error {
	if err, ok := g.scans.decoded[p]; ok {
		return err
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	if info.Size() > fluxDecodeBytes || info.Size() > g.scans.budget {
		return nil
	}
	g.scans.budget -= info.Size()
	data, err := g.r.ReadFile(p)
	if err == nil {
		err = decodeManifest(rf, p, data)
	}
	g.scans.decoded[p] = err
	return err
}

// decodeManifest is the generator's decoding of one file, a panic
// included.
func decodeManifest(rf *resource.Factory, p string, data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from panic while parsing YAML file %s: %v", filepath.Base(p), r)
		}
	}()
	if _, err := rf.SliceFromBytes(data); err != nil {
		return fmt.Errorf("failed to decode Kubernetes YAML from %s: %w", p, err)
	}
	return nil
}

// ignored is the generator's ignore filter: Flux's defaults, then the
// patterns loaded.
func (g *fluxGen) ignored(p string, isDir bool) bool {
	if g.matcher == nil {
		// One per generation: its patterns are fixed by then, and making
		// one compiles Flux's default patterns again.
		g.matcher = sourceignore.NewDefaultMatcher(g.patterns, g.domain)
	}
	return g.matcher.Match(strings.Split(p, string(filepath.Separator)), isDir)
}

// filterIgnored is filterKsWithIgnoreFiles: resources, components (URLs
// kept) and crds that the ignore rules exclude are left out; one that does
// not exist fails the generation.
func (g *fluxGen) filterIgnored(kus *kustypes.Kustomization, dir string) error {
	for _, l := range []struct {
		list *[]string
		crds bool
	}{{&kus.Resources, false}, {&kus.Components, false}, {&kus.Crds, true}} {
		kept := (*l.list)[:0]
		for _, res := range *l.list {
			if u, err := url.ParseRequestURI(res); l.crds || err != nil || u.Scheme == "" {
				p := filepath.Join(dir, res)
				fi, err := g.r.Lstat(p)
				if err != nil {
					return err
				}
				if g.ignored(p, fi.IsDir()) {
					continue
				}
			}
			kept = append(kept, res)
		}
		*l.list = kept
	}
	return nil
}

// amend applies the Kustomization's spec, in GenerateManifest's order.
func (g *fluxGen) amend(kus *kustypes.Kustomization, dir string) error {
	for _, f := range []struct {
		field string
		to    *string
	}{{"targetNamespace", &kus.Namespace}, {"namePrefix", &kus.NamePrefix}, {"nameSuffix", &kus.NameSuffix}} {
		v, ok, err := unstructured.NestedString(g.ks, "spec", f.field)
		if err != nil {
			return err
		}
		if ok {
			*f.to = v
		}
	}
	patches, err := fluxList[fluxapi.Patch](g.ks, "patches")
	if err != nil {
		return fmt.Errorf("unable to get patches: %w", err)
	}
	for _, p := range patches {
		kus.Patches = append(kus.Patches, kustypes.Patch{Patch: p.Patch, Target: adaptSelector(p.Target)})
	}
	if err := g.components(kus, dir); err != nil {
		return err
	}
	sm, err := fluxList[apiextensionsv1.JSON](g.ks, "patchesStrategicMerge")
	if err != nil {
		return fmt.Errorf("unable to get patchesStrategicMerge: %w", err)
	}
	for _, p := range sm {
		//lint:ignore SA1019 Flux's generator fills the deprecated field; krusty still reads it
		kus.PatchesStrategicMerge = append(kus.PatchesStrategicMerge, kustypes.PatchStrategicMerge(p.Raw))
	}
	js, err := fluxList[fluxapi.JSON6902Patch](g.ks, "patchesJson6902")
	if err != nil {
		return fmt.Errorf("unable to get patchesJson6902: %w", err)
	}
	for _, p := range js {
		patch, err := json.Marshal(p.Patch)
		if err != nil {
			return err
		}
		//lint:ignore SA1019 Flux's generator fills the deprecated field; krusty still reads it
		kus.PatchesJson6902 = append(kus.PatchesJson6902, kustypes.Patch{Patch: string(patch), Target: adaptSelector(&p.Target)})
	}
	images, err := fluxList[fluxapi.Image](g.ks, "images")
	if err != nil {
		return fmt.Errorf("unable to get images: %w", err)
	}
	mergeFluxImages(kus, images)
	bm, _, err := unstructured.NestedStringSlice(g.ks, "spec", "buildMetadata")
	if err != nil {
		return fmt.Errorf("unable to get buildMetadata: %w", err)
	}
	if len(bm) > 0 {
		kus.BuildMetadata = bm
	}
	return nil
}

// components adds spec.components (local and relative only; a missing one
// left out when ignoreMissingComponents is set).
func (g *fluxGen) components(kus *kustypes.Kustomization, dir string) error {
	components, _, err := unstructured.NestedStringSlice(g.ks, "spec", "components")
	if err != nil {
		return fmt.Errorf("unable to get components: %w", err)
	}
	ignoreMissing, _, _ := unstructured.NestedBool(g.ks, "spec", "ignoreMissingComponents")
	for _, c := range components {
		if !fluxkustomize.IsLocalRelativePath(c) {
			return fmt.Errorf("component path '%s' must be local and relative", c)
		}
		if !g.r.Exists(filepath.Join(dir, c)) && ignoreMissing {
			continue
		}
		kus.Components = append(kus.Components, c)
	}
	return nil
}

// fluxList decodes the list spec.field of ks, each entry into a T, as the
// generator's getPatches, getImages and the like do.
func fluxList[T any](ks map[string]any, field string) ([]T, error) {
	items, ok, err := unstructured.NestedSlice(ks, "spec", field)
	if err != nil || !ok {
		return nil, err
	}
	var resultErr error
	res := make([]T, 0, len(items))
	for k, item := range items {
		m, ok := item.(map[string]any)
		if !ok {
			resultErr = errors.Join(resultErr, fmt.Errorf("unable to convert patch %d to map[string]interface{}", k))
		}
		var v T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &v); err != nil {
			resultErr = errors.Join(resultErr, err)
		}
		res = append(res, v)
	}
	return res, resultErr
}

// mergeFluxImages merges spec.images into the kustomization's: fields of
// an image it lists are overridden (newTag and digest together), others
// appended.
func mergeFluxImages(kus *kustypes.Kustomization, images []fluxapi.Image) {
	for _, image := range images {
		i := slices.IndexFunc(kus.Images, func(k kustypes.Image) bool { return k.Name == image.Name })
		if i < 0 {
			kus.Images = append(kus.Images, kustypes.Image{Name: image.Name, NewName: image.NewName, NewTag: image.NewTag, Digest: image.Digest})
			continue
		}
		if image.NewName != "" {
			kus.Images[i].NewName = image.NewName
		}
		if image.NewTag != "" || image.Digest != "" {
			kus.Images[i].NewTag = image.NewTag
			kus.Images[i].Digest = image.Digest
		}
	}
}

// adaptSelector is the generator's: Flux's selector as kustomize's.
func adaptSelector(s *fluxapi.Selector) *kustypes.Selector {
	if s == nil {
		return nil
	}
	out := &kustypes.Selector{LabelSelector: s.LabelSelector, AnnotationSelector: s.AnnotationSelector}
	out.Gvk.Group, out.Gvk.Kind, out.Gvk.Version = s.Group, s.Kind, s.Version
	out.Name, out.Namespace = s.Name, s.Namespace
	return out
}
