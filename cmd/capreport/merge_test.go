package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/report/merge"
)

// jobReport is one matrix job's report, as JSON that matches the schema
// (merge holds every input to it).
func jobReport(t *testing.T, root string, ws []contract.Workload, srcs []contract.Source, fs []contract.Finding) string {
	t.Helper()
	if srcs == nil {
		srcs = []contract.Source{}
	}
	if fs == nil {
		fs = []contract.Finding{}
	}
	r := contract.Report{SchemaVersion: contract.SchemaVersion, Tool: contract.Tool{Name: "capreport", Version: "t"},
		Root: root, GeneratedAt: "2026-11-30T12:00:00Z", Workloads: ws, Sources: srcs, Findings: fs,
		// A stale summary: merge must recompute it, not add these up.
		Summary: contract.Summary{Autoscalers: 99, Fail: 99}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wl(id, verdict string, fs ...contract.Finding) contract.Workload {
	if fs == nil {
		fs = []contract.Finding{}
	}
	ns, kindName, _ := strings.Cut(id, "/")
	kind, name, _ := strings.Cut(kindName, "/")
	return contract.Workload{ID: id, Autoscaler: contract.Ref{Kind: kind, Name: name, Namespace: ns},
		Target: contract.Ref{Kind: "Deployment", Name: name, Namespace: ns}, Source: contract.Location{},
		Signal: "saturating", Metrics: []contract.Metric{}, Assumptions: map[string]contract.Assumption{},
		Verdict: verdict, MinReplicas: 1, MaxReplicas: 10, Findings: fs}
}

func TestMerge(t *testing.T) {
	errF := contract.Finding{Check: "size-latency-target", Severity: check.SeverityError, Message: "too slow"}
	warnF := contract.Finding{Check: "assumption-default", Severity: check.SeverityWarning, Message: "default"}
	ignoredF := contract.Finding{Check: "time-hunts", Severity: check.SeverityError, Message: "hunts", Ignored: true, IgnoreReason: "known"}
	renderF := contract.Finding{Check: "render-failed", Severity: check.SeverityError, Message: "chart x failed"}

	shared := wl("shop/HorizontalPodAutoscaler/shared", contract.VerdictPass)
	a := writeTemp(t, "a.json", jobReport(t, "charts",
		[]contract.Workload{wl("shop/HorizontalPodAutoscaler/web", contract.VerdictFail, errF), shared,
			wl("shop/ScaledObject/orders", contract.VerdictWarn, warnF)},
		[]contract.Source{{Path: "web", Type: "helm", Status: "rendered", Objects: 3}}, nil))
	conflicting := wl("shop/ScaledObject/orders", contract.VerdictPass) // another job priced it otherwise
	b := writeTemp(t, "b.json", jobReport(t, "overlays",
		[]contract.Workload{shared, conflicting, wl("pay/ScaledObject/ledger", contract.VerdictPass, ignoredF),
			wl("pay/HorizontalPodAutoscaler/api", contract.VerdictUnpriced)},
		[]contract.Source{{Path: "prod", Type: "kustomize", Status: "failed", Reason: "boom"}}, []contract.Finding{renderF}))

	// web fails, so the merge exits 1, as one run over both would.
	code, out, errOut := runArgs(t, "merge", a, b)
	if code != cmdutil.ExitFail || errOut != "" {
		t.Fatalf("exit %d, stderr %q; want exit 1 and nothing on stderr", code, errOut)
	}
	var m contract.Report
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var ids []string
	for _, w := range m.Workloads {
		ids = append(ids, w.ID+" "+w.Verdict+" "+w.Root)
	}
	// shared is the same in both roots (byte-for-byte: kept once, under the
	// first root); orders differs between the roots: both kept, each id
	// qualified by its root; in the contract's order (by id).
	want := []string{
		"charts:shop/ScaledObject/orders warn charts",
		"overlays:shop/ScaledObject/orders pass overlays",
		"pay/HorizontalPodAutoscaler/api unpriced overlays",
		"pay/ScaledObject/ledger pass overlays",
		"shop/HorizontalPodAutoscaler/shared pass charts",
		"shop/HorizontalPodAutoscaler/web fail charts",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("workloads\n got %q\nwant %q", ids, want)
	}
	// Errors: web's and the render failure; the ignored one does not count.
	wantSum := contract.Summary{Autoscalers: 6, Pass: 3, Warn: 1, Fail: 1, Unpriced: 1, Errors: 2, Warnings: 1}
	if m.Summary != wantSum {
		t.Errorf("summary %+v, want %+v", m.Summary, wantSum)
	}
	// Each report's paths were relative to its root: they keep it.
	if len(m.Sources) != 2 || m.Sources[0].Path != "charts/web" || m.Sources[1].Path != "overlays/prod" {
		t.Errorf("sources not concatenated in order with their roots: %+v", m.Sources)
	}
	if len(m.Findings) != 1 || m.Findings[0].Check != "render-failed" {
		t.Errorf("findings %+v", m.Findings)
	}
	if m.SchemaVersion != contract.SchemaVersion || m.Root != "charts, overlays" || m.RepoRoot != "" || m.Tool.Name != "capreport" {
		t.Errorf("header: %q %q %q %+v", m.SchemaVersion, m.Root, m.RepoRoot, m.Tool)
	}
	if strings.Count(out, "\n") != 1 {
		t.Error("merged JSON is not compact by default")
	}

	// The merged report renders in the other formats from the same data.
	code, md, _ := runArgs(t, "merge", a, b, "--format", "markdown")
	if code != cmdutil.ExitFail || !strings.HasPrefix(md, "<!-- capreport -->") || !strings.Contains(md, "shop/HorizontalPodAutoscaler/web") {
		t.Errorf("markdown: exit %d\n%s", code, md)
	}
	code, txt, _ := runArgs(t, "merge", a, b, "--format", "text", "--fail-on", "never")
	if code != cmdutil.ExitOK || !strings.Contains(txt, "pay/ScaledObject/ledger") {
		t.Errorf("text: exit %d\n%s", code, txt)
	}

	// A file merged with itself is all identical duplicates: no warning.
	code, self, errOut := runArgs(t, "merge", a, a, "--pretty")
	if code != cmdutil.ExitFail || errOut != "" || strings.Count(self, `"id": `) != 3 {
		t.Errorf("self-merge: exit %d, stderr %q, %d workloads", code, errOut, strings.Count(self, `"id": `))
	}
}

func TestMergeErrors(t *testing.T) {
	ok := writeTemp(t, "ok.json", jobReport(t, "r", []contract.Workload{wl("a/HorizontalPodAutoscaler/x", contract.VerdictPass)}, nil, nil))
	old := writeTemp(t, "old.json", miniReport("capreport.io/report/v0", "pass"))
	noVersion := writeTemp(t, "nover.json", `{"workloads": []}`)
	for _, c := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"other schema version names the file", []string{ok, old}, old + `: schemaVersion "capreport.io/report/v0", this capreport reads "capreport.io/report/v1"`},
		{"no schema version", []string{noVersion}, noVersion + ": not a capreport JSON report: no schemaVersion"},
		{"missing file", []string{ok, "/nonexistent/x.json"}, "/nonexistent/x.json: no such file or directory"},
		{"no files", nil, "requires at least 1 arg"},
		{"bad format", []string{ok, "--format", "sarif"}, `--format: "sarif" is not one of json, text, markdown`},
		{"bad prefer", []string{ok, "--prefer", "newest"}, `--prefer: "newest" is not one of first, last`},
		{"bad fail-on", []string{ok, "--fail-on", "info"}, `--fail-on: "info" is not one of error, warning, never`},
	} {
		code, out, errOut := runArgs(t, append([]string{"merge"}, c.args...)...)
		if code != cmdutil.ExitError || !strings.Contains(errOut, c.stderr) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.name, code, errOut, out, c.stderr)
		}
	}
}

