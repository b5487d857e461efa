package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/capreport/capreport/render"
)

const full = `# every section
sources:
  - path: charts/api
    releaseName: api
    namespace: prod
    values: [charts/api/base.yaml]
    valueSets:
      - name: staging
        namespace: staging
        values: charts/api/staging.yaml
      - name: prod
        values: [charts/api/prod.yaml]
        set: [replicaCount=3, "image.tag=v1"]
  - path: deploy/overlays/prod
    type: kustomize
  - path: charts/worker
    name: blue
    set: [a=b]
defaults:
  deadTime: 90
  podRate: 100/s
  latencyTarget: 30s
  overload: 3x,10x,30x
  demand: 500
  step: 4x
  metricWindow: 1m
  saturatedEfficiency: 0.8
  signal: backlog
workloads:
  - namespace: "prod-*"
    kind: Deployment
    name: "{api,web}"
    deadTime: 45s
    overload: [2x, 5x]
  - name: api
    podRate: 20
cluster:
  syncPeriod: 30s
  tolerance: 0
  downscaleStabilization: 0s
  cpuInitializationPeriod: 3m
  initialReadinessDelay: 10s
  kubeVersion: v1.33
checks:
  include: [dangling-target, assumption-default]
  exclude: [signal-unknown]
  allowIgnores: false
failOn: warning
`

func TestParseFull(t *testing.T) {
	c, err := Parse(".capreport.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 3 {
		t.Fatalf("sources: %+v", c.Sources)
	}
	api := c.Sources[0]
	wantSets := []ValueSet{
		{Name: "staging", ReleaseName: "api", Namespace: "staging", Values: []string{"charts/api/base.yaml", "charts/api/staging.yaml"}, Set: nil, Line: 8},
		{Name: "prod", ReleaseName: "api", Namespace: "prod", Values: []string{"charts/api/base.yaml", "charts/api/prod.yaml"}, Set: []string{"replicaCount=3", "image.tag=v1"}, Line: 11},
	}
	if api.Path != "charts/api" || api.Line != 3 || !reflect.DeepEqual(api.ValueSets, wantSets) {
		t.Errorf("api source:\n got %+v\nwant %+v", api.ValueSets, wantSets)
	}
	if k := c.Sources[1]; k.Type != "kustomize" || len(k.ValueSets) != 1 || k.ValueSets[0].Name != "" {
		t.Errorf("kustomize source: %+v", k)
	}
	if w := c.Sources[2]; w.ValueSets[0].Name != "blue" || !reflect.DeepEqual(w.ValueSets[0].Set, []string{"a=b"}) {
		t.Errorf("worker source: %+v", w)
	}
	d := c.Defaults
	if d.DeadTime.Value != 90*time.Second || d.DeadTime.Line != 20 || d.PodRate.Value != 100 || d.LatencyTarget.Value != 30*time.Second ||
		!reflect.DeepEqual(d.Overload.Value, []float64{3, 10, 30}) || d.Demand.Value != 500 || d.Step.Value != 4 ||
		d.MetricWindow.Value != time.Minute || d.SaturatedEfficiency.Value != 0.8 || d.Signal.Value != SignalBacklog {
		t.Errorf("defaults: %+v", d)
	}
	if len(c.Workloads) != 2 || c.Workloads[0].Line != 30 || c.Workloads[0].Assumptions.DeadTime.Value != 45*time.Second ||
		!reflect.DeepEqual(c.Workloads[0].Assumptions.Overload.Value, []float64{2, 5}) {
		t.Errorf("workloads: %+v", c.Workloads)
	}
	cl := c.Cluster
	if cl.SyncPeriod.Value != 30*time.Second || !cl.Tolerance.Set || cl.Tolerance.Value != 0 || cl.DownscaleStabilization.Value != 0 ||
		!cl.DownscaleStabilization.Set || cl.CPUInitializationPeriod.Value != 3*time.Minute || cl.InitialReadinessDelay.Value != 10*time.Second ||
		cl.KubeVersion.Value != "1.33.0" || cl.KubeVersion.Line != 43 {
		t.Errorf("cluster: %+v", cl)
	}
	if !reflect.DeepEqual(c.Checks.Include, []string{"assumption-default", "dangling-target"}) || c.Checks.AllowIgnores.Value ||
		!c.Checks.Enabled("dangling-target") || c.Checks.Enabled("signal-unknown") || c.Checks.Enabled("other") {
		t.Errorf("checks: %+v", c.Checks)
	}
	if c.FailOn != FailOnWarning || c.FailOnLine != 48 {
		t.Errorf("failOn %q at %d", c.FailOn, c.FailOnLine)
	}
}

