package render

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

const apiChartHPA = `{{- if .Values.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ .Release.Name }}-api
  namespace: {{ .Release.Namespace }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ .Release.Name }}-api
  minReplicas: {{ .Values.autoscaling.min }}
  maxReplicas: {{ .Values.autoscaling.max }}
{{- end }}
`

func apiChart() map[string]string {
	return map[string]string{
		"charts/api/Chart.yaml":          "apiVersion: v2\nname: api\nversion: 1.0.0\nkubeVersion: \">=1.30.0-0\"\n",
		"charts/api/values.yaml":         "autoscaling:\n  enabled: false\n  min: 1\n  max: 3\n",
		"charts/api/values-prod.yaml":    "autoscaling:\n  enabled: true\n  max: 30\n",
		"charts/api/ci/test-values.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-a-source}\n",
		"charts/api/templates/hpa.yaml":  apiChartHPA,
		"charts/api/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\ndata:\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n",
		"charts/api/templates/_h.tpl":    "{{ define \"x\" }}{{ end }}",
		"staging-values.yaml":            "autoscaling:\n  enabled: true\n  min: 2\n",
	}
}

type valueSetCase struct {
	name    string
	opts    Options
	want    map[string][3]any // Origin.Source -> {namespace, min, max} of the HPA; nil entry: no HPA
	sources []string          // sources in order (ID)
}

func (c valueSetCase) run(t *testing.T) {
	res := renderMem(t, apiChart(), ".", c.opts)
	var ids []string
	for _, s := range res.Sources {
		id := s.Path
		if s.ValueSet != "" {
			id += "@" + s.ValueSet
		}
		ids = append(ids, id)
		if s.Status != StatusRendered {
			t.Errorf("%s: %s: %s", id, s.Status, s.Reason)
		}
	}
	if !reflect.DeepEqual(ids, c.sources) {
		t.Errorf("sources %v, want %v", ids, c.sources)
	}
	got := map[string][3]any{}
	for _, o := range res.Objects {
		if o.Kind != "HorizontalPodAutoscaler" {
			continue
		}
		spec := o.Doc["spec"].(map[string]any)
		got[o.Origin.Source] = [3]any{o.Namespace, spec["minReplicas"], spec["maxReplicas"]}
		if o.Origin.File != "charts/api/templates/hpa.yaml" || o.Origin.Line != 2 || o.Origin.SourceType != SourceHelm {
			t.Errorf("origin %+v", o.Origin)
		}
	}
	if !reflect.DeepEqual(got, c.want) {
		t.Errorf("HPAs %v, want %v", got, c.want)
	}
}

