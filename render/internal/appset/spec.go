package appset

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"text/template"
)

// expander holds the state of one Expand call. It is used by one goroutine.
type expander struct {
	repo Repo
	opts Options

	set        string // "namespace/name", for messages
	namespace  string
	goTemplate bool
	options    []string // goTemplateOptions, validated
	patch      *string  // templatePatch
	preserve   bool     // syncPolicy.preserveResourcesOnDeletion

	work      int // units of work left; see spend
	unflushed int // units spent and not yet charged to opts.Run
	outLeft   int // bytes the current Application, generator or value may still render
	readLeft  int // bytes the git files generator may still read
	eng       *engine

	problems []Problem
	seen     map[Problem]bool
}

// engine runs goTemplate strings as upstream's Render.Replace does (a clone of a "base" template holding
// the function map, the goTemplateOptions, then Parse and Execute on the parameters), with parsed templates
// cached and every execution bounded.
type engine struct {
	e     *expander
	base  *template.Template
	cache map[string]*template.Template

	// per execution
	calls int // template invocations
	alloc int // bytes returned by functions
}

// appSetSpec is the part of an ApplicationSet the expansion reads.
type appSetSpec struct {
	generators []any
	template   map[string]any
}

// fatal is an error that stops the expansion of the whole ApplicationSet, as an error returned from
// upstream's GenerateApplications stops the reconcile before any Application is created or updated.
type fatal struct {
	check string
	msg   string
	ours  bool // a bound of capreport's, not an error Argo CD would raise
}

func (f *fatal) Error() string { return f.msg }

func invalidf(format string, args ...any) error {
	return &fatal{check: CheckInvalid, msg: fmt.Sprintf(format, args...)}
}

func templatef(format string, args ...any) error {
	return &fatal{check: CheckTemplate, msg: fmt.Sprintf(format, args...)}
}

// limitf reports one of capreport's own bounds, which the controller does not have.
func limitf(check, format string, args ...any) error {
	return &fatal{check: check, msg: fmt.Sprintf(format, args...), ours: true}
}

// readSpec reads what the expansion needs, with the types the ApplicationSet CRD gives those fields, and
// copies generators and template so that nothing the caller holds is ever changed.
func (e *expander) readSpec(appSet map[string]any) (*appSetSpec, error) {
	meta, err := obj(appSet, "metadata", "")
	if err != nil {
		return nil, err
	}
	name, _ := meta["name"].(string)
	e.namespace, _ = meta["namespace"].(string)
	e.set = e.namespace + "/" + name
	spec, err := obj(appSet, "spec", "")
	if err != nil {
		return nil, err
	}
	if e.goTemplate, err = boolean(spec, "goTemplate", "spec"); err != nil {
		return nil, err
	}
	if e.options, err = templateOptions(spec); err != nil {
		return nil, err
	}
	if e.patch, err = optString(spec, "templatePatch", "spec"); err != nil {
		return nil, err
	}
	sync, err := obj(spec, "syncPolicy", "spec")
	if err != nil {
		return nil, err
	}
	if e.preserve, err = boolean(sync, "preserveResourcesOnDeletion", "spec.syncPolicy"); err != nil {
		return nil, err
	}
	s := &appSetSpec{}
	budget := maxInputNodes
	gens, err := list(spec, "generators", "spec")
	if err != nil {
		return nil, err
	}
	// Generators become parameters, which upstream decodes from JSON: numbers are float64 there, and a
	// legacy parameter prints the way %v prints a float64.
	g, err := normalize(gens, true, 0, &budget)
	if err != nil {
		return nil, invalidf("spec.generators: %v", err)
	}
	s.generators, _ = g.([]any)
	tmpl, err := obj(spec, "template", "spec")
	if err != nil {
		return nil, err
	}
	t, err := normalize(tmpl, false, 0, &budget)
	if err != nil {
		return nil, invalidf("spec.template: %v", err)
	}
	s.template, _ = t.(map[string]any)
	if s.template == nil {
		s.template = map[string]any{}
	}
	return s, nil
}

// templateOptions validates goTemplateOptions, since text/template's Option panics on anything else.
func templateOptions(spec map[string]any) ([]string, error) {
	opts, err := strList(spec, "goTemplateOptions", "spec")
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		switch o {
		case "missingkey=default", "missingkey=invalid", "missingkey=zero", "missingkey=error":
		default:
			return nil, invalidf("spec.goTemplateOptions: unrecognized option %q (text/template knows missingkey=default, invalid, zero and error)", o)
		}
	}
	return opts, nil
}

