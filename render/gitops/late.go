package gitops

import (
	"slices"
	"strconv"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// The plan supersedes, before the walk, the standalone sources a GitOps
// object it can see delivers. It cannot see the Flux Kustomizations of a
// source whose own build fails: joryirving/home-ops lists each app's
// Kustomization in a kustomization.yaml per namespace that reads
// ../../../components/replacements/ks.yaml, which `kustomize build` refuses
// (load restrictions) and Flux allows. The walk then finds those
// Kustomizations in the root's build and delivers each app's directory,
// while the same directory, rendered on its own, stood in the report
// beside it: its objects without their namespace, and its HelmReleases
// followed a second time, each named not followed with a wrong namespace.
// After the walk, such a source is superseded as the plan supersedes one,
// and what following its own objects made is dropped.

// lateDelivery is a delivered render of this repository: its path and chain.
type lateDelivery struct {
	by    string // the delivering object, as the plan names it
	chain []object.Link
}

// supersedeLate marks delivered each standalone source (outs) that is
// still rendered on its own but that a rendered delivery read. Its GitOps objects
// that the walk also met delivered, identical (same place, same
// content: the walk expanded them once, as the standalone copy), keep
// what their expansion made; the others (phantoms: the standalone copy
// differs, most often by its namespace) lose the renders and findings
// following them made. It returns the deliveries left and the phantoms.
func (g *engine) supersedeLate(outs []source.Out, delivered []source.Out) ([]source.Out, map[object.Link]bool) {
	read := deliveriesByPath(delivered)
	met := gitopsKeys(delivered)
	phantoms := map[object.Link]bool{}
	phantomAt := map[string]bool{} // source ID and file:line of a phantom
	for i := range outs {
		o := &outs[i]
		d, ok := read[o.Result.Path]
		if !ok || o.Result.Status != object.StatusRendered || o.Spec.Delivery != nil {
			continue
		}
		for j := range o.Objects {
			obj := &o.Objects[j]
			if kindOfGitOps(obj) != notGitOps && !met[gitopsKey(obj)] {
				phantoms[linkOf(obj)] = true
				phantomAt[phantomPlace(o.Spec.ID(), obj.Origin.File, obj.Origin.Line)] = true
			}
		}
		supersede(o, d.by)
	}
	if len(phantoms) == 0 {
		return delivered, phantoms
	}
	gone := map[string]bool{} // IDs of the renders the phantoms made
	kept := delivered[:0]
	for _, o := range delivered {
		if len(o.Result.Chain) > 0 && phantoms[o.Result.Chain[0]] {
			gone[o.Spec.ID()] = true
			continue
		}
		kept = append(kept, o)
	}
	g.findings = slices.DeleteFunc(g.findings, func(f check.Finding) bool {
		return gone[f.Source] || f.Location != nil && phantomAt[phantomPlace(f.Source, f.Location.File, f.Location.Line)]
	})
	g.withheld = slices.DeleteFunc(g.withheld, func(w object.WithheldObject) bool {
		c := w.Object.Origin.Chain
		return gone[w.Object.Origin.Source] || len(c) > 0 && phantoms[c[0]]
	})
	return kept, phantoms
}

// phantomPlace identifies a place in one render.
func phantomPlace(source, file string, line int) string {
	return source + "\x00" + file + ":" + strconv.Itoa(line)
}

// gitopsKeys are the GitOps objects the deliveries hold.
func gitopsKeys(delivered []source.Out) map[string]bool {
	keys := map[string]bool{}
	for _, o := range delivered {
		for j := range o.Objects {
			if kindOfGitOps(&o.Objects[j]) != notGitOps {
				keys[gitopsKey(&o.Objects[j])] = true
			}
		}
	}
	return keys
}

// deliveriesByPath maps each path a rendered delivery of this repository
// read to the first such delivery. A delivery that reads the file of an
// object of its own chain (a self-managing root applying the directory it
// stands in) supersedes nothing, as the plan has it (expandedCoverage):
// what stands beside it is followed on its own.
func deliveriesByPath(delivered []source.Out) map[string]lateDelivery {
	read := map[string]lateDelivery{}
	for _, o := range delivered {
		by, ok := localDelivery(o)
		if !ok || slices.ContainsFunc(o.Result.Chain, func(l object.Link) bool { return slices.Contains(o.Covered, l.File) }) {
			continue
		}
		d := lateDelivery{by: object.LinkRef(by), chain: o.Result.Chain}
		for _, p := range o.Covered {
			if _, ok := read[p]; !ok {
				read[p] = d
			}
		}
	}
	return read
}

// localDelivery is the object that delivered o, when o is a rendered
// delivery read from this repository (not from a mapped source).
func localDelivery(o source.Out) (object.Link, bool) {
	n := len(o.Result.Chain)
	if n == 0 || o.Via != nil || o.Result.Status != object.StatusRendered {
		return object.Link{}, false
	}
	return o.Result.Chain[n-1], true
}
