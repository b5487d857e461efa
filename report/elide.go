package report

import (
	"encoding/json"
	"math/big"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// elideNumbers empties, in a workload parsed for the validator, every
// list of numbers that provably passes its schema: a list the schema
// holds to nothing but each item's type (integer or number) and bounds,
// whose every item is checked here to pass them. The validator then walks
// a few values where it walked tens of thousands: the timelines are four
// fifths of a report, and the validator spends a big.Rat and a scope on
// each of their numbers (about 60 bytes allocated per byte of report, a
// 256 MiB report took 26 s). What it finds is unchanged: a list with any
// item in doubt (not a plain number, on a bound, out of float64's range)
// is left whole for the validator, and so is anything under a schema this
// walk does not read (a combinator, pattern or additional properties).
func elideNumbers(sch *jsonschema.Schema, inst any) {
	schs, ok := plainSchemas(sch, nil)
	if !ok {
		return
	}
	switch v := inst.(type) {
	case map[string]any:
		for key, val := range v {
			prop, ok := propertySchema(schs, key)
			if !ok {
				continue
			}
			if arr, isArr := val.([]any); isArr && numbersPass(prop, arr) {
				v[key] = []any{}
				continue
			}
			elideNumbers(prop, val)
		}
	case []any:
		var items []*jsonschema.Schema
		for _, s := range schs {
			if s.Items2020 != nil {
				items = append(items, s.Items2020)
			}
		}
		if len(items) != 1 {
			return
		}
		for _, item := range v {
			elideNumbers(items[0], item)
		}
	}
}

// propertySchema is the one schema of schs that reads key's value; ok is
// false when none or several do, or additional or pattern properties may.
func propertySchema(schs []*jsonschema.Schema, key string) (prop *jsonschema.Schema, ok bool) {
	for _, s := range schs {
		if p, has := s.Properties[key]; has {
			if prop != nil {
				return nil, false
			}
			prop = p
		} else if len(s.PatternProperties) > 0 || s.AdditionalProperties != nil {
			return nil, false
		}
	}
	return prop, prop != nil
}

// plainSchemas is sch and what it refers to ($ref), all of which apply at
// one place; ok is false when any uses a keyword this walk cannot follow.
func plainSchemas(sch *jsonschema.Schema, into []*jsonschema.Schema) ([]*jsonschema.Schema, bool) {
	for s := sch; s != nil; s = s.Ref {
		if s.Bool != nil || s.RecursiveRef != nil || s.DynamicRef != nil || s.Not != nil || s.If != nil ||
			len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil ||
			len(s.PrefixItems) > 0 || s.Contains != nil || s.Items != nil {
			return nil, false
		}
		into = append(into, s)
	}
	return into, true
}

// numbersPass tells whether arr is a list the schema list holds to its
// items' type and bounds alone, and every item passes them.
func numbersPass(list *jsonschema.Schema, arr []any) bool {
	schs, ok := plainSchemas(list, nil)
	if !ok || len(schs) != 1 {
		return false
	}
	s := schs[0]
	if s.MinItems != nil || s.MaxItems != nil || s.UniqueItems || s.Enum != nil || s.Const != nil || s.Items2020 == nil {
		return false
	}
	b, ok := numberBounds(s.Items2020)
	if !ok {
		return false
	}
	for _, item := range arr {
		n, isNum := item.(json.Number)
		if !isNum || !b.pass(string(n)) {
			return false
		}
	}
	return true
}

// bounds is an item schema of type and bounds only, the bounds as
// float64s (each exact, else the schema is not read).
type bounds struct {
	integer              bool // "integer" is the only type
	min, max, xmin, xmax float64
	hasMin, hasMax       bool
	hasXMin, hasXMax     bool
}

func numberBounds(item *jsonschema.Schema) (bounds, bool) {
	schs, ok := plainSchemas(item, nil)
	if !ok || len(schs) != 1 {
		return bounds{}, false
	}
	s := schs[0]
	if s.Types == nil || s.Enum != nil || s.Const != nil || s.MultipleOf != nil || s.Format != nil ||
		len(s.Extensions) > 0 || s.Properties != nil || s.Items2020 != nil {
		return bounds{}, false
	}
	var b bounds
	for _, t := range s.Types.ToStrings() {
		switch t {
		case "integer":
			b.integer = true
		case "number":
		default:
			return bounds{}, false
		}
	}
	if len(s.Types.ToStrings()) != 1 {
		b.integer = false // integer or number: any number
	}
	ok = exact(s.Minimum, &b.min, &b.hasMin) && exact(s.Maximum, &b.max, &b.hasMax) &&
		exact(s.ExclusiveMinimum, &b.xmin, &b.hasXMin) && exact(s.ExclusiveMaximum, &b.xmax, &b.hasXMax)
	return b, ok
}

// exact sets f to r when r is a float64 exactly.
func exact(r *big.Rat, f *float64, has *bool) bool {
	if r == nil {
		return true
	}
	v, isExact := r.Float64()
	*f, *has = v, true
	return isExact
}

// pass tells whether the number s surely passes: a float64 rounds a
// decimal monotonically, so a rounded value strictly inside a bound that
// is a float64 has its decimal inside too; on the bound, only a number
// read exactly (an integer literal within 2^53) is sure.
func (b bounds) pass(s string) bool {
	var f float64
	i, err := strconv.ParseInt(s, 10, 64)
	exact := err == nil && i <= 1<<53 && i >= -(1<<53)
	switch {
	case exact:
		f = float64(i)
	case b.integer:
		return false // 1.0 and 1e2 are integers too: the validator decides
	default:
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return false
		}
	}
	return (!b.hasMin || f > b.min || (exact && f == b.min)) &&
		(!b.hasMax || f < b.max || (exact && f == b.max)) &&
		(!b.hasXMin || f > b.xmin) && (!b.hasXMax || f < b.xmax)
}
