package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

type wantFinding struct {
	check  string // finding check ID
	source string // the source the finding must name
	text   string // a substring of the message (the reason)
}

type hostileCase struct {
	name     string
	setup    func(t *testing.T, root, outside string)
	opts     func(o *Options)
	findings []wantFinding
	failed   []string // sources that must be reported failed
	rendered []string // sources that must still render
	maxAlloc uint64   // bytes allocated by the whole Render, 0: no check
	maxTime  time.Duration
	check    func(t *testing.T, root string, res *Result)
}

func (c hostileCase) run(t *testing.T) {
	t.Helper()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "repo")
	outside := filepath.Join(tmp, "outside")
	testutil.CopyTree(t, filepath.Join("..", "testdata", "hostile", c.name), root)
	testutil.WriteTree(t, outside, map[string]string{
		"secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\ndata:\n  token: OUTSIDE-SECRET\n",
		"secret":      "OUTSIDE-SECRET\n",
	})
	testutil.WriteTree(t, filepath.Join(tmp, "outside-base"), map[string]string{
		"kustomization.yaml": "resources:\n  - cm.yaml\n",
		"cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside-base\ndata:\n  token: OUTSIDE-SECRET\n",
	})
	if c.setup != nil {
		c.setup(t, root, outside)
	}
	opts := DefaultOptions()
	if c.opts != nil {
		c.opts(&opts)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	res, err := Render(context.Background(), root, opts)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if c.maxAlloc > 0 {
		if got := after.TotalAlloc - before.TotalAlloc; got > c.maxAlloc {
			t.Errorf("Render allocated %d MB, want at most %d MB", got>>20, c.maxAlloc>>20)
		}
	}
	if c.maxTime > 0 && elapsed > c.maxTime {
		t.Errorf("Render took %s, want at most %s", elapsed, c.maxTime)
	}

	t.Logf("findings:\n%s", dumpFindings(res.Findings))
	status := map[string]SourceResult{}
	for _, s := range res.Sources {
		id := s.Path
		if s.ValueSet != "" {
			id += "@" + s.ValueSet
		}
		status[id] = s
	}
	for _, w := range c.findings {
		found := false
		for _, f := range res.Findings {
			if f.Check == w.check && (f.Source == w.source || strings.Contains(f.Message, w.source)) && strings.Contains(f.Message, w.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("no finding %s for %s mentioning %q; findings:\n%s", w.check, w.source, w.text, dumpFindings(res.Findings))
		}
	}
	for _, s := range c.failed {
		if got := status[s]; got.Status != StatusFailed {
			t.Errorf("source %s: status %q, want failed (reason %q)", s, got.Status, got.Reason)
		}
	}
	for _, s := range append([]string{"ok/hpa.yaml"}, c.rendered...) {
		if got := status[s]; got.Status != StatusRendered || got.Objects == 0 {
			t.Errorf("source %s: status %q with %d objects, want rendered (reason %q)", s, got.Status, got.Objects, got.Reason)
		}
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "web", "ok") {
		t.Errorf("the benign HPA web/ok is missing")
	}
	for _, o := range res.Objects {
		if strings.Contains(fmt.Sprint(o.Doc), "OUTSIDE-SECRET") {
			t.Errorf("object %s/%s from %s carries content from outside the root", o.Kind, o.Name, o.Origin.Source)
		}
	}
	if c.check != nil {
		c.check(t, root, res)
	}
}

func dumpFindings(fs []check.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s [%s] %s: %s\n", f.Check, f.Source, f.File(), f.Message)
	}
	return b.String()
}

func hasObject(res *Result, kind, ns, name string) bool {
	for _, o := range res.Objects {
		if o.Kind == kind && o.Namespace == ns && o.Name == name {
			return true
		}
	}
	return false
}

