package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/render/internal/proc"
	"github.com/capreport/capreport/render/worker"
)

// isolated returns options that render in workers: this test binary.
func isolated(o Options) Options {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	o.Isolation = Isolation{Command: []string{exe}}
	return o
}

// goodHPA is the source beside each hostile one, which must still render.
const goodHPA = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 10
`

func chartFiles(name, values, template string) map[string]string {
	return map[string]string{
		name + "/Chart.yaml":       "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
		name + "/values.yaml":      values,
		name + "/templates/x.yaml": template,
	}
}

// TestIsolatedRunaways renders a source that would take the whole process
// down or never end, beside a good one: each runaway is stopped with a
// finding naming it, in bounded time and memory, and the good source is
// rendered. The budget is the issue's: under 60 s and 1 GiB of resident
// memory in any process (the workers are this process's children).
func TestIsolatedRunaways(t *testing.T) {
	testutil.SkipIfShort(t)
	cases := []struct {
		name, values, template string
		checks                 []string // any of these
		timeout                time.Duration
	}{
		{"tplself", "a: \"{{ tpl .Values.a . }}\"\n", "{{ tpl .Values.a . }}\n", []string{check.RenderMemory, check.RenderCrashed}, 0},
		{"doubling", "", "{{- $s := \"xxxxxxxxxxxxxxxx\" }}{{- range until 30 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}\n", []string{check.RenderMemory}, 0},
		{"spin", "", "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}{{ end }}\n", []string{check.RenderTimeout}, 3 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			files := chartFiles(c.name, c.values, c.template)
			files["good/hpa.yaml"] = goodHPA
			testutil.WriteTree(t, root, files)
			opts := isolated(DefaultOptions())
			opts.SourceTimeout = c.timeout
			start := time.Now()
			res, err := Render(context.Background(), root, opts)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 60*time.Second {
				t.Errorf("took %s, want under 60 s", took)
			}
			assertStopped(t, res, c.name, c.checks)
			if !hasObject(res, "HorizontalPodAutoscaler", "web", "web") {
				t.Errorf("the good source beside it was not rendered")
			}
			assertNoWorkersLeft(t)
		})
	}
	assertChildRSSUnder(t, 1<<30)
}

func assertStopped(t *testing.T, res *Result, source string, checks []string) {
	t.Helper()
	for _, f := range res.Findings {
		for _, c := range checks {
			if f.Check == c && f.Source == source && strings.Contains(f.Message, "stopped") {
				return
			}
		}
	}
	t.Errorf("no %v finding naming %s that says it was stopped; findings: %+v", checks, source, res.Findings)
}

// assertNoWorkersLeft checks that the stopped worker, and every idle one,
// is gone: the timeout stops the work rather than abandoning it.
func assertNoWorkersLeft(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	me := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) > 1 && fields[1] == me && fields[0] != "Z" {
			t.Errorf("a worker (%s) still runs after Render returned", s)
		}
	}
}

// assertChildRSSUnder checks the largest resident size any child reached.
func assertChildRSSUnder(t *testing.T, limit int64) {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	if rss := int64(ru.Maxrss) << 10; rss >= limit { // Linux reports KiB
		t.Errorf("a worker reached %d MiB resident, want under %d MiB", rss>>20, limit>>20)
	}
}

// TestIsolatedLogBecomesFindings checks that what kustomize prints while
// rendering one source is a warning on that source, not a stray line.
func TestIsolatedLogBecomesFindings(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"old/kustomization.yaml": "commonLabels:\n  app: web\nresources:\n- hpa.yaml\n",
		"old/hpa.yaml":           goodHPA,
		"new/kustomization.yaml": "labels:\n- pairs:\n    app: web\nresources:\n- hpa.yaml\n",
		"new/hpa.yaml":           strings.Replace(goodHPA, "name: web,", "name: api,", 1),
	})
	res, err := Render(context.Background(), root, isolated(DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	var logs []check.Finding
	for _, f := range res.Findings {
		if f.Check == check.RenderLog {
			logs = append(logs, f)
		}
	}
	if len(logs) != 1 || logs[0].Source != "old" || !strings.Contains(logs[0].Message, "'commonLabels' is deprecated") {
		t.Fatalf("render-log findings %+v, want one on old quoting the commonLabels deprecation", logs)
	}
}

// TestIsolatedMatchesInProcess renders the corpus both ways: a worker's
// result must be the in-process result, value for value (wiredoc keeps the
// ints, floats and nils of decoded YAML), bar the log it adds.
func TestIsolatedMatchesInProcess(t *testing.T) {
	testutil.SkipIfShort(t)
	corpus, ok := findCorpus()
	if !ok {
		t.Fatal("../shared/corpus not found beside the repository")
	}
	for _, dir := range []string{corpus, filepath.Join(filepath.Dir(corpus), "corpus-gitops")} {
		t.Run(filepath.Base(dir), func(t *testing.T) { compareIsolated(t, dir) })
	}
}

func compareIsolated(t *testing.T, dir string) {
	in, err := Render(context.Background(), dir, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(context.Background(), dir, isolated(DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Objects) == 0 || len(in.Objects) != len(out.Objects) {
		t.Fatalf("in-process %d objects, isolated %d", len(in.Objects), len(out.Objects))
	}
	for i := range in.Objects {
		if in.Objects[i].Kind == "Secret" { // charts generate fresh certificates on every render
			continue
		}
		if !reflect.DeepEqual(in.Objects[i], out.Objects[i]) {
			t.Errorf("%s %s differs: in-process %#v\nisolated %#v", in.Objects[i].Kind, in.Objects[i].Name, in.Objects[i], out.Objects[i])
		}
	}
	for i := range out.Sources {
		out.Sources[i].Findings = withoutLog(out.Sources[i].Findings)
	}
	if !reflect.DeepEqual(in.Sources, out.Sources) {
		t.Errorf("sources differ:\nin-process %+v\nisolated   %+v", in.Sources, out.Sources)
	}
}

func withoutLog(fs []check.Finding) []check.Finding {
	var out []check.Finding
	for _, f := range fs {
		if f.Check != check.RenderLog {
			out = append(out, f)
		}
	}
	return out
}

// TestIsolatedFallsBack renders in-process what a worker cannot take: a
// command that does not exist, or a spec holding a value gob cannot carry.
func TestIsolatedFallsBack(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{"good/hpa.yaml": goodHPA})
	opts := DefaultOptions()
	opts.Isolation = Isolation{Command: []string{filepath.Join(root, "no-such-worker")}}
	res, err := Render(context.Background(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !hasObject(res, "HorizontalPodAutoscaler", "web", "web") {
		t.Errorf("no in-process render when the worker cannot start: %+v", res.Sources)
	}
	spec := SourceSpec{Path: "good", Delivery: &deliverySpec{KustDoc: map[string]any{"x": make(chan int)}}}
	r, err := newRepo(DefaultOptions()).At(root)
	if err != nil {
		t.Fatal(err)
	}
	rd := &renderer{repo: r, opts: isolated(DefaultOptions()), fx: &fetchState{}}
	pool := newWorkerPool(rd)
	defer pool.Close()
	if _, ok := renderIsolated(context.Background(), pool, rd, spec); ok {
		t.Errorf("a spec gob cannot encode was sent to a worker")
	}
}

// TestWorkerFailureNamesTheCause classifies a dead worker's last words.
func TestWorkerFailureNamesTheCause(t *testing.T) {
	rd := &renderer{opts: DefaultOptions().withDefaults(), fx: &fetchState{}}
	spec := SourceSpec{Path: "chart", Type: SourceHelm}
	cases := []struct {
		tail  []string
		check string
		text  string
	}{
		{[]string{"runtime: goroutine stack exceeds 134217728-byte limit", "fatal error: stack overflow", "goroutine 1 [running]:"}, check.RenderCrashed, "stack limit"},
		{[]string{"fatal error: out of memory", "goroutine 9 [running]:"}, check.RenderMemory, "512 MiB"},
		{[]string{proc.MemoryMarker + ": 600 MiB held, budget 512 MiB"}, check.RenderMemory, "512 MiB"},
		{[]string{"goroutine 1 [running]:", "fatal error: concurrent map writes", "main.main()"}, check.RenderCrashed, "concurrent map writes"},
	}
	for _, c := range cases {
		out := rd.workerFailure(spec, worker.ErrDied, rd.opts.SourceTimeout, c.tail)
		f := out.Result.Findings[0]
		if f.Check != c.check || !strings.Contains(f.Message, c.text) || out.Result.Status != StatusFailed {
			t.Errorf("tail %q: %s %q, want %s mentioning %q", c.tail, f.Check, f.Message, c.check, c.text)
		}
	}
}

// TestLogFindingsBounded turns a worker's log into at most maxLogFindings
// distinct warnings; the lines past them, and those the tap dropped, are
// counted on the last one rather than becoming findings.
func TestLogFindingsBounded(t *testing.T) {
	rd := &renderer{opts: DefaultOptions().withDefaults(), fx: &fetchState{}}
	var lines []string
	for i := range 15 {
		lines = append(lines, fmt.Sprintf("# Warning: line %d", i), fmt.Sprintf("# Warning: line %d", i))
	}
	fs := rd.logFindings(SourceSpec{Path: "k", Type: SourceKustomize}, worker.Log{Lines: lines, Dropped: 7})
	if len(fs) != maxLogFindings {
		t.Fatalf("%d findings, want %d", len(fs), maxLogFindings)
	}
	if !strings.HasSuffix(fs[0].Message, "printed: Warning: line 0") || !strings.HasSuffix(fs[len(fs)-1].Message, "(and 12 more lines)") {
		t.Errorf("first %q, last %q; want the line without its '#', and 5 distinct + 7 dropped counted", fs[0].Message, fs[len(fs)-1].Message)
	}
}

// A delivered source's spec reaches the worker whole: an empty list in a
// HelmRelease's values overrides the chart's default there as in-process
// (gob alone would send it as nil, which Helm takes for "delete the key").
func TestIsolatedKeepsEmptyLists(t *testing.T) {
	root := t.TempDir()
	testutil.WriteTree(t, root, map[string]string{
		"apps/web.yaml":          fluxHR("web", "apps", gitChartSpec, "  values:\n    args: []\n"),
		"charts/web/Chart.yaml":  webChart,
		"charts/web/values.yaml": "args: [--default]\n",
		"charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n" +
			"  args: {{ toJson .Values.args | quote }}\n  kind: {{ kindOf .Values.args | quote }}\n",
	})
	args := func(opts Options) any {
		res := renderDir(t, root, opts)
		for _, o := range res.Objects {
			if o.Kind == "ConfigMap" && o.Namespace == "apps" {
				return o.Doc["data"]
			}
		}
		t.Fatalf("no delivered ConfigMap among %d objects: %+v", len(res.Objects), res.Sources)
		return nil
	}
	want := map[string]any{"args": "[]", "kind": "slice"}
	if got := args(DefaultOptions()); !reflect.DeepEqual(got, want) {
		t.Fatalf("in-process the delivered values give %v, want %v", got, want)
	}
	if got := args(isolated(DefaultOptions())); !reflect.DeepEqual(got, want) {
		t.Errorf("in a worker the delivered values give %v, want %v", got, want)
	}
}

// Krusty prints a kustomization's unused vars in map order; the finding
// that quotes the line names them in order, so the same repository gives
// the same report every run.
func TestLogFindingsSteady(t *testing.T) {
	root := t.TempDir()
	kust := "resources: [cm.yaml]\nvars:\n"
	for _, v := range []string{"echo", "alpha", "delta", "bravo", "charlie"} {
		kust += "  - name: " + v + "\n    objref: {kind: ConfigMap, name: cfg, apiVersion: v1}\n    fieldref: {fieldpath: data." + v + "}\n"
	}
	testutil.WriteTree(t, root, map[string]string{
		"k/kustomization.yaml": kust,
		"k/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata: {alpha: a, bravo: b, charlie: c, delta: d, echo: e}\n",
	})
	const want = "well-defined vars that were never replaced: alpha,bravo,charlie,delta,echo"
	for range 4 {
		res := renderDir(t, root, isolated(DefaultOptions()))
		var printed []string
		for _, f := range res.Findings {
			if f.Check == check.RenderLog && strings.Contains(f.Message, "never replaced") {
				printed = append(printed, f.Message)
			}
		}
		if len(printed) != 1 || !strings.HasSuffix(printed[0], want) {
			t.Fatalf("the unused vars are reported as %q, want one finding ending %q", printed, want)
		}
	}
}
