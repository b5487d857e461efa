package flux

import (
	"fmt"
	"strings"
	"text/template"

	sprig "github.com/go-task/slim-sprig/v3"
	"github.com/gosimple/slug"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/fluxsubst"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux Operator ResourceSets (fluxcd.controlplane.io/v1), read as the
// operator builds them (controlplaneio-fluxcd/flux-operator
// internal/builder/resourceset.go BuildResourceSet, internal/inputs): each
// in-line input set, with a "provider" key naming the ResourceSet, fills
// every template of spec.resources (and spec.resourcesTemplate, a
// multi-document template), or of each of spec.steps; the templates are Go
// text/template with "<<" and ">>" delimiters, slim-sprig's hermetic
// functions, slugify (gosimple/slug, at most 63 characters, smart
// truncation), inputs and toYaml, and missingkey=error. Objects are
// deduplicated by group, kind, namespace and name, the first kept; an
// object annotated fluxcd.controlplane.io/reconcile: disabled is left out.
// Inputs from spec.inputsFrom come from ResourceSetInputProviders, which
// read the cluster or an external service: not followed.

// Bounds of one ResourceSet: the objects it may generate, and the
// templates it may fill (inputs times templates, per step), so that many
// inputs over many templates that all dedupe to one object still end.
const (
	maxResourceSetObjects = 10000
	maxResourceSetFills   = 100000
)

func init() {
	slug.MaxLength = 63 // as the operator sets them
	slug.EnableSmartTruncate = true
}

// ResourceSet renders a ResourceSet's objects as one delivered
// source, at the ResourceSet's own place.
func (g *Run) ResourceSet(o *object.Object) *Expansion {
	e := &Expansion{}
	spec := yamldoc.MapAt(o.Doc, "spec")
	if from, _ := spec["inputsFrom"].([]any); len(from) > 0 {
		e.Findings = append(e.Findings, object.NotFollowed(o, "spec.inputsFrom takes inputs from ResourceSetInputProviders, which read the cluster or an external service; only the in-line spec.inputs are rendered"))
		if yamldoc.Str(spec, "inputStrategy", "name") == "Permute" {
			return e // every set combines a provider's: none can be rendered
		}
	}
	inputs := resourceSetInputs(o, spec)
	objs, err := buildResourceSet(spec, inputs)
	src := source.Spec{Path: o.Origin.File, Type: object.SourcePlain, Name: object.Ref(o), Explicit: true}
	if err != nil {
		e.Outs = append(e.Outs, g.eng.Failed(src, check.RenderFailed, fmt.Errorf("the Flux Operator cannot build it: %w", err)))
		return e
	}
	out := source.Out{Result: object.SourceResult{Path: src.Path, Type: src.Type, ValueSet: src.Name, Status: object.StatusRendered, Objects: len(objs)},
		Covered: []string{o.Origin.File}}
	for _, doc := range objs {
		obj, ok := object.FromDoc(doc)
		if !ok {
			continue
		}
		obj.Origin = object.Origin{Source: src.ID(), SourceType: object.SourcePlain, File: o.Origin.File, Line: o.Origin.Line}
		out.Objects = append(out.Objects, obj)
	}
	e.Outs = append(e.Outs, out)
	return e
}

// resourceSetInputs are the in-line input sets, each with the provider
// key the operator adds.
func resourceSetInputs(o *object.Object, spec map[string]any) []map[string]any {
	var out []map[string]any
	for _, in := range yamldoc.MapList(spec["inputs"]) {
		set := make(map[string]any, len(in)+1)
		for k, v := range in {
			set[k] = v
		}
		set["provider"] = map[string]any{"apiVersion": o.APIVersion, "kind": o.Kind, "name": o.Name, "namespace": o.Namespace}
		out = append(out, set)
	}
	return out
}

// buildResourceSet builds the templates of the spec (or of each step)
// for every input set.
func buildResourceSet(spec map[string]any, inputs []map[string]any) ([]map[string]any, error) {
	steps := yamldoc.MapList(spec["steps"])
	if len(steps) > 0 && (spec["resources"] != nil || yamldoc.Str(spec, "resourcesTemplate") != "") {
		return nil, fmt.Errorf("spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate")
	}
	if len(steps) == 0 {
		steps = []map[string]any{spec}
	}
	fills := 0
	for _, step := range steps {
		fills += max(len(inputs), 1) * (len(yamldoc.MapList(step["resources"])) + 1)
	}
	if fills > maxResourceSetFills {
		return nil, fmt.Errorf("it fills its templates %d times, more than the %d capreport renders", fills, maxResourceSetFills)
	}
	var all []map[string]any
	for _, step := range steps {
		objs, err := buildResourceSetStep(step, inputs)
		if err != nil {
			return nil, err
		}
		all = append(all, objs...)
		if len(all) > maxResourceSetObjects {
			return nil, fmt.Errorf("it generates more than %d objects", maxResourceSetObjects)
		}
	}
	return all, nil
}

// buildResourceSetStep builds one step's resources, then its
// resourcesTemplate, deduplicated.
func buildResourceSetStep(step map[string]any, inputs []map[string]any) ([]map[string]any, error) {
	sets := inputs
	if len(sets) == 0 {
		sets = []map[string]any{nil}
	}
	var out []map[string]any
	seen := map[string]bool{}
	// Without inputs the operator keeps every object of resources as it
	// comes; otherwise, and always for resourcesTemplate, it drops the
	// disabled and the duplicates.
	add := func(doc map[string]any, filter bool) {
		key := resourceSetKey(doc)
		if filter && (seen[key] || yamldoc.Str(doc, "metadata", "annotations", "fluxcd.controlplane.io/reconcile") == "disabled") {
			return
		}
		seen[key] = true
		out = append(out, doc)
	}
	for i, tmpl := range yamldoc.MapList(step["resources"]) {
		text, err := sigsyaml.Marshal(tmpl)
		if err != nil {
			return nil, err
		}
		for _, set := range sets {
			docs, err := executeResourceSetTemplate(string(text), set)
			if err != nil {
				return nil, fmt.Errorf("resources[%d]: %w", i, err)
			}
			for _, d := range docs {
				add(d, len(inputs) > 0)
			}
		}
		if len(out) > maxResourceSetObjects {
			return nil, fmt.Errorf("it generates more than %d objects", maxResourceSetObjects)
		}
	}
	if t := yamldoc.Str(step, "resourcesTemplate"); t != "" {
		for _, set := range sets {
			docs, err := executeResourceSetTemplate(t, set)
			if err != nil {
				return nil, fmt.Errorf("resourcesTemplate: %w", err)
			}
			for _, d := range docs {
				add(d, true)
			}
		}
	}
	return out, nil
}

// executeResourceSetTemplate fills one template with one input set and
// decodes the documents it yields.
func executeResourceSetTemplate(text string, set map[string]any) ([]map[string]any, error) {
	tp, err := template.New("resourceset").Delims("<<", ">>").
		Funcs(sprig.HermeticTxtFuncMap()).
		Funcs(template.FuncMap{
			"slugify":    slug.Make,
			"inputs":     func() any { return set },
			"toYaml":     func(v any) string { b, _ := sigsyaml.Marshal(v); return string(b) },
			"mustToYaml": func(v any) (string, error) { b, err := sigsyaml.Marshal(v); return string(b), err },
		}).
		Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := tp.Execute(&limitedBuilder{b: &b, max: fluxsubst.MaxBytes}, nil); err != nil {
		return nil, err
	}
	raws, problems, err := yamldoc.Decode([]byte(b.String()), maxResourceSetObjects)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, problems[0].Err
	}
	docs := make([]map[string]any, 0, len(raws))
	for _, r := range raws {
		docs = append(docs, r.Doc)
	}
	return docs, nil
}

// resourceSetKey is the operator's dedupe key: group, kind, namespace, name.
func resourceSetKey(doc map[string]any) string {
	return strings.Join([]string{object.Group(yamldoc.Str(doc, "apiVersion")), yamldoc.Str(doc, "kind"), yamldoc.Str(doc, "metadata", "namespace"), yamldoc.Str(doc, "metadata", "name")}, "/")
}

// limitedBuilder stops a template whose output grows past max bytes.
type limitedBuilder struct {
	b   *strings.Builder
	max int
}

func (l *limitedBuilder) Write(p []byte) (int, error) {
	if l.b.Len()+len(p) > l.max {
		return 0, fmt.Errorf("the output grows past %d bytes", l.max)
	}
	return l.b.Write(p)
}
