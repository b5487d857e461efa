package appset

import (
	"sigs.k8s.io/yaml"
)

// listGen is upstream's ListGenerator.GenerateParams: each element of `elements` is one parameter set (as
// written with goTemplate; in the legacy syntax every value must be a string and a `values` object becomes
// values.<key>), then each element of `elementsYaml`, taken as written in both syntaxes.
func (e *expander) listGen(where string, spec map[string]any, out sink) error {
	elements, err := list(spec, "elements", where)
	if err != nil {
		return err
	}
	for i, el := range elements {
		element, ok := el.(map[string]any)
		if el != nil && !ok {
			return invalidf("%s.elements[%d]: error unmarshling list element json: cannot unmarshal %s into Go value of type map[string]interface {}",
				where, i, kindOf(el))
		}
		if err := e.spend(1 + len(element)); err != nil {
			return err
		}
		p, err := e.listParams(where, i, element)
		if err != nil {
			return err
		}
		if !out(p) {
			return nil
		}
	}
	text, err := str(spec, "elementsYaml", where)
	if err != nil || text == "" {
		return err
	}
	if err := e.spend(1 + len(text)/yamlBytesPerUnit); err != nil {
		return err
	}
	var yamlElements []map[string]any
	if err := yaml.Unmarshal([]byte(text), &yamlElements); err != nil {
		return invalidf("%s.elementsYaml: error unmarshling decoded ElementsYaml %v", where, err)
	}
	for _, p := range yamlElements {
		if _, _, ok := measure(p, maxParamSize); !ok {
			return limitf(CheckTooMany, "%s.elementsYaml: an element is larger than capreport's bound (%d units)", where, maxParamSize)
		}
		if !out(p) {
			return nil
		}
	}
	return nil
}

// listParams copies an element, since the consumers of a parameter set (merge, templates with sprig's set)
// may change it.
func (e *expander) listParams(where string, i int, element map[string]any) (map[string]any, error) {
	if e.goTemplate {
		return copyMap(element), nil
	}
	params := map[string]any{}
	for _, k := range sortedKeys(element) {
		v := element[k]
		if k == "values" {
			values, ok := v.(map[string]any)
			if !ok {
				return nil, invalidf("%s.elements[%d]: error parsing values map", where, i)
			}
			for vk, vv := range values {
				s, ok := vv.(string)
				if !ok {
					return nil, invalidf("%s.elements[%d]: error parsing value as string: values.%s is %s", where, i, vk, kindOf(vv))
				}
				params["values."+vk] = s
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, invalidf("%s.elements[%d]: error parsing value as string: %s is %s (the legacy syntax takes strings only; quote it or use goTemplate)",
				where, i, k, kindOf(v))
		}
		params[k] = s
	}
	return params, nil
}
