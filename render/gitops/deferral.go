package gitops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// Render may leave unrendered the sources it expects a Flux Kustomization
// to deliver (source.Out.Deferred): on a production Flux repository most
// directories are delivered, and rendering each on its own first, only to
// supersede it, cost as much as the deliveries. Follow then follows the
// repository without them, and the result is the one it would have made
// with them only if leaving them out changed nothing it decided:
//
//   - each must end superseded by a delivery that read it, before the walk
//     (plan) or after it (supersedeLate), neither withheld nor left
//     standing on its own, where its own render would have been reported;
//   - no reference the run resolved may have found one of their objects:
//     a reference that found nothing, or found a standalone object, could
//     have found the standalone copy of an object a deferred source holds
//     (the engine knows every standalone object before it follows
//     anything), while one that found a delivered object found the latest
//     copy either way. Their objects are known by the deliveries that read
//     them, which hold them with the same kind and name (a delivering
//     Kustomization may change a namespace, not a name).
//
// When either fails, Followed.Redo says why, and the caller renders them
// and follows again.

// deferralCheck records what the run's references asked for that no
// delivered object answered.
type deferralCheck struct {
	// standalone is how many of the engine's known objects are the
	// standalone renders' (they come first).
	standalone int
	// asked holds kind, name and group of each such reference; a name of
	// "" stands for every name (OfKind), a group of "" for every group.
	asked map[string][]string
}

func newDeferralCheck(outs []source.Out) *deferralCheck {
	for i := range outs {
		if outs[i].Deferred {
			return &deferralCheck{asked: map[string][]string{}}
		}
	}
	return nil
}

// knowStandalone says that the engine's first n known objects are the
// standalone renders'. configureFromRoots may know them again, as many.
func (d *deferralCheck) knowStandalone(n int) {
	if d != nil {
		d.standalone = n
	}
}

// noteLookup records a reference to kind/name (group apiGroup) that found
// the known object at index at, or nothing (-1).
func (d *deferralCheck) noteLookup(apiGroup, kind, name string, at int) {
	if d == nil || at >= d.standalone {
		return
	}
	k := kind + "\x00" + name
	if !slices.Contains(d.asked[k], apiGroup) {
		d.asked[k] = append(d.asked[k], apiGroup)
	}
}

// askedFor reports whether a recorded reference could have found o, or,
// with anyName, an object of o's kind and group under another name.
func (d *deferralCheck) askedFor(o *object.Object, anyName bool) bool {
	group := object.Group(o.APIVersion)
	for k, groups := range d.asked {
		kind, name, _ := strings.Cut(k, "\x00")
		if kind != o.Kind || !(anyName || name == "" || name == o.Name) {
			continue
		}
		for _, g := range groups {
			if g == "" || g == group {
				return true
			}
		}
	}
	return false
}

// redo is why following without the deferred sources of outs (the
// standalone renders, after the walk) may differ from following with them;
// "" when it cannot. delivered are the walk's renders; render renders a
// deferred source on its own, when a delivery that may rename objects
// (mayRename, which reads files with readFile) leaves only its own render
// to say what names it holds.
func (d *deferralCheck) redo(outs, delivered []source.Out, render func(source.Spec) source.Out, readFile func(string) ([]byte, error)) string {
	if d == nil {
		return ""
	}
	deferred := map[string]source.Spec{}
	for _, o := range outs {
		if !o.Deferred {
			continue
		}
		if o.Result.Status != object.StatusDelivered {
			return fmt.Sprintf("%s was not rendered on its own, and no delivery superseded it (%s)", o.Result.Path, o.Result.Status)
		}
		deferred[o.Result.Path] = o.Spec
	}
	rendered := map[string]bool{}
	for _, o := range delivered {
		read := deferredRead(o.Covered, deferred)
		if len(read) == 0 {
			continue
		}
		anyName := mayRename(o.Spec, readFile)
		for j := range o.Objects {
			obj := &o.Objects[j]
			if !d.askedFor(obj, anyName) {
				continue
			}
			if !anyName {
				return fmt.Sprintf("a reference may have found %s %s of %s on its own", obj.Kind, obj.Name, o.Result.Path)
			}
			if why := d.askedOfOwn(holding(obj, read), deferred, rendered, render); why != "" {
				return why
			}
		}
	}
	return ""
}

// askedOfOwn renders on their own the deferred sources at paths (each once
// a run) and says which object of theirs a recorded reference could have
// found; "" when none could.
func (d *deferralCheck) askedOfOwn(paths []string, deferred map[string]source.Spec, rendered map[string]bool, render func(source.Spec) source.Out) string {
	for _, p := range paths {
		if rendered[p] {
			continue
		}
		rendered[p] = true
		// A render that failed holds nothing a reference could have found
		// (the home-ops namespace kustomizations that build only in Flux).
		own := render(deferred[p])
		if s := own.Result.Status; s != object.StatusRendered && s != object.StatusFailed {
			return fmt.Sprintf("%s, rendered on its own to check the references, is %s", p, s)
		}
		for j := range own.Objects {
			if obj := &own.Objects[j]; d.askedFor(obj, false) {
				return fmt.Sprintf("a reference may have found %s %s of %s on its own", obj.Kind, obj.Name, p)
			}
		}
	}
	return ""
}

