package gitops

import (
	"path"
	"reflect"
	"strconv"
	"strings"

	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// A Flux Kustomization that applies the directory it stands in (the
// bootstrap flux-system) applies the objects beside it as its own build
// makes them: after its postBuild substitution, targetNamespace and
// commonMetadata (kustomize-controller substitutes every object of the
// build, Kustomization objects included, before it applies any). So when
// such a root's substitute sets ENVIRONMENT, a child Kustomization with
// `path: ./apps/${ENVIRONMENT}` is followed into ./apps/prod, as the
// cluster follows it. The objects beside the root keep their own place
// (their chains still start at the file a person edits); only their
// content is the root's.

// configureFromRoots replaces the content of every standalone object that a
// self-managing Flux Kustomization of the same render applies with the
// content that root's build gives it; when any changed, the known objects
// are indexed again.
func (g *engine) configureFromRoots(outs []source.Out) {
	built := g.rootBuilds(outs)
	if len(built) == 0 || !takeRootBuilds(outs, built) {
		return
	}
	// Known objects changed in place: an expansion that missed a
	// reference may now find it.
	for k, m := range g.memo {
		if m.e.lookupMiss {
			delete(g.memo, k)
		}
	}
	g.known, g.byKindNS = nil, map[string][]int{}
	for _, o := range outs {
		g.know(o.Objects)
	}
}

// rootBuilds are the objects the self-managing Flux Kustomizations of the
// render build, by place.
func (g *engine) rootBuilds(outs []source.Out) map[string]*object.Object {
	built := map[string]*object.Object{}
	for i := range outs {
		for j := range outs[i].Objects {
			root := &outs[i].Objects[j]
			if kindOfGitOps(root) != fluxKustomization || !appliesItsOwnDir(root) {
				continue
			}
			e := g.expand(root)
			if e.failure() != "" || !e.covered()[root.Origin.File] {
				continue // not self-managing, or delivers nothing
			}
			for _, out := range e.outs {
				for k := range out.Objects {
					if o := &out.Objects[k]; o.Origin.Line > 0 {
						built[placeKey(o)] = o
					}
				}
			}
		}
	}
	return built
}

// takeRootBuilds gives each standalone object a root builds the content the
// root's build gives it, and reports whether any changed.
func takeRootBuilds(outs []source.Out, built map[string]*object.Object) bool {
	changed := false
	for i := range outs {
		for j := range outs[i].Objects {
			o := &outs[i].Objects[j]
			b := built[placeKey(o)]
			if b == nil || reflect.DeepEqual(b.Doc, o.Doc) {
				continue
			}
			o.Doc, o.Name, o.Namespace = b.Doc, b.Name, b.Namespace
			changed = true
		}
	}
	return changed
}

// placeKey identifies an object by where it is written: its file, line,
// apiVersion and kind, which a build's substitution does not change.
func placeKey(o *object.Object) string {
	return o.Origin.File + "\x00" + strconv.Itoa(o.Origin.Line) + "\x00" + o.APIVersion + "\x00" + o.Kind
}

// appliesItsOwnDir is the cheap test a self-managing root passes before it
// is built: its spec.path is its own file's directory or one above it (a
// root elsewhere, such as ./apps, cannot read its own file).
func appliesItsOwnDir(o *object.Object) bool {
	p := flux.CleanPath(yamldoc.Str(o.Doc, "spec", "path"))
	if p == "" || p == "." {
		return true
	}
	dir := path.Dir(o.Origin.File)
	return dir == p || strings.HasPrefix(dir, p+"/")
}
