package appset

import (
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// applyTemplatePatch is upstream's renderTemplatePatch and applyTemplatePatch: the whole templatePatch is
// rendered as one template with the parameter set, read as JSON (when it starts with "{") or YAML, and
// applied to the Application as a strategic merge patch. The Application type declares no patch merge
// keys, so that is: objects merge key by key, null deletes, lists and everything else replace, plus the
// $patch: replace|delete|merge directives. The project cannot be changed by a patch.
func (e *expander) applyTemplatePatch(doc, params map[string]any) (map[string]any, error) {
	text, err := e.replace(*e.patch, params, e.options)
	if err != nil {
		return nil, wrapTemplate(err, "error replacing values in templatePatch")
	}
	if err := e.spend(1 + len(text)/yamlBytesPerUnit); err != nil {
		return nil, err
	}
	patch, err := decodePatch(text)
	if err != nil {
		return nil, templatef("invalid templatePatch %q: %v", clip(text), err)
	}
	spec, _ := doc["spec"].(map[string]any)
	project, hadProject := spec["project"]
	patched, err := strategicMerge(copyMap(doc), patch)
	if err != nil {
		return nil, templatef("error while applying templatePatch template to json %q: %v", clip(text), err)
	}
	if patched == nil {
		patched = map[string]any{}
	}
	if spec, ok := patched["spec"].(map[string]any); ok {
		if hadProject {
			spec["project"] = project
		} else {
			delete(spec, "project")
		}
	}
	return patched, nil
}

// decodePatch is ConvertYAMLToJSON followed by the unmarshal into an Application, which wants an object.
func decodePatch(text string) (map[string]any, error) {
	raw := []byte(text)
	if t := strings.TrimSpace(text); t == "" || t[0] != '{' {
		var err error
		if raw, err = yaml.YAMLToJSON(raw); err != nil {
			return nil, err
		}
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("json: cannot unmarshal %s into Go value of type v1alpha1.Application", kindOf(v))
	}
	if _, _, ok := measure(m, maxValueSize); !ok {
		return nil, limitf(CheckTemplate, "the templatePatch is larger than capreport's bound (%d units)", maxValueSize)
	}
	return m, nil
}

// strategicMerge applies patch to dst (which it may change); a nil result means "delete".
func strategicMerge(dst, patch map[string]any) (map[string]any, error) {
	switch d := patch["$patch"]; d {
	case nil, "merge":
	case "replace":
		return withoutDirectives(patch)
	case "delete":
		return nil, nil
	default:
		return nil, fmt.Errorf("unknown patch type: %v", d)
	}
	if dst == nil {
		dst = map[string]any{}
	}
	for _, k := range sortedKeys(patch) {
		pv := patch[k]
		switch {
		case k == "$patch":
			continue
		case strings.HasPrefix(k, "$"):
			return nil, fmt.Errorf("capreport does not apply the strategic merge directive %s", k)
		case pv == nil:
			delete(dst, k)
			continue
		}
		pm, ok := pv.(map[string]any)
		if !ok {
			dst[k] = deepCopy(pv)
			continue
		}
		dm, _ := dst[k].(map[string]any)
		merged, err := strategicMerge(dm, pm)
		if err != nil {
			return nil, err
		}
		if merged == nil {
			delete(dst, k)
		} else {
			dst[k] = merged
		}
	}
	return dst, nil
}

func withoutDirectives(patch map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range patch {
		if strings.HasPrefix(k, "$") {
			continue
		}
		if m, ok := v.(map[string]any); ok {
			var err error
			if v, err = withoutDirectives(m); err != nil {
				return nil, err
			}
		}
		if v != nil {
			out[k] = deepCopy(v)
		}
	}
	return out, nil
}
