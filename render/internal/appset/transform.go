package appset

import (
	"encoding/json"
	"fmt"

	"github.com/capreport/capreport/render/internal/yamldoc"
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

// matrixGen is upstream's MatrixGenerator.GenerateParams: exactly two children; for each parameter set a of
// the first, the second is interpolated with a and generated, and each of its sets b is combined with a (a
// wins). It streams: the product is never held, so a 1000 x 1000 matrix stops as soon as the consumer has
// enough. When the second child holds no template at all, interpolating it changes nothing, so it is
// generated once and its sets reused for every a. A child that cannot be generated here contributes
// nothing, so the product is a part of the cluster's; unknown says so.
func (e *expander) matrixGen(where string, spec map[string]any, depth int, out sink) (unknown bool, err error) {
	children, err := list(spec, "generators", where)
	if err != nil {
		return false, err
	}
	switch {
	case len(children) < 2:
		return false, invalidf("%s: found less than two generators, Matrix support only two", where)
	case len(children) > 2:
		return false, invalidf("%s: found more than two generators, Matrix support only two", where)
	}
	m := &matrixRun{e: e, where: where, second: children[1], depth: depth, out: out, reuse: !hasTemplate(children[1])}
	u0, err := e.child(where+".generators[0]", children[0], nil, depth+1, m.first)
	if err == nil {
		err = m.err
	}
	return m.unknown || u0, err
}

// matrixRun is the state of one matrix generation.
type matrixRun struct {
	e       *expander
	where   string
	second  any
	depth   int
	out     sink
	reuse   bool             // the second child does not depend on the first's parameters
	cached  []map[string]any // its parameter sets, once generated (nil: not yet, or too many to keep)
	unknown bool
	stopped bool
	err     error
}

// first receives a parameter set of the first child and emits its products.
func (m *matrixRun) first(a map[string]any) bool {
	if m.cached != nil {
		for _, b := range m.cached {
			if !m.emit(a, b) {
				break
			}
		}
		return m.err == nil && !m.stopped
	}
	var collected []map[string]any
	keep := m.reuse
	u1, err := m.e.child(m.where+".generators[1]", m.second, a, m.depth+1, func(b map[string]any) bool {
		if keep && len(collected) <= m.e.opts.MaxApplications {
			collected = append(collected, b)
		} else {
			keep = false
		}
		return m.emit(a, b)
	})
	m.unknown = m.unknown || u1
	if err != nil && m.err == nil {
		m.err = fmt.Errorf("failed to get params for second generator in the matrix generator: %w", err)
	}
	if keep && m.err == nil && !m.stopped {
		m.cached = append([]map[string]any{}, collected...)
	}
	return m.err == nil && !m.stopped
}

func (m *matrixRun) emit(a, b map[string]any) bool {
	p, err := m.e.matrixCombine(m.where, a, b)
	if err != nil {
		m.err = err
		return false
	}
	if !m.out(p) {
		m.stopped = true
		return false
	}
	return true
}

// hasTemplate reports whether any string or key of v holds "{{", the start of both template syntaxes.
func hasTemplate(v any) bool { return yamldoc.HasText(v, "{{") }

func (e *expander) matrixCombine(where string, a, b map[string]any) (map[string]any, error) {
	if err := e.spend(2 + len(a) + len(b)); err != nil {
		return nil, err
	}
	if !e.goTemplate {
		p, err := combineStringMaps(a, b)
		if err != nil {
			return nil, invalidf("%s: failed to combine string maps with merging params for the matrix generator: %v", where, err)
		}
		return p, nil
	}
	p := map[string]any{}
	mergeOverride(p, b)
	mergeOverride(p, a)
	return p, nil
}

// mergeGen is upstream's MergeGenerator.GenerateParams: the parameter sets of the first (base) child, each
// overridden by the sets of later children that agree with it on every merge key; sets of later children
// that match no base set are dropped. Every child's sets must be unique by the merge keys. The output keeps
// the base order (upstream's comes out of a Go map, in no order). Only the base is held (it is the
// output); later children stream their overrides. Unlike a matrix, a merge with a child that cannot be
// generated here would give wrong values, so it yields nothing.
func (e *expander) mergeGen(where string, spec map[string]any, depth int, out sink) (unknown bool, err error) {
	children, err := list(spec, "generators", where)
	if err != nil {
		return false, err
	}
	if len(children) < 2 {
		return false, invalidf("%s: found less than two generators, Merge requires two or more", where)
	}
	keys, err := strList(spec, "mergeKeys", where)
	if err != nil {
		return false, err
	}
	if len(keys) < 1 {
		return false, invalidf("%s: no merge keys were specified, Merge requires at least one", where)
	}
	var base []map[string]any
	at := where + ".generators[0]"
	u, err := e.child(at, children[0], nil, depth+1, func(p map[string]any) bool {
		base = append(base, p)
		return len(base) <= e.opts.MaxApplications
	})
	if err != nil || u {
		return e.mergeStop(where, at, 1, len(children), u, err)
	}
	if len(base) > e.opts.MaxApplications {
		return false, limitf(CheckTooMany, "%s yields more than %d parameter sets", at, e.opts.MaxApplications)
	}
	byKey, order, err := byMergeKey(where, keys, base)
	if err != nil {
		return false, err
	}
	for i := 1; i < len(children); i++ {
		at := fmt.Sprintf("%s.generators[%d]", where, i)
		u, err := e.mergeOverrides(where, at, children[i], keys, byKey, depth)
		if err != nil || u {
			return e.mergeStop(where, at, i+1, len(children), u, err)
		}
	}
	for _, k := range order {
		if !out(byKey[k]) {
			break
		}
	}
	return false, nil
}

func (e *expander) mergeStop(where, at string, i, n int, unknown bool, err error) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("error getting param sets from generators: error getting params from generator %d of %d: %w", i, n, err)
	}
	e.find(CheckUnsupported, SeverityWarning, "%s: the merge generator yields no Application here, because %s cannot be generated statically", where, at)
	return true, nil
}