func TestHostileFixtures(t *testing.T) {
	cases := []hostileCase{
		{
			name: "remote-base",
			// Remote entries are left out: the rest of the root renders,
			// marked partial, and the finding names what is missing.
			findings: []wantFinding{
				{"partial-render", "overlay", "https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v5.4.3"},
				{"partial-render", "gitbase", "github.com/example/does-not-exist/deploy?ref=main"},
				{"partial-render", "gitbase", "https://raw.githubusercontent.com/example/does-not-exist/main/hpa.yaml"},
			},
			rendered: []string{"overlay"},
			maxTime:  20 * time.Second,
			check: func(t *testing.T, root string, res *Result) {
				for _, s := range res.Sources {
					if (s.Path == "overlay" || s.Path == "gitbase") && !s.Partial {
						t.Errorf("source %s is not marked partial", s.Path)
					}
				}
				if !hasObject(res, "HorizontalPodAutoscaler", "web", "overlay") {
					t.Errorf("the overlay's own HPA is missing")
				}
			},
		},
		{
			name: "exec-function",
			findings: []wantFinding{
				{"exec-function", "kust", "exec function"},
				{"exec-function", "container", "container function"},
			},
			failed: []string{"kust", "container"},
			check: func(t *testing.T, root string, res *Result) {
				if _, err := os.Stat(filepath.Join(root, "kust", "PWNED")); err == nil {
					t.Errorf("the exec function ran")
				}
			},
		},
		{
			name: "path-escape",
			opts: func(o *Options) {
				o.Sources = []SourceSpec{{Path: "../outside", Type: SourcePlain}}
			},
			findings: []wantFinding{
				{"partial-render", "kust", "leaves the repository root"},
				{"partial-render", "deep/kust", "leaves the repository root"},
				{"path-escape", "deep/kust", "absolute path"},
				{"path-escape", "../outside", "leaves the repository root"},
			},
			failed: []string{"deep/kust"},
		},
		{
			name: "alias-bomb",
			findings: []wantFinding{
				{"yaml-alias-bomb", "bomb.yaml", "alias"},
				{"yaml-alias-bomb", "kust", "alias"},
				{"yaml-alias-bomb", "chart", "alias"},
			},
			failed:   []string{"kust", "chart"},
			rendered: []string{"bomb.yaml"}, // its second document is fine
			maxAlloc: 256 << 20,
			maxTime:  20 * time.Second,
			check: func(t *testing.T, root string, res *Result) {
				if !hasObject(res, "ConfigMap", "", "fine-after-bomb") || hasObject(res, "ConfigMap", "", "lol") {
					t.Errorf("want the document after the bomb, not the bomb")
				}
			},
		},
		{
			name: "huge-manifest",
			setup: func(t *testing.T, root, _ string) {
				f, err := os.Create(filepath.Join(root, "huge.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				doc := []byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: filler\ndata:\n  x: \"" + strings.Repeat("x", 1000) + "\"\n")
				for n := 0; n < 50<<20; n += len(doc) {
					if _, err := f.Write(doc); err != nil {
						t.Fatal(err)
					}
				}
			},
			findings: []wantFinding{{"file-too-large", "huge.yaml", "too large"}},
			failed:   []string{"huge.yaml"},
			maxAlloc: 48 << 20, // the 50 MB file is never read
		},
		{
			name:     "fail-template",
			findings: []wantFinding{{"render-failed", "chart", "failing chart: values.mustBeSet is required"}},
			failed:   []string{"chart"},
		},
		{
			name: "recursive-template",
			findings: []wantFinding{
				{"render-failed", "include", "recursion"},
				{"render-failed", "template", "depth"},
			},
			failed:  []string{"include", "template"},
			maxTime: 30 * time.Second,
		},
		{
			name: "symlink-escape",
			setup: func(t *testing.T, root, outside string) {
				testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(root, "leak.yaml"))
				testutil.Symlink(t, filepath.Join(outside, "secret"), filepath.Join(root, "chart", "files", "secret"))
				testutil.Symlink(t, filepath.Join("..", "..", "outside", "secret.yaml"), filepath.Join(root, "kust", "linked.yaml"))
				// A symlink that stays inside the root is fine.
				testutil.Symlink(t, filepath.Join("..", "ok", "hpa.yaml"), filepath.Join(root, "inside", "hpa.yaml"))
			},
			findings: []wantFinding{
				{"symlink-escape", "leak.yaml", "outside the repository"},
				{"symlink-escape", "chart", "chart/files/secret"},
				{"partial-render", "kust", "outside the repository"},
			},
			failed: []string{"chart"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestHostileNoPanicOnGarbage feeds assorted broken inputs through every
// source type; Render must report, never panic or error.
func TestHostileNoPanicOnGarbage(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"bad/a.yaml":                               "apiVersion: v1\nkind: [unclosed\n",
		"bad/b.yaml":                               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n---\n- just\n- a list\n---\n\x00\x01\x02 apiVersion: x\nkind: y\n",
		"chart/Chart.yaml":                         "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/templates/x.yaml":                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.missing.deeper }}\n",
		"badchart/Chart.yaml":                      ":::\n",
		"badchart/templates/x.yaml":                "x",
		"kust/kustomization.yaml":                  "resources: {not: a list}\n",
		"kust2/kustomization.yaml":                 "resources:\n  - missing.yaml\n", // fails, as kustomize build fails
		"kust3/kustomization.yaml":                 "resources:\n  - ../kust3\n",
		"kust4/kustomization.yaml":                 "helmCharts:\n  - name: nginx\n    repo: https://charts.example.com\n    version: 1.0.0\n",
		"ok/cm.yaml":                               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
		"deep/deep.yaml":                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
		"lookup/Chart.yaml":                        "apiVersion: v2\nname: lookup\nversion: 0.1.0\n",
		"lookup/templates/cm.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lookup\ndata:\n  found: {{ len (lookup \"v1\" \"Secret\" \"kube-system\" \"\") | quote }}\n  dns: {{ getHostByName \"example.com\" | quote }}\n",
		"missingdep/Chart.yaml":                    "apiVersion: v2\nname: missingdep\nversion: 0.1.0\ndependencies:\n  - name: redis\n    version: 1.2.3\n    repository: https://charts.example.com\n    condition: redis.enabled\n",
		"missingdep/values.yaml":                   "redis:\n  enabled: true\n",
		"missingdep/templates/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: md\n",
		"lib/Chart.yaml":                           "apiVersion: v2\nname: lib\nversion: 0.1.0\ntype: library\n",
		"lib/templates/_h.tpl":                     "{{ define \"x\" }}{{ end }}",
		"hooks/Chart.yaml":                         "apiVersion: v2\nname: hooks\nversion: 0.1.0\n",
		"hooks/templates/test.yaml":                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n",
		"hooks/templates/job.yaml":                 "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install,post-upgrade\n",
		"hooks/templates/NOTES.txt":                "hello",
		"hooks/templates/list.yaml":                "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: l1}\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata: {name: l2}\n",
		"many/many.yaml":                           strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n", 30),
		"notk8s/values-prod.yaml":                  "replicaCount: 3\n",
		".hidden/cm.yaml":                          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hidden\n",
		"vendor/cm.yaml":                           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vendored\n",
		"kust5/kustomization.yaml":                 "resources:\n  - cm.yaml\ntransformers:\n  - labels.yaml\n",
		"kust5/cm.yaml":                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: k5\n",
		"kust5/labels.yaml":                        "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: l\nlabels:\n  team: a\nfieldSpecs:\n  - path: metadata/labels\n    create: true\n",
		"kust5/unreferenced-patch.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-plain\n",
		"component/kustomization.yaml":             "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n",
		"component/cm.yaml":                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: comp\n",
		"usescomp/kustomization.yaml":              "components:\n  - ../component\n",
		"kustfile/kustomization.yaml":              "resources:\n  - ../ok/cm.yaml\n",
		"kustinfl/kustomization.yaml":              "helmCharts:\n  - name: local\n    releaseName: inflated\n    valuesInline:\n      n: 3\n",
		"kustinfl/charts/local/Chart.yaml":         "apiVersion: v2\nname: local\nversion: 0.1.0\n",
		"kustinfl/charts/local/templates/hpa.yaml": "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  maxReplicas: {{ .Values.n }}\n",
	})
	opts := DefaultOptions()
	opts.MaxObjects = 20
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]SourceResult{}
	for _, s := range res.Sources {
		status[s.Path] = s
	}
	want := map[string]Status{
		"bad/a.yaml": StatusFailed, "bad/b.yaml": StatusRendered, "chart": StatusFailed, "badchart": StatusFailed,
		"kust": StatusFailed, "kust2": StatusFailed, "kust3": StatusFailed, "kust4": StatusRendered,
		"ok/cm.yaml": StatusRendered, "deep/deep.yaml": StatusFailed, "lookup": StatusRendered,
		"missingdep": StatusRendered, "lib": StatusSkipped, "hooks": StatusRendered, "many/many.yaml": StatusFailed,
		"kust5": StatusRendered, "usescomp": StatusRendered, "kustfile": StatusFailed, "kustinfl": StatusRendered,
	}
	for p, st := range want {
		if got := status[p]; got.Status != st {
			t.Errorf("%s: status %q (%s), want %q", p, got.Status, got.Reason, st)
		}
	}
	for _, p := range []string{"notk8s/values-prod.yaml", ".hidden/cm.yaml", "vendor/cm.yaml", "component", "kust5/unreferenced-patch.yaml", "kust5/cm.yaml"} {
		if _, ok := status[p]; ok {
			t.Errorf("%s was discovered as a source", p)
		}
	}
	if len(res.Sources) != len(want) {
		t.Errorf("%d sources, want %d: %+v", len(res.Sources), len(want), res.Sources)
	}
	checks := map[string]bool{}
	for _, f := range res.Findings {
		checks[f.Check+" "+f.Source] = true
	}
	for _, c := range []string{"render-failed kust2", "helm-chart-remote kust4", "helm-dependency-missing missingdep", "too-many-objects many/many.yaml"} {
		if !checks[c] {
			t.Errorf("missing finding %q in\n%s", c, dumpFindings(res.Findings))
		}
	}
	byName := map[string]Object{}
	for _, o := range res.Objects {
		byName[o.Kind+"/"+o.Name] = o
	}
	if o := byName["ConfigMap/lookup"]; o.Doc == nil || o.Doc["data"].(map[string]any)["found"] != "0" || o.Doc["data"].(map[string]any)["dns"] != "" {
		t.Errorf("lookup/getHostByName must return empty, got %v", o.Doc)
	}
	if _, ok := byName["Pod/t"]; ok {
		t.Errorf("test hook rendered")
	}
	if o, ok := byName["Job/j"]; !ok || o.Origin.File != "hooks/templates/job.yaml" || o.Origin.Line != 1 {
		t.Errorf("hook Job: %+v", o.Origin)
	}
	if o, ok := byName["ConfigMap/l2"]; !ok || o.Origin.Line != 7 {
		t.Errorf("List item l2: %+v", o.Origin)
	}
	if o, ok := byName["ConfigMap/k5"]; !ok || o.Doc["metadata"].(map[string]any)["labels"].(map[string]any)["team"] != "a" {
		t.Errorf("builtin transformer not applied: %v", o.Doc)
	} else if _, has := o.Doc["metadata"].(map[string]any)["annotations"]; has || o.Origin.File != "kust5/cm.yaml" || o.Origin.Line != 1 {
		t.Errorf("origin annotation not stripped or origin wrong: %v %+v", o.Doc, o.Origin)
	}
	if o, ok := byName["ConfigMap/comp"]; !ok || o.Origin.Source != "usescomp" || o.Origin.File != "component/cm.yaml" {
		t.Errorf("component object: %+v", o.Origin)
	}
	if o, ok := byName["HorizontalPodAutoscaler/inflated"]; !ok || o.Origin.File != "kustinfl/charts/local/templates/hpa.yaml" || o.Origin.Line != 1 ||
		o.Namespace != "default" || fmt.Sprint(o.Doc["spec"].(map[string]any)["maxReplicas"]) != "3" {
		t.Errorf("helmCharts inflation: %+v %v", o.Origin, o.Doc)
	} else if md := o.Doc["metadata"].(map[string]any); md["annotations"] != nil {
		t.Errorf("capreport origin annotation not stripped: %v", md)
	}
}

// TestRenderRootErrors: only an unusable root is an error.
func TestRenderRootErrors(t *testing.T) {
	if _, err := Render(context.Background(), filepath.Join(t.TempDir(), "nope"), DefaultOptions()); err == nil {
		t.Error("want an error for a missing root")
	}
	f := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(f, []byte("a: b"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Render(context.Background(), f, DefaultOptions()); err != nil || len(res.Objects) != 1 || res.Objects[0].Origin.File != "f.yaml" {
		t.Errorf("file root: %v %+v", err, res)
	}
	res, err := Render(context.Background(), t.TempDir(), DefaultOptions())
	if err != nil || len(res.Objects) != 0 || len(res.Sources) != 0 {
		t.Errorf("empty root: %v %+v", err, res)
	}
}
