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
	return walkFinite(reflect.ValueOf(v), "")
}

func walkFinite(v reflect.Value, path string) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return walkFinite(v.Elem(), path)
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Sprintf("%s = %v", path, f)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := walkFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
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
			if path != "" {
				name = path + "." + name
			}
			if p := walkFinite(v.Field(i), name); p != "" {
				return p
			}
		}
	}
	return ""
}
