package render

import (
	"context"
	"testing"
)

// helm install -n demo puts a chart's namespace-less objects in demo, and
// leaves cluster-scoped ones (and ones that name a namespace) alone.
func TestHelmReleaseNamespace(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"c/Chart.yaml":              "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/hpa.yaml":      hpaDoc("web", "4"),
		"c/templates/role.yaml":     "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n",
		"c/templates/elsewhere.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: other\n",
	})
	opts := DefaultOptions()
	opts.Helm.Namespace = "demo"
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"HorizontalPodAutoscaler": "demo", "ClusterRole": "", "ConfigMap": "other"}
	for _, o := range res.Objects {
		if ns, ok := want[o.Kind]; ok {
			md, _ := o.Doc["metadata"].(map[string]any)
			if o.Namespace != ns || (ns != "" && md["namespace"] != ns) {
				t.Errorf("%s %s: namespace %q (manifest %v), want %q", o.Kind, o.Name, o.Namespace, md["namespace"], ns)
			}
			delete(want, o.Kind)
		}
	}
	if len(want) > 0 {
		t.Errorf("objects missing: %v", want)
	}
}

// A chart that gates its ScaledObject on the KEDA API renders it with the
// default API versions, and -a adds what a cluster has beyond them.
func TestAPIVersionsGate(t *testing.T) {
	root := t.TempDir()
	gated := "{{- if .Capabilities.APIVersions.Has \"keda.sh/v1alpha1/ScaledObject\" }}\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: so\nspec:\n  scaleTargetRef:\n    name: web\n{{- end }}\n" +
		"{{- if .Capabilities.APIVersions.Has \"example.com/v1\" }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: custom\n{{- end }}\n"
	writeTree(t, root, map[string]string{
		"c/Chart.yaml":          "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/gate.yaml": gated,
	})
	kinds := func(opts Options) map[string]bool {
		res, err := Render(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, o := range res.Objects {
			got[o.Kind] = true
		}
		return got
	}
	if got := kinds(DefaultOptions()); !got["ScaledObject"] || got["ConfigMap"] {
		t.Errorf("defaults: %v, want the ScaledObject only", got)
	}
	opts := DefaultOptions()
	opts.APIVersions = append(opts.APIVersions, "example.com/v1")
	if got := kinds(opts); !got["ScaledObject"] || !got["ConfigMap"] {
		t.Errorf("with example.com/v1: %v, want both", got)
	}
}
