package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
)

// runAsCapreport makes this test binary run capreport's main when set, so
// a test can start capreport as a process of its own (its peak memory is
// then measured alone, workers included) without building it.
const runAsCapreport = "CAPREPORT_TEST_RUN_MAIN"

// hostileCase is a repository with one hostile source beside a good chart.
type hostileCase struct {
	name  string
	files map[string]string
	links map[string]string // link → target, relative to the repository
	args  []string
	want  []string // "check[|check] source": a finding whose message names the source
	// maxTime, when set, is the case's own bound, below the 60 s of all.
	maxTime time.Duration
}

func hostileCases(schemaURL string) []hostileCase {
	chart := func(dir, values, tmpl string) map[string]string {
		return map[string]string{dir + "/Chart.yaml": "apiVersion: v2\nname: " + filepath.Base(dir) + "\nversion: 0.1.0\n",
			dir + "/values.yaml": values, dir + "/templates/x.yaml": tmpl}
	}
	spinning := func(n int) map[string]string {
		files := map[string]string{}
		for i := range n {
			maps.Copy(files, chart(fmt.Sprintf("spin/c%d", i), "", "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}\n"))
		}
		return files
	}
	schema := func(ref string) map[string]string {
		f := chart("schema", "a: 1\n", "kind: ConfigMap\napiVersion: v1\nmetadata: {name: s}\n")
		f["schema/values.schema.json"] = `{"$ref": "` + ref + `"}`
		return f
	}
	return []hostileCase{
		{name: "tpl-calls-itself", files: chart("tplself", "a: \"{{ tpl .Values.a . }}\"\n", "{{ tpl .Values.a . }}\n"),
			want: []string{"render-memory|render-crashed tplself"}},
		{name: "string-doubled-30-times", files: chart("doubling", "", "{{- $s := \"xxxxxxxxxxxxxxxx\" }}{{- range until 30 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}\n"),
			want: []string{"render-memory doubling"}},
		{name: "endless-loop", files: chart("spin", "", "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}\n"),
			args: []string{"--render-timeout", "5s"}, want: []string{"render-timeout spin"}},
		// Each stopped at the 1 s free time: 83 s on two workers. Past ten
		// that used all of it, the free time halves down to 0.25 s.
		{name: "160-charts-that-spin", files: spinning(160), args: []string{"--render-timeout", "5s"},
			want: []string{"render-timeout spin/c159"}, maxTime: 45 * time.Second},
		{name: "symlink-cycle-beside-a-chart", files: chart("cyc", "", "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\n"),
			links: map[string]string{"cyc/x": "../a", "a/l": "../b", "b/l": "../a"}, want: []string{"symlink-escape|render-failed|path-escape cyc"}},
		{name: "annotations-past-their-range", files: map[string]string{"absurd.yaml": absurdAnnotations},
			want: []string{"invalid-annotation absurd.yaml"}},
		{name: "schema-ref-over-http", files: schema(schemaURL), want: []string{"schema-ref-outside schema"}},
		{name: "schema-ref-to-etc-passwd", files: schema("file:///etc/passwd"), want: []string{"schema-ref-outside schema"}},
	}
}

// gitopsHostileCases make the parent's GitOps work large (issue 31): the
// Flux generator, valuesFrom, and fan-out through Flux and Argo CD.
func gitopsHostileCases() []hostileCase {
	repo := []string{"--repo-url", "ssh://git@github.com/example/hostile"}
	flux := func(files map[string]string) map[string]string {
		files["flux/sync.yaml"] = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\n" +
			"spec: {url: ssh://git@github.com/example/hostile, ref: {branch: main}}\n"
		return files
	}
	many := func(n int, doc func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("---\n" + doc(i))
		}
		return b.String()
	}
	var bigConfigMap strings.Builder // 9.6 MB of 750,000 keys: within --max-file-bytes
	bigConfigMap.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n")
	for i := range 750000 {
		fmt.Fprintf(&bigConfigMap, "  k%d: v\n", i)
	}
	var values strings.Builder // a 4 MiB values document, in a ConfigMap the API server would refuse
	values.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vals, namespace: flux-system}\ndata:\n  values.yaml: |\n    big:\n")
	for i := 0; values.Len() < 4<<20; i++ {
		fmt.Fprintf(&values, "      x%s%d: 1\n", strings.Repeat("y", 60), i)
	}
	release := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: web, namespace: flux-system}\n" +
		"spec:\n  chart:\n    spec: {chart: ./good, sourceRef: {kind: GitRepository, name: flux-system}}\n  valuesFrom:\n" +
		strings.Repeat("  - {kind: ConfigMap, name: vals}\n", 250)
	apps := map[string]string{}
	for f := range 10 {
		apps[fmt.Sprintf("argo/apps%d.yaml", f)] = many(10000, func(i int) string {
			return fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: app-%d, namespace: argocd}\n"+
				"spec:\n  project: default\n  source: {repoURL: https://github.com/example/hostile.git, path: apps, targetRevision: HEAD}\n"+
				"  destination: {server: https://kubernetes.default.svc, namespace: ns-%d}\n", f*10000+i, i%7)
		})
	}
	apps["apps/app.yaml"] = absurdAnnotations
	return []hostileCase{
		{name: "flux-generator-over-a-9-MB-configmap", args: repo, files: flux(map[string]string{
			"apps/big.yaml": bigConfigMap.String(), "apps/app.yaml": absurdAnnotations,
			"flux/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n" +
				"spec: {path: ./apps, sourceRef: {kind: GitRepository, name: flux-system}}\n"}),
			want: []string{"render-memory|render-timeout apps@Kustomization/flux-system/apps"}},
		{name: "10,000-flux-kustomizations-on-one-path", args: repo, files: flux(map[string]string{
			"apps/app.yaml": absurdAnnotations,
			"flux/apps.yaml": many(10000, func(i int) string {
				return fmt.Sprintf("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app-%d, namespace: flux-system}\n"+
					"spec: {path: ./apps, targetNamespace: apps, sourceRef: {kind: GitRepository, name: flux-system}}\n", i)
			})}),
			// Each Kustomization's build was made anew: 2,000 builds, 40 s.
			want: []string{"gitops-limit flux/apps.yaml"}, maxTime: 20 * time.Second},
		{name: "250-valuesfrom-of-a-4-MiB-configmap", args: repo, files: flux(map[string]string{"flux/vals.yaml": values.String(), "flux/release.yaml": release}),
			want: []string{"gitops-reference-missing flux/release.yaml"}},
		{name: "100,000-argo-applications", args: repo, files: apps, want: []string{"gitops-limit argo/apps0.yaml"}},
	}
}

