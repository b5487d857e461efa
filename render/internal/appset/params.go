package appset

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// flatten turns nested parameters into dotted keys with %v values, as github.com/jeremywohl/flatten's
// DotStyle does for upstream (git files parameters in the legacy syntax, and selector matching): objects and
// lists recurse ("a.b", "a.0"), empty ones vanish, anything else (a []string too) is a leaf.
func flatten(in map[string]any) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		flattenInto(out, k, v)
	}
	return out
}

func flattenInto(out map[string]string, key string, v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			flattenInto(out, key+"."+k, x)
		}
	case []any:
		for i, x := range t {
			flattenInto(out, key+"."+strconv.Itoa(i), x)
		}
	default:
		out[key] = fmt.Sprintf("%v", v)
	}
}

// deepCopy copies the containers parameters and templates are made of.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	case []string:
		return append([]string(nil), t...)
	case map[string]string:
		out := make(map[string]string, len(t))
		for k, x := range t {
			out[k] = x
		}
		return out
	}
	return v
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return deepCopy(m).(map[string]any)
}

// mergeOverride merges src into dst as mergo.Merge(&dst, src, mergo.WithOverride) does on
// map[string]interface{} (matrix and merge generators with goTemplate): where both hold a non-empty object
// the objects merge key by key, anything else from src (null, "", a list) replaces dst's. src is copied.
func mergeOverride(dst, src map[string]any) {
	for k, sv := range src {
		sm, sok := sv.(map[string]any)
		dm, dok := dst[k].(map[string]any)
		if sok && dok && len(dm) > 0 {
			mergeOverride(dm, sm)
			continue
		}
		dst[k] = deepCopy(sv)
	}
}

// combineStringMaps is upstream's utils.CombineStringMaps (matrix in the legacy syntax): both sides are
// printed with %v, and a key both hold with different values is an error.
func combineStringMaps(a, b map[string]any) (map[string]any, error) {
	res := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		res[k] = fmt.Sprintf("%v", v)
	}
	for _, k := range sortedKeys(b) {
		v := fmt.Sprintf("%v", b[k])
		if cur, ok := res[k]; ok && cur != v {
			return nil, fmt.Errorf("found duplicate key %s with different value, a: %s ,b: %s", k, cur, v)
		}
		res[k] = v
	}
	return res, nil
}

// fillTemplate fills what a generator's own template leaves empty from the ApplicationSet's template, as
// upstream's mergeGeneratorTemplate does with mergo.Merge (no override) on the typed template: a non-empty
// field of the generator's template wins, objects merge field by field, lists and helm.valuesObject (raw
// JSON upstream) are taken whole.
func fillTemplate(dst, base map[string]any) {
	for k, bv := range base {
		dv, ok := dst[k]
		if !ok || isEmpty(dv) {
			dst[k] = deepCopy(bv)
			continue
		}
		dm, dok := dv.(map[string]any)
		bm, bok := bv.(map[string]any)
		if dok && bok && k != "valuesObject" {
			fillTemplate(dm, bm)
		}
	}
}

// isEmpty is mergo's isEmptyValue for the values a decoded template holds.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case bool:
		return !t
	case float64:
		return t == 0
	case int64:
		return t == 0
	case int:
		return t == 0
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var invalidDNSNameChars = regexp.MustCompile("[^-a-z0-9.]")

// sanitizeName is upstream's utils.SanitizeName (basenameNormalized, filenameNormalized, the normalize
// template function): lower case, anything but [-a-z0-9.] becomes "-", at most 253 bytes, no leading or
// trailing "-" or ".".
func sanitizeName(name string) string {
	name = strings.ToLower(name)
	name = invalidDNSNameChars.ReplaceAllString(name, "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

var (
	slugNonAuthorized = regexp.MustCompile("[^a-zA-Z0-9-_]")
	slugDashes        = regexp.MustCompile("-+")
)

// slugify is upstream's SlugifyName template function: `slugify [maxSize [smartTruncate]] name`, defaults
// 50 and true, the name sanitised first, then github.com/gosimple/slug's Make. After sanitizeName the name
// is plain ASCII, so slug's transliteration and language substitutions have nothing left to do.
func slugify(args ...any) (string, error) {
	maxSize, smart, name := 50, true, ""
	for i, arg := range args {
		var ok bool
		switch i {
		case len(args) - 1:
			name, ok = arg.(string)
		case 0:
			maxSize, ok = arg.(int)
		case 1:
			smart, ok = arg.(bool)
		default:
			return "", fmt.Errorf("bad 'slugify' arguments")
		}
		if !ok {
			return "", fmt.Errorf("bad 'slugify' argument %d: %T", i+1, arg)
		}
	}
	if maxSize < 0 {
		return "", fmt.Errorf("bad 'slugify' maximum length %d", maxSize)
	}
	s := strings.TrimSpace(sanitizeName(name))
	if !smart && len(s) >= maxSize {
		s = s[:maxSize]
	}
	s = slugNonAuthorized.ReplaceAllString(s, "-")
	s = slugDashes.ReplaceAllString(s, "-")
	s = strings.Trim(s, "-_")
	if maxSize > 0 && smart && len(s) > maxSize {
		s = smartTruncate(s, maxSize)
	}
	return s, nil
}

// smartTruncate cuts at the last "-" at or before maxSize, else at maxSize.
func smartTruncate(s string, maxSize int) string {
	for i := maxSize; i >= 0; i-- {
		if s[i] == '-' {
			return s[:i]
		}
	}
	return s[:maxSize]
}
