package appset

import (
	"math"
)

const resourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// templateMeta are the fields of ApplicationSetTemplateMeta, all upstream's GetTempApplication copies.
var templateMeta = []string{"name", "namespace", "labels", "annotations", "finalizers"}

// renderApp turns one parameter set into the Application the controller writes: RenderTemplateParams
// (every string and key rendered, the resources finalizer added), renderTemplatePatch, then the
// ApplicationSet's namespace and NormalizeApplicationSpec as createOrUpdateInCluster applies them.
func (e *expander) renderApp(where string, tmpl, params map[string]any) (map[string]any, error) {
	if err := e.spend(16 + len(params)); err != nil {
		return nil, err
	}
	e.outLeft = maxAppBytes
	meta, _ := tmpl["metadata"].(map[string]any)
	doc := map[string]any{"metadata": pick(meta, templateMeta)}
	if spec, ok := tmpl["spec"].(map[string]any); ok {
		doc["spec"] = spec
	}
	params = copyMap(params) // sprig's set and merge may change the parameters; they stay this Application's
	if len(params) == 0 {
		// RenderTemplateParams returns the template untouched when the parameter set is empty: no
		// rendering, no finalizer.
		doc = copyMap(doc)
	} else {
		r, err := e.renderValue(doc, params, e.options)
		if err != nil {
			return nil, wrapTemplate(err, "%s: error generating application from params", where)
		}
		doc = r.(map[string]any)
		e.addFinalizer(doc)
	}
	if e.patch != nil {
		patched, err := e.applyTemplatePatch(doc, params)
		if err != nil {
			return nil, wrapTemplate(err, "%s: error generating application from params", where)
		}
		doc = patched
	}
	return e.finishApp(doc)
}

func pick(m map[string]any, keys []string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil {
			out[k] = v
		}
	}
	return out
}

// addFinalizer: upstream adds the resources finalizer when the template has none, unless
// syncPolicy.preserveResourcesOnDeletion is set.
func (e *expander) addFinalizer(doc map[string]any) {
	meta, _ := doc["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc["metadata"] = meta
	}
	if f, _ := meta["finalizers"].([]any); len(f) == 0 && !e.preserve {
		meta["finalizers"] = []any{resourcesFinalizer}
	}
}

// finishApp builds the Application document: the ApplicationSet's namespace (the security boundary of
// appsets in any namespace), the metadata fields the controller writes, and a normalized spec.
func (e *expander) finishApp(doc map[string]any) (map[string]any, error) {
	meta, _ := doc["metadata"].(map[string]any)
	out := pick(meta, []string{"name", "labels", "annotations", "finalizers"})
	if v, ok := out["name"]; ok {
		if _, isStr := v.(string); !isStr {
			return nil, invalidf("metadata.name renders to %s, not a string", kindOf(v))
		}
	}
	for _, k := range []string{"labels", "annotations"} {
		if m, ok := out[k].(map[string]any); ok && len(m) == 0 {
			delete(out, k)
		}
	}
	if f, ok := out["finalizers"].([]any); ok && len(f) == 0 {
		delete(out, "finalizers")
	}
	if e.namespace != "" {
		out["namespace"] = e.namespace
	}
	spec, _ := doc["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	normalizeSpec(spec)
	integerize(spec)
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   out,
		"spec":       spec,
	}, nil
}

// normalizeSpec is upstream's NormalizeApplicationSpec on the fields it touches: the default project, a
// zero syncPolicy dropped, zero helm, kustomize and directory blocks of each source dropped.
func normalizeSpec(spec map[string]any) {
	if p, _ := spec["project"].(string); p == "" {
		spec["project"] = "default"
	}
	if sp, ok := spec["syncPolicy"].(map[string]any); ok || spec["syncPolicy"] == nil {
		// SyncPolicy.IsZero: automated: {} is not zero, it turns automated sync on.
		opts, _ := sp["syncOptions"].([]any)
		if sp["automated"] == nil && len(opts) == 0 && sp["retry"] == nil && sp["managedNamespaceMetadata"] == nil {
			delete(spec, "syncPolicy")
		}
	}
	if sources, ok := spec["sources"].([]any); ok && len(sources) > 0 {
		for _, s := range sources {
			if m, ok := s.(map[string]any); ok {
				normalizeSource(m)
			}
		}
	} else if m, ok := spec["source"].(map[string]any); ok {
		normalizeSource(m)
	}
}

func normalizeSource(src map[string]any) {
	for _, k := range []string{"helm", "kustomize"} {
		if m, ok := src[k].(map[string]any); ok && allEmpty(m) {
			delete(src, k)
		}
	}
	if d, ok := src["directory"].(map[string]any); ok {
		recurse, _ := d["recurse"].(bool)
		noFilter, _ := d["disableExtensionFilter"].(bool)
		if !recurse && !noFilter && allEmpty(obj0(d, "jsonnet")) {
			kept := pick(d, []string{"exclude", "include"})
			for k, v := range kept {
				if isEmpty(v) {
					delete(kept, k)
				}
			}
			if len(kept) == 0 {
				delete(src, "directory")
			} else {
				src["directory"] = kept
			}
		}
	}
}

func obj0(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func allEmpty(m map[string]any) bool {
	for _, v := range m {
		if o, ok := v.(map[string]any); ok {
			if !allEmpty(o) {
				return false
			}
			continue
		}
		if !isEmpty(v) {
			return false
		}
	}
	return true
}

// integerize turns whole float64s back into int64s: numbers in a templatePatch are decoded as float64,
// and the typed Application holds integers there (retry.limit, revisionHistoryLimit).
func integerize(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if f, ok := x.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				t[k] = int64(f)
				continue
			}
			integerize(x)
		}
	case []any:
		for i, x := range t {
			if f, ok := x.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				t[i] = int64(f)
				continue
			}
			integerize(x)
		}
	}
}

// validate drops the Applications the controller's validateGeneratedApplications rejects: no name, or a
// name another Application of the set also has (both are dropped: the errors are keyed by namespace/name).
// Project and destination checks need the cluster and are not made.
func (e *expander) validate(apps []map[string]any) []map[string]any {
	count := map[string]int{}
	for _, a := range apps {
		count[appName(a)]++
	}
	var kept []map[string]any
	for _, a := range apps {
		name := appName(a)
		switch {
		case name == "":
			e.find(CheckInvalid, SeverityError, "contains an application with no name; a name must be set in the "+
				"template's metadata.name or via a templatePatch (generateName is not supported); Argo CD skips it")
		case count[name] > 1:
			e.find(CheckInvalid, SeverityError, "contains applications with duplicate name: %s; Argo CD creates or updates none of them", name)
		default:
			kept = append(kept, a)
		}
	}
	return kept
}

func appName(app map[string]any) string {
	meta, _ := app["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name
}
