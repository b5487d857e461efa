package appset

import (
	"errors"
	"fmt"
	"strings"
)

// valuesKinds are the generator types with a `values map[string]string` field, whose values upstream's
// RenderGeneratorParams pre-resolves instead of rendering them plainly.
var valuesKinds = map[string]bool{"clusters": true, "git": true, "scmProvider": true, "clusterDecisionResource": true, "pullRequest": true, "plugin": true}

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
