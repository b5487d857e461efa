package render

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
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// fluxGen is fluxcd/pkg/kustomize's Generator (v1.41.0, as
// NewGeneratorWithIgnore makes it) reading through the Repo. That
// generator reads the disk itself (its secure file system, sourceignore's
// walk, os.Lstat), so render runs it only when the repository is on disk;
// this copy of GenerateManifest, step by step and error texts included,
// runs for any other file system.
type fluxGen struct {
	r        *repo
	ks       map[string]any // the Kustomization object
	patterns []gitignore.Pattern
	domain   []string
}

// fluxGenerateManifest is Generator.GenerateManifest(dir): the
// kustomization Flux builds in dir (an absolute directory of r).
func fluxGenerateManifest(r *repo, ks map[string]any, ignore, dir string) ([]byte, error) {
	g := &fluxGen{r: r, ks: ks, domain: strings.Split(dir, string(filepath.Separator))}
	ps, err := g.loadIgnorePatterns(dir, g.domain)
	if err != nil {
		return nil, fmt.Errorf("failed to load ignore patterns: %w", err)
	}
	g.patterns = append(ps, sourceignore.ReadPatterns(strings.NewReader(ignore), g.domain)...)
	data, generated, err := g.findOrGenerate(dir)
	if err != nil {
		return nil, err
	}
	kus := kustypes.Kustomization{TypeMeta: kustypes.TypeMeta{APIVersion: kustypes.KustomizationVersion, Kind: kustypes.KustomizationKind}}
	if err := yaml.Unmarshal(data, &kus); err != nil {
		return nil, err
	}
	if !generated && len(kus.Resources) == 0 {
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
	err := g.r.WalkDir(base, func(p string, d fs.DirEntry, err error) (walkErr error) {
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
		data, err := g.r.ReadFile(p)
		if err != nil {
			return err
		}
		defer func() {
			if r := recover(); r != nil {
				walkErr = fmt.Errorf("recovered from panic while parsing YAML file %s: %v", filepath.Base(p), r)
			}
		}()
		if _, err := rf.SliceFromBytes(data); err != nil {
			return fmt.Errorf("failed to decode Kubernetes YAML from %s: %w", p, err)
		}
		paths = append(paths, p)
		return nil
	})
	return paths, err
}

// ignored is the generator's ignore filter: Flux's defaults, then the
// patterns loaded.
func (g *fluxGen) ignored(p string, isDir bool) bool {
	m := sourceignore.NewDefaultMatcher(g.patterns, g.domain)
	return m.Match(strings.Split(p, string(filepath.Separator)), isDir)
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
