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
