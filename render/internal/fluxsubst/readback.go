package fluxsubst

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// readBack reads a substituted object's text back as kustomize-controller
// does (fluxcd/pkg/kustomize varSubstitution): sigs.k8s.io/yaml.YAMLToJSON,
// which parses with yaml.v2 (YAML 1.1: a substituted yes, on, y or off is
// a boolean, 0777 octal, 1_000 a thousand) and keeps the first document,
// then the JSON as the object (kustomize's Resource.UnmarshalJSON, where a
// number written without a point or exponent is an integer). The result
// is in the types the rest of render decodes YAML to: int64 for integers,
// float64 for other numbers (and integers past int64), bool, nil, string,
// []any and map[string]any.
func readBack(text string) (map[string]any, error) {
	data, err := sigsyaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := numbersOf(v).(map[string]any)
	if !ok {
		return nil, errors.New("the substituted object is not a mapping")
	}
	return m, nil
}

// numbersOf turns the json.Numbers under v into int64 or float64.
func numbersOf(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = numbersOf(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbersOf(x)
		}
	case json.Number:
		s := string(t)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return i
			}
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return s
	}
	return v
}
