// Package source is what render and its GitOps engine (render/gitops)
// hand each other: the spec of one source to render, how a GitOps object
// renders it (its delivery), and the render that comes back. Its fields
// are exported so that the engine, a package of its own, can build specs
// and read renders; render names the types as its own (render.SourceSpec,
// render.SourceMap).
package source

import (
	"slices"
	"strings"

	"github.com/gobwas/glob"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/cache"
	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/object"
)

// Spec names one thing to render.
type Spec struct {
	// Path is relative to the scanned root (slash or OS separators).
	Path string
	// Type is detected from the path when empty: a directory holding
	// Chart.yaml is a chart, one holding a kustomization file is a
	// Kustomize root, anything else (file or directory) is plain YAML.
	Type object.SourceType
	// Name is the value-set name; it distinguishes one chart rendered
	// several times. Origin.Source becomes Path + "@" + Name.
	Name string
	// Helm values, only used for charts. ValuesFiles and Set are the
	// source's own (Options.Helm's are not added); ReleaseName and
	// Namespace fall back to Options.Helm's.
	Helm chartspec.Values

	// The fields below are render's and its engine's to set: a caller's
	// spec (Options.Sources) leaves them zero.

	// Explicit: from Options.Sources, not discovered.
	Explicit bool
	// Traced builds a Kustomize source with krusty's origin annotations
	// whatever its inputs hold (see render's renderKustomizeSource).
	Traced bool
	// Delivery carries what a GitOps object adds to a plain render of the
	// source; nil for a source rendered on its own.
	Delivery *Delivery
}

// ID is the source's identity in origins and results: the slash path plus
// "@name" when the source is a named value set.
func (s Spec) ID() string {
	if s.Name == "" {
		return s.Path
	}
	return s.Path + "@" + s.Name
}

// Delivery is how a GitOps object renders a source.
type Delivery struct {
	// KustDoc replaces the source's kustomization (Flux's generated or
	// amended one, Argo CD's kustomize overrides); nil: as on disk.
	KustDoc map[string]any
	// HelmOverFiles are values merged over the value files and under Set
	// (a HelmRelease's composed values, an Argo CD source's values).
	HelmOverFiles map[string]any
	// HelmSetString are --set-string pairs applied after Set.
	HelmSetString []string
	// Namespace is given to namespaced objects that have none.
	Namespace string
	// Dir selects files of a plain directory (Argo CD directory sources).
	Dir *Dir
	// Remote is the chart to fetch, for a chart in a chart repository or
	// OCI registry (Path then only names it).
	Remote *chartspec.Remote
	// LoadAnywhere builds with kustomize's LoadRestrictionsNone, as
	// kustomize-controller does (fluxcd/pkg/kustomize Build): a
	// kustomization may list files outside its own directory, bounded by
	// the source's root (the repository's) instead.
	LoadAnywhere bool
}

// Dir is an Argo CD directory source's file selection.
type Dir struct {
	Recurse          bool
	Include, Exclude string
}

// Selects is Argo CD's manifest file test for directory sources: a YAML or
// JSON file, not excluded, and included when an include pattern is set
// (patterns match the path relative to the source, braces allowed).
func (d *Dir) Selects(rel, name string) bool {
	low := strings.ToLower(name)
	if !(strings.HasSuffix(low, ".yaml") || strings.HasSuffix(low, ".yml") || strings.HasSuffix(low, ".json")) {
		return false
	}
	if d.Exclude != "" && globMatch(d.Exclude, rel) {
		return false
	}
	if d.Include != "" && !globMatch(d.Include, rel) {
		return false
	}
	return true
}

func globMatch(pattern, s string) bool {
	g, err := glob.Compile(pattern)
	if err != nil {
		return false
	}
	return g.Match(s)
}

// Map is one --source NAME=PATH: the GitOps source NAME names is read
// from Path, a root-relative slash path of a directory.
type Map struct {
	Name string
	Path string
}

// Out is one source's render.
type Out struct {
	Objects []object.Object
	Result  object.SourceResult
	// Covered are the root-relative files and directories the render read
	// as parts of the source (kustomization directories, resource files,
	// chart directories, plain files).
	Covered []string
	// Inputs are every read the render made, when Recorded is set (a run
	// with a render cache).
	Inputs   []cache.Input
	Recorded bool
	// Dropped are the identities of the delivered objects Options.Keep
	// dropped, so that the engine's dedupeDeliveries counts them as it
	// counts the rest.
	Dropped []string
	// Spec is what was rendered (render's traceTargets renders it again).
	Spec Spec
	// Via is the link of the mapped source (--source) a GitOps object
	// read it from, which its chain passes through.
	Via *object.Link
	// Deferred: the source was not rendered on its own, since a Flux
	// Kustomization is expected to deliver it (render's deferral.go); the
	// GitOps engine supersedes it or asks for it (gitops.Followed.Redo).
	Deferred bool
}

// Clone copies o deeply enough that the copy's owner may change any of
// its objects, findings and lists without touching o.
func (o Out) Clone() Out {
	c := o
	c.Objects = make([]object.Object, len(o.Objects))
	for i := range o.Objects {
		c.Objects[i] = o.Objects[i].Clone()
	}
	c.Result.Findings = cloneFindings(o.Result.Findings)
	c.Result.Chain = slices.Clone(o.Result.Chain)
	c.Covered = slices.Clone(o.Covered)
	c.Inputs = slices.Clone(o.Inputs)
	c.Dropped = slices.Clone(o.Dropped)
	if o.Via != nil {
		via := *o.Via
		c.Via = &via
	}
	return c
}

// Relabel names the build of o.Spec as the build of spec, which differs
// from it in name only: its objects' source, its value set and its
// findings, whose messages name the source as "type ID".
func (o Out) Relabel(spec Spec) Out {
	from, to := o.Spec.ID(), spec.ID()
	if from == to {
		return o
	}
	for i := range o.Objects {
		if o.Objects[i].Origin.Source == from {
			o.Objects[i].Origin.Source = to
		}
	}
	o.Result.ValueSet = spec.Name
	said, say := string(o.Spec.Type)+" "+from, string(spec.Type)+" "+to
	for i := range o.Result.Findings {
		f := &o.Result.Findings[i]
		if f.Source == from {
			f.Source = to
		}
		f.Message = strings.ReplaceAll(f.Message, said, say)
	}
	o.Spec = spec
	return o
}

func cloneFindings(fs []check.Finding) []check.Finding {
	out := slices.Clone(fs)
	for i := range out {
		if l := out[i].Location; l != nil {
			loc := *l
			out[i].Location = &loc
		}
		out[i].RestsOn = slices.Clone(out[i].RestsOn)
	}
	return out
}
