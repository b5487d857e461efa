package appset

import (
	"encoding/json"
	"fmt"
	"strings"
)

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
func hasTemplate(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.Contains(t, "{{")
	case map[string]any:
		for k, x := range t {
			if strings.Contains(k, "{{") || hasTemplate(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if hasTemplate(x) {
				return true
			}
		}
	}
	return false
}

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
// the base order (upstream's comes out of a Go map, in no order). Unlike a matrix, a merge with a child
// that cannot be generated here would give wrong values, so it yields nothing.
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
	sets := make([][]map[string]any, len(children))
	for i, c := range children {
		at := fmt.Sprintf("%s.generators[%d]", where, i)
		u, err := e.child(at, c, nil, depth+1, func(p map[string]any) bool {
			if len(sets[i]) > e.opts.MaxApplications {
				return false
			}
			sets[i] = append(sets[i], p)
			return true
		})
		if err != nil {
			return false, fmt.Errorf("error getting param sets from generators: error getting params from generator %d of %d: %w", i+1, len(children), err)
		}
		if u {
			e.find(CheckUnsupported, SeverityWarning, "%s: the merge generator yields no Application here, because %s cannot be generated statically", where, at)
			return true, nil
		}
		if len(sets[i]) > e.opts.MaxApplications {
			return false, limitf(CheckTooMany, "%s yields more than %d parameter sets, which capreport does not merge", at, e.opts.MaxApplications)
		}
	}
	merged, err := e.mergeSets(where, keys, sets)
	if err != nil {
		return false, err
	}
	for _, p := range merged {
		if !out(p) {
			break
		}
	}
	return false, nil
}

func (e *expander) mergeSets(where string, keys []string, sets [][]map[string]any) ([]map[string]any, error) {
	base, order, err := byMergeKey(where, keys, sets[0])
	if err != nil {
		return nil, err
	}
	for _, other := range sets[1:] {
		overrides, _, err := byMergeKey(where, keys, other)
		if err != nil {
			return nil, err
		}
		for k, b := range base {
			o, ok := overrides[k]
			if !ok {
				continue
			}
			if err := e.spend(1 + len(o)); err != nil {
				return nil, err
			}
			if e.goTemplate {
				mergeOverride(b, o)
			} else {
				for ok, ov := range o {
					b[ok] = ov
				}
			}
		}
	}
	merged := make([]map[string]any, 0, len(order))
	for _, k := range order {
		merged = append(merged, base[k])
	}
	return merged, nil
}

// byMergeKey indexes parameter sets by the JSON of their merge-key values (an absent key is null), as
// upstream's getParamSetsByMergeKey does.
func byMergeKey(where string, keys []string, sets []map[string]any) (map[string]map[string]any, []string, error) {
	if len(keys) < 1 {
		return nil, nil, invalidf("%s: no merge keys were specified, Merge requires at least one", where)
	}
	byKey := make(map[string]map[string]any, len(sets))
	order := make([]string, 0, len(sets))
	for _, p := range sets {
		k := make(map[string]any, len(keys))
		for _, mk := range keys {
			k[mk] = p[mk]
		}
		raw, err := json.Marshal(k)
		if err != nil {
			return nil, nil, invalidf("%s: error marshalling param set key json: %v", where, err)
		}
		if _, dup := byKey[string(raw)]; dup {
			return nil, nil, invalidf("%s: the parameters from a generator were not unique by the given mergeKeys, "+
				"Merge requires all param sets to be unique. Duplicate key was %s", where, raw)
		}
		byKey[string(raw)] = p
		order = append(order, string(raw))
	}
	return byKey, order, nil
}