// TestMergeTwoRootsOneID is the monorepo case: two services that both hold
// charts/web, priced from their own roots (paths relative to each), one
// passing and one failing with the same id. Both rows stay, each id
// qualified by its root, every path keeps its root, the headline counts the
// failure and the merge exits 1 for it.
func TestMergeTwoRootsOneID(t *testing.T) {
	const p, s = "testdata/merge/payments.json", "testdata/merge/search.json"
	for _, c := range []struct {
		name, golden string
		args         []string
	}{
		{"text", "two-roots.golden.txt", []string{"merge", p, s, "--format", "text"}},
		{"json", "two-roots.golden.json", []string{"merge", p, s, "--pretty"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runArgs(t, c.args...)
			if code != cmdutil.ExitFail || errOut != "" {
				t.Errorf("exit %d, stderr %q; want 1 (search's web fails) and no warning", code, errOut)
			}
			testutil.Golden(t, filepath.Join("testdata", "merge", c.golden), []byte(out), *update)
		})
	}
	code, out, _ := runArgs(t, "merge", p, s)
	var m contract.Report
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, w := range m.Workloads {
		rows = append(rows, w.ID+" "+w.Verdict+" "+w.Source.File)
	}
	want := []string{
		"services/payments/deploy:default/HorizontalPodAutoscaler/capreport-web pass services/payments/deploy/charts/web/templates/hpa.yaml",
		"services/search/deploy:default/HorizontalPodAutoscaler/capreport-web fail services/search/deploy/charts/web/templates/hpa.yaml",
	}
	if code != cmdutil.ExitFail || !slices.Equal(rows, want) || m.Summary.Fail != 1 || m.Summary.Pass != 1 {
		t.Errorf("exit %d, rows\n got %q\nwant %q\nsummary %+v", code, rows, want, m.Summary)
	}
	if err := inert.NewValidator(t).Validate([]byte(out)); err != nil {
		t.Errorf("merged report does not match the schema: %v", err)
	}
	// The worse verdict decides even when the failing report comes first.
	if code, _, _ := runArgs(t, "merge", s, p); code != cmdutil.ExitFail {
		t.Errorf("merge search payments: exit %d, want 1", code)
	}
	if code, _, _ := runArgs(t, "merge", p, s, "--fail-on", "never"); code != cmdutil.ExitOK {
		t.Errorf("--fail-on never: exit %d, want 0", code)
	}
}

