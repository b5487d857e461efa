package rules

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// nonFinite names the first float in v (a bill, walked through pointers,
// structs and slices) that is NaN or infinite, as a JSON path
// ("overloads[2].peakBacklog = +Inf"), or returns "". The report is JSON,
// which has no such numbers: one of them loses the whole report.
func nonFinite(v any) string {
	p, _ := walkFinite(reflect.ValueOf(v))
	return strings.TrimPrefix(p, ".")
}

// walkFinite returns the path below v to its first non-finite float. The
// path is spelled on the way back out, only when one is found: a bill's
// timelines hold thousands of floats, and naming each on the way in cost
// more than the checks.
func walkFinite(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return walkFinite(v.Elem())
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf(" = %v", f), true
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, ok := walkFinite(v.Index(i)); ok {
				return fmt.Sprintf("[%d]", i) + p, true
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
			if name == "-" {
				continue
			}
			if name == "" {
				name = t.Field(i).Name
			}
			if p, ok := walkFinite(v.Field(i)); ok {
				return "." + name + p, true
			}
		}
	}
	return "", false
}
