package appset

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// renderValue renders every string and every object key of v, as upstream's deeplyReplace walks the typed
// Application (or generator) and replaces each string field and each key of its string-keyed maps. A null
// object member is dropped, as deeplyReplace skips nil map values. v is not changed.
func (e *expander) renderValue(v any, params map[string]any, options []string) (any, error) {
	switch t := v.(type) {
	case string:
		return e.replace(t, params, options)
	case map[string]any:
		if err := e.spend(2); err != nil {
			return nil, err
		}
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			if t[k] == nil {
				continue
			}
			rv, err := e.renderValue(t[k], params, options)
			if err != nil {
				return nil, err
			}
			rk, err := e.replace(k, params, options)
			if err != nil {
				return nil, err
			}
			out[rk] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			rv, err := e.renderValue(x, params, options)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}

// replace renders one string as upstream's Render.Replace: a Go template with goTemplate, else {{param}}
// substitution. Its output counts against outLeft.
func (e *expander) replace(text string, params map[string]any, options []string) (string, error) {
	if err := e.spend(1 + len(text)/32); err != nil {
		return "", err
	}
	var out string
	var err error
	switch {
	case e.goTemplate && strings.Contains(text, "{{"):
		out, err = e.engine().render(text, params, options, e.outLeft)
	case e.goTemplate:
		// Without "{{" a Go template is one text node and prints itself; skip the parse.
		out = text
	default:
		out, err = fastReplace(text, params, e.outLeft)
	}
	if err != nil {
		return "", err
	}
	e.outLeft -= len(out)
	if e.outLeft < 0 {
		return "", limitf(CheckTemplate, "the rendered output exceeds capreport's bound of %d bytes", maxAppBytes)
	}
	return out, nil
}

// isTemplated is upstream's test for the legacy syntax: a "{{" and a later "}}" on one line.
var isTemplated = regexp.MustCompile(".*{{.*}}.*")

// fastReplace is valyala/fasttemplate with "{{" and "}}" as upstream runs it: each tag, trimmed of spaces,
// is looked up among the parameters; a string value replaces the tag, anything else (or no value) leaves
// the tag as written. A "{{" without a later "}}" is an error once the string is templated at all.
func fastReplace(tmpl string, params map[string]any, limit int) (string, error) {
	if !isTemplated.MatchString(tmpl) {
		return tmpl, nil
	}
	var b strings.Builder
	s := tmpl
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+2:]
		j := strings.Index(s, "}}")
		if j < 0 {
			return "", templatef("invalid template: Cannot find end tag=%q in the template=%q starting from %q", "}}", tmpl, s)
		}
		tag := s[:j]
		s = s[j+2:]
		trimmed := strings.TrimSpace(tag)
		if v, ok := params[trimmed].(string); ok && trimmed != "" {
			b.WriteString(v)
		} else {
			b.WriteString("{{" + tag + "}}")
		}
		if b.Len() > limit {
			return "", limitf(CheckTemplate, "the rendered output exceeds capreport's bound of %d bytes", maxAppBytes)
		}
	}
	return b.String(), nil
}

// wrapTemplate prefixes a template error with where it happened; capreport's own bounds and the work
// budget keep their check.
func wrapTemplate(err error, format string, args ...any) error {
	prefix := fmt.Sprintf(format, args...)
	var f *fatal
	if errors.As(err, &f) {
		return &fatal{check: f.check, msg: prefix + ": " + err.Error(), ours: f.ours}
	}
	return templatef("%s: %v", prefix, err)
}