// holding are the paths among read whose own render may hold obj: the one
// it is written beneath, or, written elsewhere (a component), all of them.
func holding(obj *object.Object, read []string) []string {
	for _, p := range read {
		if f := obj.Origin.File; f == p || strings.HasPrefix(f, p+"/") {
			return []string{p}
		}
	}
	return read
}

// deferredRead are the paths of deferred that covered reads, or lies beneath.
func deferredRead(covered []string, deferred map[string]source.Spec) []string {
	var read []string
	seen := map[string]bool{}
	for _, c := range covered {
		for p := c; ; p = path.Dir(p) {
			if _, ok := deferred[p]; ok && !seen[p] {
				seen[p] = true
				read = append(read, p)
			}
			if p == "." || p == "/" || p == "" {
				break
			}
		}
	}
	return read
}

// mayRename reports whether the delivered build of spec may hold an
// object under another name than its source's own render (or drop one):
// a name prefix or suffix, a patch or replacement that touches a name or
// deletes (read from the patches' text, the patch files' and each
// component's kustomization), or anything it cannot read. readFile reads
// a root-relative file.
func mayRename(spec source.Spec, readFile func(rel string) ([]byte, error)) bool {
	if spec.Delivery == nil {
		return false
	}
	kd := spec.Delivery.KustDoc
	if kd["namePrefix"] != nil || kd["nameSuffix"] != nil {
		return true
	}
	var texts [][]byte
	for _, f := range []string{"patches", "patchesStrategicMerge", "patchesJson6902", "replacements"} {
		data, err := json.Marshal(kd[f])
		if err != nil {
			return true
		}
		texts = append(texts, data)
		files, ok := fileRefs(kd[f])
		if !ok {
			return true
		}
		for _, rel := range files {
			data, err := readFile(path.Join(spec.Path, rel))
			if err != nil {
				return true
			}
			texts = append(texts, data)
		}
	}
	comps, _ := kd["components"].([]any)
	for _, c := range comps {
		dir, ok := c.(string)
		if !ok {
			return true
		}
		data, err := readFile(path.Join(spec.Path, dir, "kustomization.yaml"))
		if err != nil || bytes.Contains(data, []byte("components:")) || bytes.Contains(data, []byte("path:")) {
			return true // nested, a patch file, or unread: not followed here
		}
		texts = append(texts, data)
	}
	return slices.ContainsFunc(texts, renamingText)
}

// renamingText reports text that may rename or delete an object.
func renamingText(text []byte) bool {
	for _, t := range []string{"metadata/name", "metadata.name", `"/metadata"`, "path: /metadata\n", `"path":""`, "$patch", "namePrefix", "nameSuffix"} {
		if bytes.Contains(text, []byte(t)) {
			return true
		}
	}
	return false
}

// fileRefs are the patch and replacement files an entry list names
// (path:); false when it holds something else than entries.
func fileRefs(v any) ([]string, bool) {
	var files []string
	switch t := v.(type) {
	case nil:
	case []any:
		for _, e := range t {
			switch x := e.(type) {
			case string: // patchesStrategicMerge: a file, or a patch inline
				if !strings.Contains(x, "\n") {
					files = append(files, x)
				}
			case map[string]any:
				if p, ok := x["path"].(string); ok {
					files = append(files, p)
				}
			default:
				return nil, false
			}
		}
	default:
		return nil, false
	}
	return files, true
}

// FluxKustomizationGroup is the API group of Flux's Kustomization.
const FluxKustomizationGroup = "kustomize.toolkit.fluxcd.io"

// fluxHead is what deferral reads of a document.
type fluxHead struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		Path any `yaml:"path"`
	} `yaml:"spec"`
}

// KustomizationPaths are the spec.paths of the Flux Kustomizations of a
// YAML stream that are written out (no variable a parent substitutes) and
// name a directory below the root, clean. A stream that stops decoding
// gives what came before: a guess missed only renders a source on its own.
func KustomizationPaths(data []byte) []string {
	var paths []string
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for range maxGuessDocs {
		var h fluxHead
		if dec.Decode(&h) != nil {
			break
		}
		p, ok := h.Spec.Path.(string)
		if !ok || h.Kind != "Kustomization" || object.Group(h.APIVersion) != FluxKustomizationGroup || strings.Contains(p, "$") {
			continue
		}
		if p = flux.CleanPath(p); p != "" && p != "." {
			paths = append(paths, p)
		}
	}
	return paths
}

// maxGuessDocs bounds the documents KustomizationPaths reads.
const maxGuessDocs = 10000
