package appset

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// selector is a generator's post-selector (ApplicationSetGenerator.Selector), matched against the flattened
// parameters as upstream's utils.LabelSelectorAsSelector does: a label selector without Kubernetes' rules
// on label values, so that a value can be a URL.
type selector []requirement

type requirement struct {
	key    string
	op     string // "in", "notin", "exists", "!"
	values []string
}

// parseSelector reads gen.selector. A nil selector means "no selector": every parameter set passes; an
// empty one selects everything too.
func parseSelector(gen map[string]any, where string) (selector, error) {
	raw, err := obj(gen, "selector", where)
	if err != nil || raw == nil {
		return nil, err
	}
	where = join(where, "selector")
	labels, err := strMap(raw, "matchLabels", where)
	if err != nil {
		return nil, err
	}
	sel := selector{}
	for _, k := range sortedKeys(labels) {
		r, err := newRequirement(k, "in", []string{labels[k]})
		if err != nil {
			return nil, invalidf("error parsing label selector: %s: %v", where, err)
		}
		sel = append(sel, r)
	}
	exprs, err := list(raw, "matchExpressions", where)
	if err != nil {
		return nil, err
	}
	for i, x := range exprs {
		r, err := parseExpression(x, where)
		if err != nil {
			return nil, invalidf("error parsing label selector: %s.matchExpressions[%d]: %v", where, i, err)
		}
		sel = append(sel, r)
	}
	return sel, nil
}

func parseExpression(x any, where string) (requirement, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return requirement{}, invalidf("must be an object, not %s", kindOf(x))
	}
	key, err := str(m, "key", where)
	if err != nil {
		return requirement{}, err
	}
	opName, err := str(m, "operator", where)
	if err != nil {
		return requirement{}, err
	}
	values, err := strList(m, "values", where)
	if err != nil {
		return requirement{}, err
	}
	ops := map[string]string{"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}
	op, ok := ops[opName]
	if !ok {
		return requirement{}, invalidf("%q is not a valid pod selector operator", opName)
	}
	return newRequirement(key, op, values)
}

// newRequirement checks what upstream's newRequirement checks: a qualified-name key and the number of values
// the operator takes. Values are not validated.
func newRequirement(key, op string, values []string) (requirement, error) {
	if errs := validation.IsQualifiedName(key); len(errs) != 0 {
		return requirement{}, invalidf("key: Invalid value: %q: %s", key, strings.Join(errs, "; "))
	}
	switch op {
	case "in", "notin":
		if len(values) == 0 {
			return requirement{}, invalidf("values: Invalid value: for 'in', 'notin' operators, values set can't be empty")
		}
	case "exists", "!":
		if len(values) != 0 {
			return requirement{}, invalidf("values: Invalid value: values set must be empty for exists and does not exist")
		}
	}
	return requirement{key: key, op: op, values: values}, nil
}

func (s selector) matches(labels map[string]string) bool {
	for _, r := range s {
		v, has := labels[r.key]
		switch r.op {
		case "in":
			if !has || !slices.Contains(r.values, v) {
				return false
			}
		case "notin":
			if has && slices.Contains(r.values, v) {
				return false
			}
		case "exists":
			if !has {
				return false
			}
		case "!":
			if has {
				return false
			}
		}
	}
	return true
}
