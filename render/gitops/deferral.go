package gitops

import (
	"bytes"
	"fmt"
	"path"
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
	d.asked[k] = append(d.asked[k], apiGroup)
}

// askedFor reports whether a recorded reference could have found o.
func (d *deferralCheck) askedFor(o *object.Object) bool {
	group := object.Group(o.APIVersion)
	for _, name := range [2]string{o.Name, ""} {
		for _, g := range d.asked[o.Kind+"\x00"+name] {
			if g == "" || g == group {
				return true
			}
		}
	}
	return false
}

// redo is why following without the deferred sources of outs (the
// standalone renders, after the walk) may differ from following with them;
// "" when it cannot. delivered are the walk's renders.
func (d *deferralCheck) redo(outs, delivered []source.Out) string {
	if d == nil {
		return ""
	}
	deferred := map[string]bool{}
	for _, o := range outs {
		if !o.Deferred {
			continue
		}
		if o.Result.Status != object.StatusDelivered {
			return fmt.Sprintf("%s was not rendered on its own, and no delivery superseded it (%s)", o.Result.Path, o.Result.Status)
		}
		deferred[o.Result.Path] = true
	}
	for _, o := range delivered {
		if !readsAny(o.Covered, deferred) {
			continue
		}
		for j := range o.Objects {
			if obj := &o.Objects[j]; d.askedFor(obj) {
				return fmt.Sprintf("a reference may have found %s %s of %s on its own", obj.Kind, obj.Name, o.Result.Path)
			}
		}
	}
	return ""
}

// readsAny reports whether any of covered is, or lies beneath, one of paths.
func readsAny(covered []string, paths map[string]bool) bool {
	for _, c := range covered {
		for p := c; ; p = path.Dir(p) {
			if paths[p] {
				return true
			}
			if p == "." || p == "/" || p == "" {
				break
			}
		}
	}
	return false
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