// normalize deep-copies a decoded YAML value into JSON's types, bounding its size and nesting. With floats,
// every number becomes a float64, as encoding/json decodes it.
func normalize(v any, floats bool, depth int, budget *int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, fmt.Errorf("more than %d values", maxInputNodes)
	}
	if depth > maxNesting {
		return nil, fmt.Errorf("nested more than %d levels deep", maxNesting)
	}
	switch t := v.(type) {
	case nil, string, bool:
		return t, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			n, err := normalize(x, floats, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("a map key is %s, not a string", kindOf(k))
			}
			n, err := normalize(x, floats, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[ks] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			n, err := normalize(x, floats, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	return normalizeNumber(v, floats)
}

func normalizeNumber(v any, floats bool) (any, error) {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case float32:
		f = float64(t)
	case int:
		f = float64(t)
	case int64:
		f = float64(t)
	case int32:
		f = float64(t)
	case uint64:
		f = float64(t)
	case uint:
		f = float64(t)
	case json.Number:
		var err error
		if f, err = t.Float64(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("a value of Go type %T is not JSON", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%v is not a JSON number", f)
	}
	if floats {
		return f, nil
	}
	if _, isFloat := v.(float64); isFloat || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return f, nil
	}
	return int64(f), nil
}

// obj reads key as an object; absent and null read as nil.
func obj(m map[string]any, key, where string) (map[string]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, invalidf("%s must be an object, not %s", join(where, key), kindOf(v))
	}
	return o, nil
}

func str(m map[string]any, key, where string) (string, error) {
	s, err := optString(m, key, where)
	if s == nil || err != nil {
		return "", err
	}
	return *s, nil
}

func optString(m map[string]any, key, where string) (*string, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, invalidf("%s must be a string, not %s", join(where, key), kindOf(v))
	}
	return &s, nil
}

func boolean(m map[string]any, key, where string) (bool, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, invalidf("%s must be a boolean, not %s", join(where, key), kindOf(v))
	}
	return b, nil
}

func list(m map[string]any, key, where string) ([]any, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, invalidf("%s must be a list, not %s", join(where, key), kindOf(v))
	}
	return l, nil
}

func strList(m map[string]any, key, where string) ([]string, error) {
	l, err := list(m, key, where)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for i, v := range l {
		s, ok := v.(string)
		if !ok {
			return nil, invalidf("%s[%d] must be a string, not %s", join(where, key), i, kindOf(v))
		}
		out = append(out, s)
	}
	return out, nil
}

// strMap reads a map[string]string field such as a generator's values.
func strMap(m map[string]any, key, where string) (map[string]string, error) {
	o, err := obj(m, key, where)
	if err != nil || o == nil {
		return nil, err
	}
	out := make(map[string]string, len(o))
	for k, v := range o {
		s, ok := v.(string)
		if !ok {
			return nil, invalidf("%s.%s must be a string, not %s", join(where, key), k, kindOf(v))
		}
		out[k] = s
	}
	return out, nil
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any, map[any]any:
		return "an object"
	case []any:
		return "a list"
	case float64, float32, int, int64, int32, uint, uint64:
		return "a number"
	}
	return strings.TrimSpace(fmt.Sprintf("a %T", v))
}

// find records a problem once; a matrix meets the same unsupported child once per parameter set of its
// first child, and one problem says it all.
func (e *expander) find(check, severity, format string, args ...any) {
	f := Problem{Check: check, Severity: severity, Message: "ApplicationSet " + e.set + ": " + fmt.Sprintf(format, args...)}
	if e.seen[f] {
		return
	}
	e.seen[f] = true
	e.problems = append(e.problems, f)
}

// spend charges units of work and fails once the budget of the Expand call, or the run's, is gone.
func (e *expander) spend(units int) error {
	if units < 0 {
		units = 0
	}
	e.work -= units
	if e.work < 0 {
		return limitf(CheckTooMany, "expanding it takes more than capreport's %d units of work (generators, "+
			"matrix products and templates together)", workBudget)
	}
	if e.opts.Run == nil {
		return nil
	}
	e.unflushed += units
	if e.unflushed < runFlush {
		return nil
	}
	return e.flushRun()
}

// flushRun charges the run's budget with what the call spent since the last charge.
func (e *expander) flushRun() error {
	if e.opts.Run == nil {
		return nil
	}
	left := e.opts.Run.left.Add(-int64(e.unflushed))
	e.unflushed = 0
	if left < 0 {
		return limitf(CheckTooMany, "the ApplicationSets of this run together took more than capreport's %d "+
			"units of work; this one and any after it are not expanded", RunWorkBudget)
	}
	return nil
}

// emitFunc receives one parameter set and the template merged for the generator kind that produced it
// (nil inside matrix and merge, where templates are ignored). It returns false to stop the generation.
type emitFunc func(tmpl, params map[string]any) bool

// sink receives the parameter sets of one generator.
type sink func(params map[string]any) bool