func TestHelmValueSets(t *testing.T) {
	two := DefaultOptions()
	two.Sources = []SourceSpec{
		{Path: "charts/api", Name: "prod", Helm: HelmValues{ValuesFiles: []string{"values-prod.yaml"}, Namespace: "prod"}},
		{Path: "charts/api/", Name: "staging", Helm: HelmValues{ValuesFiles: []string{"staging-values.yaml"}, Set: []string{"autoscaling.max=7"}, ReleaseName: "stg"}},
	}
	cli := DefaultOptions()
	cli.Helm = HelmValues{Set: []string{"autoscaling.enabled=true,autoscaling.max=4"}, Namespace: "cli"}
	cases := []valueSetCase{
		{
			name: "defaults", opts: DefaultOptions(),
			want:    map[string][3]any{},
			sources: []string{"charts/api"},
		},
		{
			name: "two value sets", opts: two,
			want: map[string][3]any{
				"charts/api@prod":    {"prod", int64(1), int64(30)},
				"charts/api@staging": {"default", int64(2), int64(7)},
			},
			sources: []string{"charts/api@prod", "charts/api@staging"},
		},
		{
			name: "command-line values", opts: cli,
			want:    map[string][3]any{"charts/api": {"cli", int64(1), int64(4)}},
			sources: []string{"charts/api"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestHelmKubeVersion(t *testing.T) {
	fsys := memFS(t, apiChart())
	for _, tc := range []struct {
		kube   string
		status Status
		text   string
	}{
		{"", StatusRendered, "v1.34.0"},
		{"1.31.2", StatusRendered, "v1.31.2"},
		{"1.20.0", StatusFailed, "incompatible with Kubernetes v1.20.0"},
	} {
		opts := DefaultOptions()
		opts.FS = fsys
		opts.KubeVersion = tc.kube
		res, err := Render(context.Background(), memRoot, opts)
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Sources[0]; s.Status != tc.status {
			t.Errorf("kube %q: status %s (%s), want %s", tc.kube, s.Status, s.Reason, tc.status)
		} else if tc.status == StatusFailed && !strings.Contains(s.Reason, tc.text) {
			t.Errorf("kube %q: reason %q", tc.kube, s.Reason)
		}
		for _, o := range res.Objects {
			if o.Kind == "ConfigMap" && o.Doc["data"].(map[string]any)["kube"] != tc.text {
				t.Errorf("kube %q: .Capabilities.KubeVersion.Version = %v", tc.kube, o.Doc["data"])
			}
		}
	}
}

func TestValuesFileEscape(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	testutil.WriteTree(t, root, apiChart())
	testutil.WriteTree(t, tmp, map[string]string{"secret-values.yaml": "autoscaling:\n  enabled: true\n"})
	if err := os.Symlink(filepath.Join(tmp, "secret-values.yaml"), filepath.Join(root, "linked-values.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, check string }{
		{"../secret-values.yaml", "path-escape"},
		{"../../secret-values.yaml", "path-escape"},
		{filepath.Join(tmp, "secret-values.yaml"), "path-escape"},
		{"linked-values.yaml", "symlink-escape"},
		{"-", "render-failed"}, // never stdin
	} {
		opts := DefaultOptions()
		opts.Sources = []SourceSpec{{Path: "charts/api", Name: "x", Helm: HelmValues{ValuesFiles: []string{tc.file}}}}
		res, err := Render(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range res.Findings {
			if f.Check == tc.check && f.Source == "charts/api@x" {
				found = true
			}
		}
		if !found || res.Sources[0].Status != StatusFailed {
			t.Errorf("values file %q: want a %s finding and a failed source, got %+v\n%s", tc.file, tc.check, res.Sources, dumpFindings(res.Findings))
		}
	}
}

func TestDiscoverySkipsChartAndKustomizeInternals(t *testing.T) {
	files := apiChart()
	for k, v := range map[string]string{
		"charts/api/charts/sub/Chart.yaml":          "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/api/charts/sub/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n",
		"deploy/base/kustomization.yaml":            "resources:\n  - cm.yaml\n",
		"deploy/base/cm.yaml":                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\n",
		"deploy/overlays/prod/kustomization.yml":    "resources:\n  - ../../base\n  - extra/hpa.yaml\nnamePrefix: prod-\n",
		"deploy/overlays/prod/extra/hpa.yaml":       "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n",
		"deploy/overlays/prod/extra/unrelated.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unrelated\n",
		"deploy/overlays/dev/Kustomization":         "resources:\n  - ../../base\n",
		"plain/all.yml":                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p1\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p2\n",
		".git/config.yaml":                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: git\n",
	} {
		files[k] = v
	}
	opts, root := inMemory(t, files, DefaultOptions())
	specs, findings, err := discoverSources(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.Path+" "+string(s.Type))
	}
	want := []string{"charts/api helm", "deploy/overlays/dev kustomize", "deploy/overlays/prod kustomize", "deploy/overlays/prod/extra/unrelated.yaml plain", "plain/all.yml plain"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("discovered %v, want %v (findings %v)", got, want, findings)
	}
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]Origin{}
	for _, o := range res.Objects {
		lines[o.Kind+"/"+o.Name] = o.Origin
	}
	wantOrigins := map[string]Origin{
		"ConfigMap/sub":                    {Source: "charts/api", SourceType: SourceHelm, File: "charts/api/charts/sub/templates/cm.yaml", Line: 1},
		"HorizontalPodAutoscaler/prod-web": {Source: "deploy/overlays/prod", SourceType: SourceKustomize, File: "deploy/overlays/prod/extra/hpa.yaml", Line: 1},
		"ConfigMap/prod-base":              {Source: "deploy/overlays/prod", SourceType: SourceKustomize, File: "deploy/base/cm.yaml", Line: 1},
		"ConfigMap/base":                   {Source: "deploy/overlays/dev", SourceType: SourceKustomize, File: "deploy/base/cm.yaml", Line: 1},
		"ConfigMap/p2":                     {Source: "plain/all.yml", SourceType: SourcePlain, File: "plain/all.yml", Line: 6},
	}
	for k, w := range wantOrigins {
		if !reflect.DeepEqual(lines[k], w) {
			t.Errorf("%s: origin %+v, want %+v", k, lines[k], w)
		}
	}
}

func TestRenderLimits(t *testing.T) {
	t.Run("panic becomes a finding", func(t *testing.T) {
		rd := &renderer{opts: DefaultOptions().withDefaults(), fx: &fetchState{}} // no repo: the render panics
		out := rd.renderWithLimits(context.Background(), SourceSpec{Path: "x.yaml", Type: SourcePlain})
		if out.Result.Status != StatusFailed || len(out.Result.Findings) != 1 || out.Result.Findings[0].Check != "render-panic" {
			t.Errorf("got %+v", out.Result)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		opts, root := inMemory(t, map[string]string{
			"slow/Chart.yaml":        "apiVersion: v2\nname: slow\nversion: 0.1.0\n",
			"slow/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow\ndata:\n{{- range $i := until 200000 }}\n  k{{ $i }}: {{ sha256sum (print $i) | quote }}\n{{- end }}\n",
			"fast.yaml":              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fast\n",
		}, DefaultOptions())
		// The slow chart needs about 0.7 s; 200 ms leaves the plain file a
		// wide margin on a loaded machine.
		opts.SourceTimeout = 200 * time.Millisecond
		res, err := Render(context.Background(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		st := map[string]SourceResult{}
		for _, s := range res.Sources {
			st[s.Path] = s
		}
		if st["slow"].Status != StatusFailed || st["slow"].Findings[0].Check != "render-timeout" {
			t.Errorf("slow: %+v", st["slow"])
		}
		if st["fast.yaml"].Status != StatusRendered {
			t.Errorf("fast: %+v", st["fast.yaml"])
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		opts, root := inMemory(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"}, DefaultOptions())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := Render(ctx, root, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Sources) != 1 || res.Sources[0].Status == StatusRendered {
			t.Errorf("got %+v", res.Sources)
		}
	})
}

// Command-line values (Options.Helm) are trusted: they may live anywhere.
func TestCommandLineValuesOutsideRoot(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	testutil.WriteTree(t, root, apiChart())
	testutil.WriteTree(t, tmp, map[string]string{"cli-values.yaml": "autoscaling:\n  enabled: true\n  max: 9\n"})
	opts := DefaultOptions()
	opts.Helm.ValuesFiles = []string{filepath.Join(tmp, "cli-values.yaml")}
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "default", "capreport-api") {
		t.Errorf("want the HPA enabled by the command-line values file: %+v %s", res.Sources, dumpFindings(res.Findings))
	}
}

// In memory, command-line values are read from the file system given,
// outside the root too; a relative one is looked up as a source's (there
// is no working directory).
func TestCommandLineValuesInMemory(t *testing.T) {
	fsys := memFS(t, apiChart())
	if err := fsys.WriteFile("/cli-values.yaml", []byte("autoscaling:\n  enabled: true\n  max: 9\n")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"/cli-values.yaml", "values-prod.yaml"} {
		opts := DefaultOptions()
		opts.FS = fsys
		opts.Helm.ValuesFiles = []string{f}
		res, err := Render(context.Background(), memRoot, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !hasObject(res, "HorizontalPodAutoscaler", "default", "capreport-api") {
			t.Errorf("%s: want the HPA enabled by the command-line values file: %+v %s", f, res.Sources, dumpFindings(res.Findings))
		}
	}
}
