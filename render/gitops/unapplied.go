package gitops

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
)

// Run on a whole repository, capreport follows every GitOps object that
// nothing in the repository applies as a root: the cluster's entry point
// (applied by flux bootstrap or the Flux Operator) is one of them. But a
// Flux Kustomization whose file stands beneath the path another Flux
// Kustomization builds, and which that build leaves out, is most often
// retired: commented out of its namespace's kustomization (a home-ops
// repository's apps switched off). Its deliveries are still followed and
// reported, as the cluster may apply it some other way, with a warning
// that says which build leaves it out.

// fluxBuild is the directory one Flux Kustomization's delivery built.
type fluxBuild struct {
	dir   string // root-relative, slash
	by    object.Link
	chain []object.Link
}

// unappliedRoots warns of each root Flux Kustomization of roots (the
// standalone GitOps objects followed) whose file lies beneath a directory
// that a Flux Kustomization not delivered by it built, from this
// repository, and that no delivery read. (A self-managing root's build
// reads the objects beside it, which are then followed on their own.)
func unappliedRoots(roots []pending, delivered []source.Out) []check.Finding {
	builds := fluxBuilds(delivered)
	read := map[string]bool{} // by some delivery: a self-managing root's siblings
	for _, o := range delivered {
		for _, p := range o.Covered {
			read[p] = true
		}
	}
	var findings []check.Finding
	for _, r := range roots {
		if len(r.chain) != 1 || kindOfGitOps(&r.obj) != fluxKustomization || read[r.obj.Origin.File] {
			continue
		}
		self := linkOf(&r.obj)
		for _, b := range builds {
			if slices.Contains(b.chain, self) || !beneath(r.obj.Origin.File, b.dir) {
				continue
			}
			findings = append(findings, object.Finding(&r.obj, check.GitOpsUnappliedRoot, check.SeverityWarning,
				fmt.Sprintf("nothing in the repository applies it, and it stands beneath %s, which %s builds without this file; "+
					"followed as a root of its own, so what it delivers reaches the cluster only if something outside the repository applies it",
					b.dir, linkRef(b.by))))
			break
		}
	}
	return findings
}

// fluxBuilds lists the directories the Flux Kustomizations' deliveries
// built from this repository (not from a mapped source) and rendered.
func fluxBuilds(delivered []source.Out) []fluxBuild {
	var builds []fluxBuild
	for _, o := range delivered {
		by, ok := localDelivery(o)
		if !ok || o.Spec.Type != object.SourceKustomize || by.Kind != "Kustomization" {
			continue
		}
		builds = append(builds, fluxBuild{dir: path.Clean(strings.ReplaceAll(o.Spec.Path, "\\", "/")), by: by, chain: o.Result.Chain})
	}
	return builds
}

// beneath reports whether the root-relative file lies below dir.
func beneath(file, dir string) bool {
	return dir == "." || strings.HasPrefix(file, dir+"/")
}

// linkRef reads "Kustomization flux-system/apps (file:line)".
func linkRef(l object.Link) string {
	return fmt.Sprintf("%s %s (%s:%d)", l.Kind, object.NSName(l.Namespace, l.Name), l.File, l.Line)
}
