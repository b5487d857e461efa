package appset

import (
	"errors"
	"fmt"
	"strings"
)

// generatorKinds are the generator fields of ApplicationSetGenerator in declaration order, which is the
// order upstream's GetRelevantGenerators runs them when one generator entry sets several.
var generatorKinds = []string{"list", "clusters", "git", "scmProvider", "clusterDecisionResource", "pullRequest", "matrix", "merge", "plugin"}

// unsupportedKinds need a cluster or a remote API; each names what it reads.
var unsupportedKinds = map[string]string{
	"clusters":                "the cluster secrets registered in Argo CD",
	"clusterDecisionResource": "a cluster-decision resource in the cluster",
	"scmProvider":             "the repositories of an SCM provider's API",
	"pullRequest":             "the open pull requests of a Git hosting API",
	"plugin":                  "the answer of a plugin's HTTP service",
}

// valuesKinds are the generator types with a `values map[string]string` field, whose values upstream's
// RenderGeneratorParams pre-resolves instead of rendering them plainly.
var valuesKinds = map[string]bool{"clusters": true, "git": true, "scmProvider": true, "clusterDecisionResource": true, "pullRequest": true, "plugin": true}

// emitFunc receives one parameter set and the template merged for the generator kind that produced it
// (nil inside matrix and merge, where templates are ignored). It returns false to stop the generation.
type emitFunc func(tmpl, params map[string]any) bool

// sink receives the parameter sets of one generator.
type sink func(params map[string]any) bool

// transform is upstream's Transform: for each generator kind set in gen, merge its template onto base (top
// level only), interpolate gen with genParams (a matrix's second child), generate, and keep the parameter
// sets the selector matches. unknown reports that some kind could not be generated statically, so the
// parameter sets are only part of what the cluster gets.
func (e *expander) transform(where string, gen, base, genParams map[string]any, depth int, emit emitFunc) (unknown bool, err error) {
	sel, err := parseSelector(gen, where)
	if err != nil {
		return false, err
	}
	kinds := e.kindsOf(gen, where)
	spec := gen
	if len(genParams) != 0 {
		if spec, err = e.interpolate(where, gen, genParams); err != nil {
			return false, err
		}
	}
	for _, k := range kinds {
		var tmpl map[string]any
		if base != nil {
			if tmpl, err = mergedTemplate(gen, k, base, where); err != nil {
				return false, err
			}
		}
		kindSpec, err := obj(spec, k, where)
		if err != nil {
			return false, err
		}
		u, err := e.generate(join(where, k), k, kindSpec, depth, func(p map[string]any) bool {
			if sel != nil {
				if e.spend(1+len(p)) != nil {
					return false
				}
				if !sel.matches(flatten(p)) {
					return true
				}
			}
			return emit(tmpl, p)
		})
		if err == nil && e.work < 0 {
			err = e.spend(0)
		}
		if err != nil {
			return false, err
		}
		unknown = unknown || u
	}
	return unknown, nil
}

// kindsOf lists the generator kinds gen sets, and reports keys the CRD does not know (the API server
// drops them, so upstream sees an empty generator and only logs "unrecognized generators").
func (e *expander) kindsOf(gen map[string]any, where string) []string {
	known := map[string]bool{"selector": true}
	var kinds []string
	for _, k := range generatorKinds {
		known[k] = true
		if gen[k] != nil {
			kinds = append(kinds, k)
		}
	}
	for _, k := range sortedKeys(gen) {
		if !known[k] && gen[k] != nil {
			e.find(CheckUnsupported, SeverityWarning, "%s: unrecognized generator %q, which Argo CD ignores", where, k)
		}
	}
	return kinds
}

// generate runs one generator kind.
func (e *expander) generate(where, kind string, spec map[string]any, depth int, out sink) (unknown bool, err error) {
	if spec == nil {
		spec = map[string]any{}
	}
	switch kind {
	case "list":
		return false, e.listGen(where, spec, out)
	case "git":
		return e.gitGen(where, spec, out)
	case "matrix":
		return e.matrixGen(where, spec, depth, out)
	case "merge":
		return e.mergeGen(where, spec, depth, out)
	}
	e.find(CheckUnsupported, SeverityWarning, "%s: the %s generator reads %s, which a static render of the "+
		"repository cannot see; it yields no Application here, and a matrix or merge combining it yields "+
		"none or only part of its Applications", where, kind, unsupportedKinds[kind])
	return true, nil
}