// mergeOverrides applies the parameter sets of one later child to the base sets with the same merge key.
func (e *expander) mergeOverrides(where, at string, child any, keys []string, base map[string]map[string]any, depth int) (bool, error) {
	seen := map[string]bool{}
	var inner error
	u, err := e.child(at, child, nil, depth+1, func(o map[string]any) bool {
		k, err := mergeKey(where, keys, o)
		if err == nil && seen[k] {
			err = duplicateKey(where, k)
		}
		if err == nil {
			err = e.spend(1 + len(o))
		}
		if err != nil {
			inner = err
			return false
		}
		seen[k] = true
		b, ok := base[k]
		switch {
		case !ok:
		case e.goTemplate:
			mergeOverride(b, o)
		default:
			for ok, ov := range o {
				b[ok] = ov
			}
		}
		return true
	})
	if err == nil {
		err = inner
	}
	return u, err
}

// byMergeKey indexes parameter sets by their merge key, as upstream's getParamSetsByMergeKey does.
func byMergeKey(where string, keys []string, sets []map[string]any) (map[string]map[string]any, []string, error) {
	byKey := make(map[string]map[string]any, len(sets))
	order := make([]string, 0, len(sets))
	for _, p := range sets {
		k, err := mergeKey(where, keys, p)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := byKey[k]; dup {
			return nil, nil, duplicateKey(where, k)
		}
		byKey[k] = p
		order = append(order, k)
	}
	return byKey, order, nil
}

// mergeKey is the JSON of a parameter set's merge-key values (an absent key is null).
func mergeKey(where string, keys []string, p map[string]any) (string, error) {
	k := make(map[string]any, len(keys))
	for _, mk := range keys {
		k[mk] = p[mk]
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return "", invalidf("%s: error marshalling param set key json: %v", where, err)
	}
	return string(raw), nil
}

func duplicateKey(where, k string) error {
	return invalidf("%s: the parameters from a generator were not unique by the given mergeKeys, "+
		"Merge requires all param sets to be unique. Duplicate key was %s", where, k)
}
