package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// helm install -n demo puts a chart's namespace-less objects in demo, and
// leaves cluster-scoped ones (and ones that name a namespace) alone.
func TestHelmReleaseNamespace(t *testing.T) {
	opts := DefaultOptions()
	opts.Helm.Namespace = "demo"
	res := renderMem(t, map[string]string{
		"c/Chart.yaml":              "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/hpa.yaml":      hpaDoc("web", "4"),
		"c/templates/role.yaml":     "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n",
		"c/templates/elsewhere.yml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: other\n",
	}, ".", opts)
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
	gated := "{{- if .Capabilities.APIVersions.Has \"keda.sh/v1alpha1/ScaledObject\" }}\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: so\nspec:\n  scaleTargetRef:\n    name: web\n{{- end }}\n" +
		"{{- if .Capabilities.APIVersions.Has \"example.com/v1\" }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: custom\n{{- end }}\n"
	files := map[string]string{
		"c/Chart.yaml":          "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/gate.yaml": gated,
	}
	kinds := func(opts Options) map[string]bool {
		res := renderMem(t, files, ".", opts)
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

// Issue 11: a two-link directory-symlink cycle beside a chart overflowed
// the stack in checkTree; it is now a finding for that chart, in bounded
// time, and the good source beside it still renders.
func TestSymlinkCycleBesideChart(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"chart/Chart.yaml":       "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/templates/h.yaml": hpaDoc("web", "4"),
		"a/keep":                 "x",
		"b/keep":                 "x",
		"ok/hpa.yaml":            hpaDoc("ok", "3"),
	})
	for _, l := range [][2]string{{"../a", "chart/x"}, {"../b", "a/l"}, {"../a", "b/l"}} {
		if err := os.Symlink(l[0], filepath.Join(root, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	res, err := Render(context.Background(), root, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	var chart SourceResult
	for _, s := range res.Sources {
		if s.Path == "chart" {
			chart = s
		}
	}
	if chart.Status != StatusFailed || !strings.Contains(chart.Reason, "symlink loop") {
		t.Errorf("chart: %s %q, want failed with a symlink loop", chart.Status, chart.Reason)
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "", "ok") {
		t.Errorf("the good source beside it is missing")
	}
}