// TestMergeConflict: one root priced twice, differently (a re-run job
// whose chart changed in between), is an error unless --prefer says which
// report wins; the same report twice is no conflict.
func TestMergeConflict(t *testing.T) {
	const s = "testdata/merge/search.json"
	raw, err := os.ReadFile(s)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(raw), `"maxReplicas": 12`, `"maxReplicas": 13`, 1)
	if changed == string(raw) {
		t.Fatal("testdata/merge/search.json no longer has maxReplicas 12")
	}
	rerun := writeTemp(t, "rerun.json", changed)
	const id = "default/HorizontalPodAutoscaler/capreport-web"

	code, out, errOut := runArgs(t, "merge", s, rerun)
	want := "capreport: workload " + id + " of root services/search/deploy is in " + s + " and, different, in " + rerun +
		": the same root priced twice; merge one of them, or keep one with --prefer first or --prefer last\n"
	if code != cmdutil.ExitError || out != "" || errOut != want {
		t.Errorf("conflict: exit %d, stdout %q\nstderr %q\nwant   %q", code, out, errOut, want)
	}
	for _, c := range []struct {
		prefer, kept string
		max          int32
	}{{"first", s, 12}, {"last", rerun, 13}} {
		code, out, errOut := runArgs(t, "merge", s, rerun, "--prefer", c.prefer)
		warn := "capreport: warning: workload " + id + " is in " + s + " and, different, in " + rerun + "; keeping " + c.kept + " (--prefer " + c.prefer + ")\n"
		var m contract.Report
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("--prefer %s: %v", c.prefer, err)
		}
		if code != cmdutil.ExitFail || errOut != warn || len(m.Workloads) != 1 || m.Workloads[0].ID != id || m.Workloads[0].MaxReplicas != c.max {
			t.Errorf("--prefer %s: exit %d, stderr %q, workloads %d (max %v); want 1, %q, the one with max %d",
				c.prefer, code, errOut, len(m.Workloads), m.Workloads, warn, c.max)
		}
	}
	if code, _, errOut := runArgs(t, "merge", s, s); code != cmdutil.ExitFail || errOut != "" {
		t.Errorf("same report twice: exit %d, stderr %q; want 1 and no warning", code, errOut)
	}
}

// In a matrix on one checkout every report's paths are relative to the
// same repository root (the workspace): paths stay as they are, the root
// is kept, and one id in two roots still makes two rows.
func TestMergeSharedRepoRoot(t *testing.T) {
	job := func(root, verdict string) contract.Report {
		w := wl("default/HorizontalPodAutoscaler/web", verdict)
		w.Source = contract.Location{File: root + "/charts/web/templates/hpa.yaml", Line: 2, Source: root + "/charts/web"}
		return contract.Report{SchemaVersion: contract.SchemaVersion, Root: root, RepoRoot: "/work/repo", Workloads: []contract.Workload{w},
			Sources: []contract.Source{{Path: root + "/charts/web", Type: "helm", Status: "rendered"}}}
	}
	m, warnings, err := merge.Reports([]contract.Report{job("services/a", contract.VerdictPass), job("services/b", contract.VerdictFail)},
		[]string{"a.json", "b.json"}, merge.PreferNone)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("err %v, warnings %q", err, warnings)
	}
	var rows []string
	for _, w := range m.Workloads {
		rows = append(rows, w.ID+" "+w.Source.File)
	}
	want := []string{
		"services/a:default/HorizontalPodAutoscaler/web services/a/charts/web/templates/hpa.yaml",
		"services/b:default/HorizontalPodAutoscaler/web services/b/charts/web/templates/hpa.yaml",
	}
	if !slices.Equal(rows, want) || m.RepoRoot != "/work/repo" || m.Sources[1].Path != "services/b/charts/web" || m.Summary.Fail != 1 {
		t.Errorf("rows %q (want %q), repoRoot %q, sources %+v, summary %+v", rows, want, m.RepoRoot, m.Sources, m.Summary)
	}
}
