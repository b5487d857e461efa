package fluxsubst

import (
	"encoding/json"

	yamlv2 "go.yaml.in/yaml/v2"
	sigsyaml "sigs.k8s.io/yaml"
)

// printYAML prints a decoded document as YAML, byte for byte as
// sigs.k8s.io/yaml.Marshal prints it, which is how kustomize prints a
// resource (resource.AsYAML) and so the text Flux's postBuild substitution
// works on. Marshal goes through JSON: json.Marshal, then yaml.v2 reads the
// JSON back (picking int or float for each number) and prints it. printYAML
// builds what yaml.v2 would have read straight from the document and
// prints that, a third of the work; a document it cannot be sure of (a
// string outside printable ASCII, whose JSON escaping yaml.v2 may read
// differently or refuse; a key yaml.v2 may find too long; a type decoding
// never makes; very deep nesting) goes the long way.
func printYAML(doc any) ([]byte, error) {
	if v2, ok := readAsV2(doc, 0); ok {
		return yamlv2.Marshal(v2)
	}
	return sigsyaml.Marshal(doc)
}

// maxPrintDepth keeps the short way well inside yaml.v2's own nesting
// limit, which the long way meets when it reads the JSON back.
const maxPrintDepth = 1000

// maxShortKey keeps the short way inside yaml.v2's limit on a simple key:
// reading the JSON back, a flow mapping's key may reach at most 1024
// characters from its opening quote to the ':', or yaml.v2 fails ("did
// not find expected ',' or '}'"), and so does Flux's substitution.
// json.Marshal writes a printable ASCII byte as at most six characters
// (\u003c), so a key of up to 170 bytes, quoted, always fits; a longer one
// goes the long way, which fails as Flux does when it must.
const maxShortKey = 170

// readAsV2 returns the value yaml.v2 reads from json.Marshal(v): a mapping
// of interface keys, a sequence, a string, a bool, nil, or the int or
// float the number's JSON text resolves to.
func readAsV2(v any, depth int) (any, bool) {
	if depth > maxPrintDepth {
		return nil, false
	}
	switch t := v.(type) {
	case nil, bool:
		return t, true
	case string:
		return t, plainASCII(t)
	case int64:
		return int(t), true // its JSON digits resolve to an int in yaml.v2
	case float64:
		return floatAsV2(t)
	case map[string]any:
		if t == nil {
			return nil, true // JSON null
		}
		m := make(map[any]any, len(t))
		for k, x := range t {
			y, ok := readAsV2(x, depth+1)
			if !ok || !plainASCII(k) || len(k) > maxShortKey {
				return nil, false
			}
			m[k] = y
		}
		return m, true
	case []any:
		if t == nil {
			return nil, true // JSON null
		}
		l := make([]any, len(t))
		for i, x := range t {
			y, ok := readAsV2(x, depth+1)
			if !ok {
				return nil, false
			}
			l[i] = y
		}
		return l, true
	}
	return nil, false
}

// floatAsV2 resolves a float's JSON text as yaml.v2 does: 2.0 prints as 2
// and comes back an int, 1e21 as 1e+21 and comes back a float.
func floatAsV2(f float64) (any, bool) {
	text, err := json.Marshal(f)
	if err != nil {
		return nil, false // NaN or an infinity: let Marshal say so
	}
	var v any
	if err := yamlv2.Unmarshal(text, &v); err != nil {
		return nil, false
	}
	return v, true
}

// plainASCII reports whether s holds only printable ASCII, tabs and line
// breaks: text json.Marshal and yaml.v2 agree on without a doubt.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			return false
		}
	}
	return true
}