// child runs one child generator of a matrix or merge (upstream's getParams): exactly one kind, no
// template, and no third level of matrix or merge.
func (e *expander) child(where string, c any, genParams map[string]any, depth int, out sink) (unknown bool, err error) {
	gen, ok := c.(map[string]any)
	if !ok {
		return false, invalidf("%s must be an object, not %s", where, kindOf(c))
	}
	if depth >= 2 && (gen["matrix"] != nil || gen["merge"] != nil) {
		return false, invalidf("%s nests a third level of matrix or merge; Argo CD reads nested generators "+
			"as terminal ones (list, git, ...) and drops it, so this child generated no parameters", where)
	}
	n := 0
	for _, k := range generatorKinds {
		if gen[k] != nil {
			n++
		}
	}
	switch {
	case n == 0:
		return false, invalidf("%s: child generator generated no parameters", where)
	case n > 1:
		return false, invalidf("%s: found more than one generator in matrix.Generators", where)
	}
	return e.transform(where, gen, nil, genParams, depth, func(_, p map[string]any) bool { return out(p) })
}

// mergedTemplate is upstream's mergeGeneratorTemplate: the kind's own template, filled from base.
func mergedTemplate(gen map[string]any, kind string, base map[string]any, where string) (map[string]any, error) {
	spec, err := obj(gen, kind, where)
	if err != nil {
		return nil, err
	}
	own, err := obj(spec, "template", join(where, kind))
	if err != nil {
		return nil, err
	}
	tmpl := copyMap(own)
	fillTemplate(tmpl, base)
	return tmpl, nil
}

// interpolate renders a matrix's second child with a parameter set of the first, as upstream's
// RenderGeneratorParams does: every string and key of the generator, except the `values` of each generator
// type that has them, which are resolved with missingkey=error and kept as written where a key is missing,
// so that they can still use the child's own parameters later.
func (e *expander) interpolate(where string, gen, params map[string]any) (map[string]any, error) {
	e.outLeft = maxAppBytes
	out, err := e.interpolateGen(gen, params)
	if err != nil {
		var f *fatal
		if errors.As(err, &f) && (f.check == CheckTooMany || f.ours) {
			return nil, err
		}
		return nil, templatef("%s: failed to replace parameters in generator: %v", where, err)
	}
	return out, nil
}

func (e *expander) interpolateGen(gen, params map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(gen))
	for _, k := range sortedKeys(gen) {
		v := gen[k]
		spec, isMap := v.(map[string]any)
		var r any
		var err error
		switch {
		case v == nil:
			continue
		case isMap && (k == "matrix" || k == "merge"):
			r, err = e.interpolateCombiner(spec, params)
		case isMap && valuesKinds[k]:
			r, err = e.interpolateWithValues(spec, params)
		default:
			r, err = e.renderValue(v, params, e.options)
		}
		if err != nil {
			return nil, err
		}
		out[k] = r
	}
	return out, nil
}

// interpolateCombiner renders a nested matrix or merge, whose children upstream has already converted to
// typed generators, so their values are pre-resolved too.
func (e *expander) interpolateCombiner(spec, params map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(spec))
	for _, k := range sortedKeys(spec) {
		v := spec[k]
		if v == nil {
			continue
		}
		children, ok := v.([]any)
		if k != "generators" || !ok {
			r, err := e.renderValue(v, params, e.options)
			if err != nil {
				return nil, err
			}
			out[k] = r
			continue
		}
		rendered := make([]any, len(children))
		for i, c := range children {
			cm, ok := c.(map[string]any)
			if !ok {
				rendered[i] = c
				continue
			}
			r, err := e.interpolateGen(cm, params)
			if err != nil {
				return nil, err
			}
			rendered[i] = r
		}
		out[k] = rendered
	}
	return out, nil
}

func (e *expander) interpolateWithValues(spec, params map[string]any) (map[string]any, error) {
	values, hasValues := spec["values"].(map[string]any)
	rest := make(map[string]any, len(spec))
	for k, v := range spec {
		if k != "values" || !hasValues {
			rest[k] = v
		}
	}
	r, err := e.renderValue(rest, params, e.options)
	if err != nil {
		return nil, err
	}
	out := r.(map[string]any)
	if !hasValues {
		return out, nil
	}
	resolved := make(map[string]any, len(values))
	for _, k := range sortedKeys(values) {
		s, ok := values[k].(string)
		if !ok {
			resolved[k] = values[k]
			continue
		}
		v, err := e.replace(s, params, e.resolveOptions())
		if err != nil {
			if isMissingKey(err) {
				resolved[k] = s
				continue
			}
			return nil, fmt.Errorf("failed to pre-resolve Values key %q: %w", k, err)
		}
		resolved[k] = v
	}
	out["values"] = resolved
	return out, nil
}

// resolveOptions are the goTemplateOptions with missingkey=error, as RenderGeneratorParams uses for values.
func (e *expander) resolveOptions() []string {
	if !e.goTemplate {
		return e.options
	}
	var opts []string
	for _, o := range e.options {
		if !strings.HasPrefix(o, "missingkey=") {
			opts = append(opts, o)
		}
	}
	return append(opts, "missingkey=error")
}

func isMissingKey(err error) bool {
	var f *fatal
	if errors.As(err, &f) && (f.check == CheckTooMany || f.ours) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "map has no entry for key") || strings.Contains(msg, "can't evaluate field")
}