func TestDefault(t *testing.T) {
	for _, data := range []string{"", "# nothing\n", "---\n", "~\n"} {
		c, err := Parse("x.yaml", []byte(data))
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		d := Default()
		d.File = "x.yaml"
		if !reflect.DeepEqual(c, d) {
			t.Errorf("%q: %+v, want the default", data, c)
		}
	}
	d := Default()
	if d.Cluster.SyncPeriod.Value != 15*time.Second || d.Cluster.Tolerance.Value != 0.1 || d.Cluster.DownscaleStabilization.Value != 300*time.Second ||
		d.Cluster.CPUInitializationPeriod.Value != 5*time.Minute || d.Cluster.InitialReadinessDelay.Value != 30*time.Second ||
		d.Cluster.KubeVersion.Value != "1.34.0" || !d.Checks.AllowIgnores.Value || d.FailOn != FailOnError {
		t.Errorf("defaults: %+v", d)
	}
}

func TestWorkloadMatch(t *testing.T) {
	c, err := Parse("c.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	a, lines := c.WorkloadAssumptions("prod-eu", ObjectRef{Kind: "HorizontalPodAutoscaler", Name: "api"}, ObjectRef{Kind: "deployment", Name: "api"})
	if a.DeadTime.Value != 45*time.Second || a.PodRate.Value != 20 || !reflect.DeepEqual(lines, []int{30, 35}) {
		t.Errorf("prod-eu api: %+v lines %v", a, lines)
	}
	a, lines = c.WorkloadAssumptions("dev", ObjectRef{Kind: "Deployment", Name: "web"})
	if a.DeadTime.Set || len(lines) != 0 {
		t.Errorf("dev web must match nothing: %+v", a)
	}
}

// errCase is a configuration that must fail at a line with a message.
type errCase struct {
	name string
	data string
	want []string // each "line: substring"
}

func (c errCase) run(t *testing.T) {
	t.Helper()
	_, err := Parse("repo/.capreport.yaml", []byte(c.data))
	if err == nil {
		t.Fatalf("no error")
	}
	for _, w := range c.want {
		if !strings.Contains(err.Error(), "repo/.capreport.yaml:"+w) {
			t.Errorf("error %q lacks %q", err, "repo/.capreport.yaml:"+w)
		}
	}
	var ce *Error
	if !errors.As(err, &ce) {
		t.Errorf("error is not a *config.Error: %T", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []errCase{
		{"unknown top key", "sources: []\nsorces: []\n", []string{`2: unknown key "sorces" in .capreport.yaml; expected one of: sources,`}},
		{"unknown source key", "sources:\n  - path: a\n    valuesFile: x\n", []string{`3: unknown key "valuesFile" in sources[0]`}},
		{"unknown default", "defaults:\n  deadtime: 9s\n", []string{`2: unknown key "deadtime" in defaults; expected one of: deadTime,`}},
		{"bad duration", "defaults:\n  deadTime: ninety\n", []string{`2: defaults.deadTime: "ninety" is not a duration, expected e.g. 90s`}},
		{"bad rate and fraction", "workloads:\n  - name: x\n    podRate: fast\n    saturatedEfficiency: 2\n", []string{
			`3: workloads[0].podRate: "fast" is not a positive rate`, `4: workloads[0].saturatedEfficiency: "2" is not a fraction`}},
		{"bad glob", "workloads:\n  - name: \"[x\"\n", []string{`2: workloads[0].name: "[x" is not a valid glob`}},
		{"bad signal", "defaults:\n  signal: queue\n", []string{`2: defaults.signal: "queue" is not a signal`}},
		{"bad overload list", "defaults:\n  overload: [2x, 1x]\n", []string{`2: defaults.overload: "2x,1x" is not a list of factors above 1`}},
		{"source without path", "sources:\n  - name: a\n", []string{`2: sources[0]: path is required`}},
		{"path escapes root", "sources:\n  - path: ../other\n  - path: /etc\n", []string{`2: sources[0].path: "../other" must be a path inside the scanned root`, `3: sources[1].path: "/etc"`}},
		{"values escape root", "sources:\n  - path: a\n    values: [../../secret.yaml]\n", []string{`3: sources[0].values: "../../secret.yaml" must be a path inside`}},
		{"set without =", "sources:\n  - path: a\n    set: [replicas]\n", []string{`3: sources[0].set: "replicas" is not a key=value pair`}},
		{"bad type", "sources:\n  - path: a\n    type: jsonnet\n", []string{`3: sources[0].type: "jsonnet" is not one of helm, kustomize, plain`}},
		{"unnamed value sets", "sources:\n  - path: a\n    valueSets:\n      - values: [x.yaml]\n      - values: [y.yaml]\n", []string{
			`4: sources[0].valueSets[0]: name is required`, `5: sources[0].valueSets[1]: name is required`}},
		{"duplicate render", "sources:\n  - path: a\n  - path: a\n", []string{`3: sources[1]: path "a" with value set "" is already listed at line 2`}},
		{"value sets on kustomize", "sources:\n  - path: a\n    type: kustomize\n    valueSets: [{name: x}, {name: y}]\n", []string{`2: sources[0]: only Helm charts take value sets`}},
		{"cluster", "cluster:\n  tolerance: 1.5\n  kubeVersion: latest\n  syncPeriod: 0s\n", []string{
			`2: cluster.tolerance: "1.5" is not a tolerance`, `3: cluster.kubeVersion: "latest" is not a Kubernetes version`, `4: cluster.syncPeriod: "0s" is not a positive duration`}},
		{"checks", "checks:\n  include: [Bad_ID]\n  exclude: [x]\n  allowIgnores: maybe\n", []string{
			`2: checks.include: "Bad_ID" is not a check ID`, `4: checks.allowIgnores: "maybe" is not a boolean`}},
		{"include and exclude", "checks:\n  include: [x]\n  exclude: [x]\n", []string{`3: checks: "x" is both included and excluded (see line 2)`}},
		{"failOn", "failOn: always\n", []string{`1: failOn: "always" is not one of error, warning, never`}},
		{"not a mapping", "- a\n- b\n", []string{`1: .capreport.yaml must be a mapping`}},
		{"sources not a list", "sources: charts/api\n", []string{`1: sources must be a list`}},
		{"duplicate key", "failOn: error\nfailOn: never\n", []string{`2: .capreport.yaml: key "failOn" appears twice`}},
		{"alias", "defaults: &d\n  deadTime: 1s\nworkloads:\n  - *d\n", []string{`4: YAML aliases`}},
		{"invalid yaml", "defaults:\n  deadTime: \"1\n", []string{`2: not valid YAML: found unexpected end of stream`}},
		{"two documents", "failOn: error\n---\nfailOn: never\n", []string{`2: more than one YAML document`}},
		{"scalar where list", "sources:\n  - path: a\n    values: {a: b}\n", []string{`3: sources[0].values must be a list of strings`}},
	} {
		t.Run(c.name, c.run)
	}
}

func TestLoadAndFind(t *testing.T) {
	dir := t.TempDir()
	if _, ok := Find(dir); ok {
		t.Fatal("found a configuration in an empty directory")
	}
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte("failOn: never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := Find(dir)
	if !ok || got != p {
		t.Fatalf("Find = %q, %v", got, ok)
	}
	if got, ok := Find(p); !ok || got != p {
		t.Errorf("Find(file) = %q, %v", got, ok)
	}
	c, err := Load(p)
	if err != nil || c.FailOn != FailOnNever || c.File != p {
		t.Fatalf("Load: %+v, %v", c, err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("#"+strings.Repeat("x", MaxFileBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("Load of a big file: %v", err)
	}
}

func TestRenderOptions(t *testing.T) {
	c, err := Parse(".capreport.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	base := render.DefaultOptions()
	base.Helm = render.HelmValues{ValuesFiles: []string{"/tmp/cli.yaml"}, ReleaseName: "cli"}
	base.Sources = []render.SourceSpec{{Path: "from-cli"}}
	got := c.RenderOptions(base)
	want := []render.SourceSpec{
		{Path: "from-cli"},
		{Path: "charts/api", Name: "staging", Helm: render.HelmValues{ValuesFiles: []string{"charts/api/base.yaml", "charts/api/staging.yaml"}, Set: []string{}, ReleaseName: "api", Namespace: "staging"}},
		{Path: "charts/api", Name: "prod", Helm: render.HelmValues{ValuesFiles: []string{"charts/api/base.yaml", "charts/api/prod.yaml"}, Set: []string{"replicaCount=3", "image.tag=v1"}, ReleaseName: "api", Namespace: "prod"}},
		{Path: "deploy/overlays/prod", Type: render.SourceKustomize, Helm: render.HelmValues{ValuesFiles: []string{}, Set: []string{}}},
		{Path: "charts/worker", Name: "blue", Helm: render.HelmValues{ValuesFiles: []string{}, Set: []string{"a=b"}}},
	}
	if len(got.Sources) != len(want) {
		t.Fatalf("sources: %+v", got.Sources)
	}
	for i := range want {
		g, w := got.Sources[i], want[i]
		if g.Path != w.Path || g.Type != w.Type || g.Name != w.Name || g.Helm.ReleaseName != w.Helm.ReleaseName ||
			g.Helm.Namespace != w.Helm.Namespace || strings.Join(g.Helm.ValuesFiles, ",") != strings.Join(w.Helm.ValuesFiles, ",") ||
			strings.Join(g.Helm.Set, ",") != strings.Join(w.Helm.Set, ",") {
			t.Errorf("source %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if got.KubeVersion != "1.33.0" || got.Helm.ReleaseName != "cli" || got.MaxObjects != base.MaxObjects {
		t.Errorf("options: %+v", got)
	}
	// Without a kubeVersion in the file, the command line's stays.
	if o := Default().RenderOptions(base); o.KubeVersion != base.KubeVersion || len(o.Sources) != 1 {
		t.Errorf("default config changed options: %+v", o)
	}
	if len(base.Sources) != 1 {
		t.Error("RenderOptions modified its argument")
	}
}

func TestParsers(t *testing.T) {
	durations := map[string]time.Duration{"90s": 90 * time.Second, "90": 90 * time.Second, " 1m30s ": 90 * time.Second, "1.5": 1500 * time.Millisecond}
	for in, want := range durations {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "ninety", "-1s", "0", "NaN", "Inf", "1e300"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) succeeded", bad)
		}
	}
	if f, err := ParseFactors("3x, 10X,30"); err != nil || !reflect.DeepEqual(f, []float64{3, 10, 30}) {
		t.Errorf("ParseFactors = %v, %v", f, err)
	}
	if f, err := ParseFraction("80%"); err != nil || f != 0.8 {
		t.Errorf("ParseFraction = %v, %v", f, err)
	}
	if _, err := ParseRate("0"); err == nil {
		t.Error("ParseRate(0) succeeded")
	}
	if s, err := ParseSignal(" Backlog"); err != nil || s != SignalBacklog {
		t.Errorf("ParseSignal = %v, %v", s, err)
	}
	if v, err := ParseKubeVersion("v1.34.2"); err != nil || v != "1.34.2" {
		t.Errorf("ParseKubeVersion = %v, %v", v, err)
	}
	if KeySaturatedEfficiency.YAMLName() != "saturatedEfficiency" || KeyDeadTime.YAMLName() != "deadTime" {
		t.Error("YAMLName")
	}
}

// TestLiteralGlob: the glob of a name matches that name and no other,
// whatever glob syntax the name holds.
func TestLiteralGlob(t *testing.T) {
	for _, s := range []string{"web", "api-*", "a?c", "[ab]", "[", "]", "{a,b}", "{", "}", "**", "\\", "a\\*", "a/b", "*/x", "!x", "[!a]", "é*", "a\u2028b"} {
		g := LiteralGlob(s)
		w := Workload{Name: g}
		if !doublestar.ValidatePattern(g) || !w.Matches("", "", s) {
			t.Errorf("LiteralGlob(%q) = %q does not match it", s, g)
		}
		for _, other := range []string{s + "x", "x" + s, "a", "ab", "abc", "", "x/y"} {
			if other != s && w.Matches("", "", other) {
				t.Errorf("LiteralGlob(%q) = %q also matches %q", s, g, other)
			}
		}
	}
}
