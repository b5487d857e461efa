package render

import (
	"context"
	"reflect"
	"sort"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// locatedTree holds a Kustomize root with an autoscaler, one without (its
// Application is app.k8s.io's, not Argo CD's), one
// whose autoscaler is JSON (no "kind:" line to predict it by), and a plain
// autoscaler whose target lives in the root without one.
var locatedTree = map[string]string{
	"apps/web/kustomization.yaml":   "resources: [deploy.yaml, hpa.yaml]\n",
	"apps/web/deploy.yaml":          deployDoc("web"),
	"apps/web/hpa.yaml":             hpaDoc("web", "5"),
	"apps/quiet/kustomization.yaml": "resources: [cm.yaml, deploy.yaml, app.yaml]\n",
	"apps/quiet/app.yaml":           "apiVersion: app.k8s.io/v1beta1\nkind: Application\nmetadata:\n  name: quiet\n",
	"apps/quiet/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quiet\n",
	"apps/quiet/deploy.yaml":        "# the quiet app\n" + deployDoc("quiet"),
	"apps/json/kustomization.yaml":  "resources: [hpa.json]\n",
	"apps/json/hpa.json": `{"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "j"},
 "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "j"}, "minReplicas": 1, "maxReplicas": 3}}
`,
	"plain/hpa.yaml": hpaDoc("quiet", "4"),
}

func deployDoc(name string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\nspec:\n  replicas: 1\n"
}

// TestLocatedOnly: with Options.LocatedOnly the located objects
// (autoscalers, and targets wherever they are) keep the file and line a
// fully traced render gives them, the untraced root's other objects point
// at its kustomization, and every document is the same.
func TestLocatedOnly(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, locatedTree)
	full := renderLocated(t, root, false)
	only := renderLocated(t, root, true)
	if len(full) != len(only) {
		t.Fatalf("%d objects traced, %d with LocatedOnly", len(full), len(only))
	}
	want := map[string]Origin{
		"HorizontalPodAutoscaler/j":     {Source: "apps/json", SourceType: SourceKustomize, File: "apps/json/hpa.json", Line: 1},
		"HorizontalPodAutoscaler/web":   {Source: "apps/web", SourceType: SourceKustomize, File: "apps/web/hpa.yaml", Line: 1},
		"Deployment/web":                {Source: "apps/web", SourceType: SourceKustomize, File: "apps/web/deploy.yaml", Line: 1},
		"Deployment/quiet":              {Source: "apps/quiet", SourceType: SourceKustomize, File: "apps/quiet/deploy.yaml", Line: 2},
		"HorizontalPodAutoscaler/quiet": {Source: "plain/hpa.yaml", SourceType: SourcePlain, File: "plain/hpa.yaml", Line: 1},
		"ConfigMap/quiet":               {Source: "apps/quiet", SourceType: SourceKustomize, File: "apps/quiet/kustomization.yaml"},
	}
	for key, o := range only {
		f := full[key]
		if !reflect.DeepEqual(o.Doc, f.Doc) {
			t.Errorf("%s: document %v with LocatedOnly, %v traced", key, o.Doc, f.Doc)
		}
		if w, ok := want[key]; ok && !reflect.DeepEqual(o.Origin, w) {
			t.Errorf("%s: origin %+v, want %+v", key, o.Origin, w)
		}
		if o.Origin.Source != "apps/quiet" || o.Kind == "Deployment" {
			if !reflect.DeepEqual(o.Origin, f.Origin) {
				t.Errorf("%s: origin %+v with LocatedOnly, %+v traced", key, o.Origin, f.Origin)
			}
			continue
		}
		if o.Origin.File != "apps/quiet/kustomization.yaml" {
			t.Errorf("%s: untraced origin %+v", key, o.Origin)
		}
	}
	if full["ConfigMap/quiet"].Origin.File != "apps/quiet/cm.yaml" {
		t.Errorf("traced ConfigMap: %+v", full["ConfigMap/quiet"].Origin)
	}
}

// renderLocated renders the tree in-process and returns its objects by
// kind and name.
func renderLocated(t *testing.T, root string, locatedOnly bool) map[string]Object {
	t.Helper()
	opts := DefaultOptions()
	opts.LocatedOnly = locatedOnly
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	var untraced []string
	for _, s := range res.Sources {
		if s.Status != StatusRendered {
			t.Fatalf("%s: %s %s", s.Path, s.Status, s.Reason)
		}
		if s.Untraced {
			untraced = append(untraced, s.Path)
		}
	}
	sort.Strings(untraced)
	if wantUntraced := map[bool][]string{true: {"apps/quiet"}}[locatedOnly]; !reflect.DeepEqual(untraced, wantUntraced) {
		t.Errorf("LocatedOnly %v: untraced sources %v, want %v", locatedOnly, untraced, wantUntraced)
	}
	out := map[string]Object{}
	for _, o := range res.Objects {
		out[o.Kind+"/"+o.Name] = o
	}
	return out
}

func TestDeclaresKind(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"kind: HorizontalPodAutoscaler\n", true},
		{"  kind: 'HorizontalPodAutoscaler' # scaled\n", true},
		{"- kind: \"HorizontalPodAutoscaler\"\r\n", true},
		{"items:\n- apiVersion: v2\n  kind: HorizontalPodAutoscaler", true},
		{"description: a HorizontalPodAutoscaler scales it\n", false},
		{"kind: HorizontalPodAutoscalerList\n", false},
		{"subkind: HorizontalPodAutoscaler\n", false},
		{`{"kind": "HorizontalPodAutoscaler"}`, false},
		{"", false},
	} {
		if got := declaresKind([]byte(tc.text), []byte("HorizontalPodAutoscaler")); got != tc.want {
			t.Errorf("declaresKind(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
