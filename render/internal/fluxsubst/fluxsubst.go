// Package fluxsubst is kustomize-controller's postBuild substitution of a
// Flux Kustomization's variables into the objects its build made
// (fluxcd/pkg/envsubst, with Flux's rules for names, disabled objects and
// numbers), bounded in what it may write.
package fluxsubst

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Flux postBuild substitution, as kustomize-controller runs it on every
// built object (fluxcd/pkg/kustomize SubstituteVariables with
// fluxcd/pkg/envsubst): ${var}, ${var:=default}, ${var:-default} and the
// other bash forms; an object labelled or annotated
// kustomize.toolkit.fluxcd.io/substitute: disabled is left alone.
//
// One deliberate difference: Flux (not strict) turns an undefined ${var}
// into an empty string. capreport keeps the text and raises a finding,
// because the value almost always lives in a ConfigMap or Secret the
// cluster holds and the repository does not, and an empty maxReplicas is a
// worse guess than none.

const substituteDisabled = "kustomize.toolkit.fluxcd.io/substitute"

var varNamePattern = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// All substitutes vars into every object of a Kustomization's
// build and returns the findings: variables left unresolved (grouped per
// Kustomization), invalid names, refusals.
func All(ks *object.Object, objs []object.Object, vars map[string]string) []check.Finding {
	var findings []check.Finding
	for name := range vars {
		if !varNamePattern.MatchString(name) {
			return []check.Finding{object.Finding(ks, check.GitOpsSubstitution, check.SeverityError,
				fmt.Sprintf("postBuild variable %q is not a valid name (%s); Flux refuses the build, so nothing was substituted", name, varNamePattern))}
		}
	}
	unresolved := map[string][]string{}
	for i := range objs {
		o := &objs[i]
		if substitutionDisabled(o) {
			continue
		}
		missing, err := substituteObject(o, vars)
		if err != nil {
			findings = append(findings, check.Finding{Check: check.GitOpsSubstitution, Severity: check.SeverityError,
				Location: check.At(o.Origin.File, o.Origin.Line), Source: o.Origin.Source,
				Message: fmt.Sprintf("%s:%d: %s %s: postBuild substitution of %s failed: %v; left as built", o.Origin.File, o.Origin.Line, o.Kind, o.Name, object.Ref(ks), err)})
			continue
		}
		for _, v := range missing {
			unresolved[v] = append(unresolved[v], o.Kind+"/"+o.Name)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(unresolved)) {
		objs := unresolved[v]
		findings = append(findings, object.Finding(ks, check.GitOpsSubstitution, check.SeverityWarning,
			fmt.Sprintf("postBuild variable ${%s} is not set by substitute or substituteFrom and has no default; kept as text in %s", v, strings.Join(objs, ", "))))
	}
	return findings
}

func substitutionDisabled(o *object.Object) bool {
	md, _ := o.Doc["metadata"].(map[string]any)
	for _, f := range []string{"labels", "annotations"} {
		m, _ := md[f].(map[string]any)
		if v, _ := m[substituteDisabled].(string); v == "disabled" {
			return true
		}
	}
	return false
}

// substituteObject substitutes vars into one object in place and returns
// the variables it left unresolved: string by string when it can
// (substituteFast), else through the whole printed text, as Flux does.
func substituteObject(o *object.Object, vars map[string]string) ([]string, error) {
	if !yamldoc.HasText(o.Doc, "$") {
		return nil, nil // nothing to substitute, and printing it is most of the cost
	}
	doc, kept, ok := substituteFast(o.Doc, vars)
	if !ok {
		var err error
		if doc, kept, err = substituteText(o.Doc, vars); err != nil {
			return nil, err
		}
	}
	origin := o.Origin
	n, ok := object.FromDoc(doc)
	if !ok {
		return nil, errors.New("the substituted object has no apiVersion or kind")
	}
	n.Origin = origin
	*o = n
	return slices.Sorted(maps.Keys(kept)), nil
}

// substituteText substitutes vars into the printed text of doc and reads it
// back, and returns the undefined variables it kept as text.
func substituteText(doc map[string]any, vars map[string]string) (map[string]any, map[string]bool, error) {
	data, err := printYAML(doc) // the text kustomize's AsYAML gives Flux
	if err != nil {
		return nil, nil, err
	}
	if bound := substitutionBound(string(data), vars); bound > MaxBytes {
		return nil, nil, fmt.Errorf("the result could reach %d bytes, over the %d-byte limit", bound, MaxBytes)
	}
	kept := map[string]bool{}
	var out string
	for range 64 { // each round keeps one more undefined variable as text
		out, err = evalKeeping(string(data), vars, kept)
		name, ok := unsetVariable(err)
		if !ok {
			break
		}
		kept[name] = true
	}
	if err != nil {
		return nil, nil, err
	}
	back, err := readBack(out)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the result back as YAML: %w", err)
	}
	return back, kept, nil
}