// absurdAnnotations once made the simulation allocate a sample per second
// of a million hours, and the overload overflow int32 and JSON.
const absurdAnnotations = `apiVersion: apps/v1
kind: Deployment
metadata: {name: absurd}
spec:
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: 100m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: absurd
  annotations:
    capreport.io/metric-window: "1000000h"
    capreport.io/demand: "1e308"
    capreport.io/overload: "1e9x"
    capreport.io/dead-time: "1000000h"
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: absurd}
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
`

// TestHostileRepositories runs capreport as its own process on each
// hostile repository: the run ends within 60 s, no process of it passes
// 1 GiB resident, the hostile source gets a finding that names it, and
// the good chart beside it is still priced.
func TestHostileRepositories(t *testing.T) {
	testutil.SkipIfShort(t)
	var fetched atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		_, _ = w.Write([]byte(`{"type": "object"}`))
	}))
	defer srv.Close()
	good := filepath.Join(testutil.RepoRoot(t), "examples", "shop", "charts", "web")
	for _, c := range append(hostileCases(srv.URL+"/schema.json"), gitopsHostileCases()...) {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(filepath.Join(root, "good"), os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			writeHostile(t, root, c)
			report, took, rss := runCapreportProcess(t, root, append([]string{"--root", root, "--format", "json", root}, c.args...))
			t.Logf("%s, peak %d MiB resident", took.Round(time.Millisecond), rss>>20)
			budget := cmp.Or(c.maxTime, 60*time.Second)
			if took > budget || rss >= 1<<30 {
				t.Errorf("took %s and peaked at %d MiB resident; the budget is %s and 1 GiB", took, rss>>20, budget)
			}
			checkHostileReport(t, report, c.want)
		})
	}
	if n := fetched.Load(); n != 0 {
		t.Errorf("capreport made %d HTTP requests while rendering", n)
	}
}

func writeHostile(t *testing.T, root string, c hostileCase) {
	t.Helper()
	for name, body := range c.files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range c.links {
		p := filepath.Join(root, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			t.Fatal(err)
		}
	}
}

// runCapreportProcess runs capreport (this binary, see runAsCapreport) and
// returns its JSON report, wall time and the peak resident size of the
// process and its workers (wait4 reports the largest of them).
func runCapreportProcess(t *testing.T, dir string, args []string) (map[string]any, time.Duration, int64) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsCapreport+"=1")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	took := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("capreport %v: %v\n%s", args, err, stderr.String())
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss) << 10 // KiB on Linux
	}
	var report map[string]any
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the report is not JSON: %v\n%s", err, out)
	}
	return report, took, rss
}

func checkHostileReport(t *testing.T, report map[string]any, want []string) {
	t.Helper()
	all := asList(report["findings"])
	for _, w := range asList(report["workloads"]) {
		m, _ := w.(map[string]any)
		all = append(all, asList(m["findings"])...)
	}
	for _, w := range want {
		checks, source, _ := strings.Cut(w, " ")
		if !namesSource(all, strings.Split(checks, "|"), source) {
			t.Errorf("no %s finding on source %s; findings: %v", checks, source, all)
		}
	}
	priced := false
	for _, w := range asList(report["workloads"]) {
		m, _ := w.(map[string]any)
		src, _ := m["source"].(map[string]any)
		priced = priced || (strings.HasPrefix(str(src["source"]), "good") && str(m["verdict"]) != "unpriced" && m["size"] != nil)
	}
	if !priced {
		t.Errorf("the good chart beside the hostile source was not priced: %v", report["workloads"])
	}
}

// namesSource reports whether a finding of one of checks names source in
// its message ("helm chart: ...", "helm chart failed ...") or its location.
func namesSource(findings []any, checks []string, source string) bool {
	for _, f := range findings {
		m, _ := f.(map[string]any)
		loc, _ := m["location"].(map[string]any)
		msg := str(m["message"])
		file := str(loc["file"])
		named := strings.HasPrefix(msg, source+":") || strings.Contains(msg, " "+source+":") || strings.Contains(msg, " "+source+" ") ||
			file == source || strings.HasPrefix(file, source+"/")
		for _, c := range checks {
			if named && str(m["check"]) == c {
				return true
			}
		}
	}
	return false
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
