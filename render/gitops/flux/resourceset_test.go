package flux

import (
	"fmt"
	"strings"
	"testing"

	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

func rsetSpec(t *testing.T, text string) map[string]any {
	t.Helper()
	raws, _, err := yamldoc.Decode([]byte(text), 1)
	if err != nil || len(raws) != 1 {
		t.Fatalf("spec does not decode: %v", err)
	}
	return raws[0].Doc
}

// The Flux Operator's template rules: << >> delimiters, inputs with the
// provider key, slugify, toYaml, dedupe by group/kind/namespace/name, the
// reconcile: disabled annotation, steps, and missingkey=error.
func TestBuildResourceSet(t *testing.T) {
	o := &object.Object{APIVersion: "fluxcd.controlplane.io/v1", Kind: "ResourceSet", Name: "apps", Namespace: "flux-system"}
	cases := []struct{ name, spec, want string }{
		{"inputs and slugify", `
inputs:
  - app: My App
    max: 4
  - app: other
    max: 2
resources:
  - apiVersion: autoscaling/v2
    kind: HorizontalPodAutoscaler
    metadata:
      name: << inputs.app | slugify >>
      namespace: << inputs.provider.namespace >>
    spec:
      maxReplicas: << inputs.max >>
`, "HorizontalPodAutoscaler flux-system/my-app max=4; HorizontalPodAutoscaler flux-system/other max=2"},
		{"dedupe and disabled", `
inputs: [{app: a}, {app: a}, {app: b, off: disabled}]
resources:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: << inputs.app >>
      annotations:
        fluxcd.controlplane.io/reconcile: << get inputs "off" | default "enabled" >>
`, "ConfigMap a"},
		{"template and steps", `
inputs: [{n: "1"}, {n: "2"}]
steps:
  - name: first
    resourcesTemplate: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: cm-<< inputs.n >>
      data:
        <<- toYaml (dict "k" inputs.n) | nindent 2 >>
`, "ConfigMap cm-1 k=1; ConfigMap cm-2 k=2"},
		{"no inputs", `
resources:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: same}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: same}
`, "ConfigMap same; ConfigMap same"},
		{"missing key", `
inputs: [{app: a}]
resources:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: << inputs.nope >>}
`, "error: resources[0]: template: resourceset:4:11: executing \"resourceset\" at <inputs>: map has no entry for key \"nope\""},
	}
	for _, c := range cases {
		spec := rsetSpec(t, c.spec)
		docs, err := buildResourceSet(spec, resourceSetInputs(o, spec))
		var got []string
		for _, d := range docs {
			s := yamldoc.Str(d, "kind") + " " + object.NSName(yamldoc.Str(d, "metadata", "namespace"), yamldoc.Str(d, "metadata", "name"))
			if m := yamldoc.Dig(d, "spec", "maxReplicas"); m != nil {
				s += fmt.Sprintf(" max=%v", m)
			}
			if k := yamldoc.Str(d, "data", "k"); k != "" {
				s += " k=" + k
			}
			got = append(got, s)
		}
		text := strings.Join(got, "; ")
		if err != nil {
			text = "error: " + err.Error()
		}
		if text != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, text, c.want)
		}
	}
}

// Many inputs over many templates end with an error, not after a million
// template fills that dedupe to one object.
func TestBuildResourceSetBounded(t *testing.T) {
	inputs := make([]map[string]any, 2000)
	resources := make([]any, 100)
	for i := range inputs {
		inputs[i] = map[string]any{"n": i}
	}
	for i := range resources {
		resources[i] = map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "same"}}
	}
	_, err := buildResourceSet(map[string]any{"resources": resources}, inputs)
	if err == nil || !strings.Contains(err.Error(), "more than the 100000 capreport renders") {
		t.Errorf("err = %v", err)
	}
}
