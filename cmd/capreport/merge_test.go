package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/rules"
)

// jobReport is one matrix job's report, as JSON.
func jobReport(t *testing.T, root string, ws []rules.Workload, srcs []rules.Source, fs []rules.Finding) string {
	t.Helper()
	r := rules.Report{SchemaVersion: rules.SchemaVersion, Tool: rules.Tool{Name: "capreport", Version: "t"},
		Root: root, GeneratedAt: "2026-11-30T12:00:00Z", Workloads: ws, Sources: srcs, Findings: fs,
		// A stale summary: merge must recompute it, not add these up.
		Summary: rules.Summary{Autoscalers: 99, Fail: 99}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wl(id, verdict string, fs ...rules.Finding) rules.Workload {
	return rules.Workload{ID: id, Verdict: verdict, MinReplicas: 1, MaxReplicas: 10, Findings: fs}
}

func TestMerge(t *testing.T) {
	errF := rules.Finding{Check: "size-latency-target", Severity: rules.SeverityError, Message: "too slow"}
	warnF := rules.Finding{Check: "assumption-default", Severity: rules.SeverityWarning, Message: "default"}
	ignoredF := rules.Finding{Check: "time-hunts", Severity: rules.SeverityError, Message: "hunts", Ignored: true, IgnoreReason: "known"}
	renderF := rules.Finding{Check: "render-failed", Severity: rules.SeverityError, Message: "chart x failed"}

	shared := wl("shop/HorizontalPodAutoscaler/shared", rules.VerdictPass)
	a := writeTemp(t, "a.json", jobReport(t, "charts",
		[]rules.Workload{wl("shop/HorizontalPodAutoscaler/web", rules.VerdictFail, errF), shared,
			wl("shop/ScaledObject/orders", rules.VerdictWarn, warnF)},
		[]rules.Source{{Path: "charts/web", Type: "helm", Status: "rendered", Objects: 3}}, nil))
	conflicting := wl("shop/ScaledObject/orders", rules.VerdictPass) // another job priced it otherwise
	b := writeTemp(t, "b.json", jobReport(t, "overlays",
		[]rules.Workload{shared, conflicting, wl("pay/ScaledObject/ledger", rules.VerdictPass, ignoredF),
			wl("pay/HorizontalPodAutoscaler/api", rules.VerdictUnpriced)},
		[]rules.Source{{Path: "overlays/prod", Type: "kustomize", Status: "failed", Reason: "boom"}}, []rules.Finding{renderF}))

	code, out, errOut := runArgs(t, "merge", a, b)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Only the differing duplicate warns, naming both files and the winner.
	if want := "capreport: warning: workload shop/ScaledObject/orders is in " + a + " and, different, in " + b + "; keeping " + a + "\n"; errOut != want {
		t.Errorf("stderr\n got %q\nwant %q", errOut, want)
	}
	var m rules.Report
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var ids []string
	for _, w := range m.Workloads {
		ids = append(ids, w.ID+" "+w.Verdict)
	}
	// Deduplicated, first kept, in the contract's order (by id).
	want := []string{
		"pay/HorizontalPodAutoscaler/api unpriced",
		"pay/ScaledObject/ledger pass",
		"shop/HorizontalPodAutoscaler/shared pass",
		"shop/HorizontalPodAutoscaler/web fail",
		"shop/ScaledObject/orders warn",
	}
	if !slices.Equal(ids, want) {
		t.Errorf("workloads\n got %q\nwant %q", ids, want)
	}
	// Errors: web's and the render failure; the ignored one does not count.
	wantSum := rules.Summary{Autoscalers: 5, Pass: 2, Warn: 1, Fail: 1, Unpriced: 1, Errors: 2, Warnings: 1}
	if m.Summary != wantSum {
		t.Errorf("summary %+v, want %+v", m.Summary, wantSum)
	}
	if len(m.Sources) != 2 || m.Sources[0].Path != "charts/web" || m.Sources[1].Path != "overlays/prod" {
		t.Errorf("sources not concatenated in order: %+v", m.Sources)
	}
	if len(m.Findings) != 1 || m.Findings[0].Check != "render-failed" {
		t.Errorf("findings %+v", m.Findings)
	}
	if m.SchemaVersion != rules.SchemaVersion || m.Root != "charts, overlays" || m.Tool.Name != "capreport" {
		t.Errorf("header: %q %q %+v", m.SchemaVersion, m.Root, m.Tool)
	}

	// The merged report renders in the other formats from the same data.
	code, md, _ := runArgs(t, "merge", a, b, "--format", "markdown")
	if code != exitOK || !strings.HasPrefix(md, "<!-- capreport -->") || !strings.Contains(md, "shop/HorizontalPodAutoscaler/web") {
		t.Errorf("markdown: exit %d\n%s", code, md)
	}
	code, txt, _ := runArgs(t, "merge", a, b, "--format", "text")
	if code != exitOK || !strings.Contains(txt, "pay/ScaledObject/ledger") {
		t.Errorf("text: exit %d\n%s", code, txt)
	}

	// A file merged with itself is all identical duplicates: no warning.
	code, _, errOut = runArgs(t, "merge", a, a)
	if code != exitOK || errOut != "" {
		t.Errorf("self-merge: exit %d, stderr %q", code, errOut)
	}
}

func TestMergeErrors(t *testing.T) {
	ok := writeTemp(t, "ok.json", miniReport(rules.SchemaVersion, "pass"))
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
	} {
		code, out, errOut := runArgs(t, append([]string{"merge"}, c.args...)...)
		if code != exitError || !strings.Contains(errOut, c.stderr) || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.name, code, errOut, out, c.stderr)
		}
	}
}

// TestMergeFlags checks parsing alone, through runF.
func TestMergeFlags(t *testing.T) {
	var got *mergeOptions
	cmd := newMergeCmdF(&streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, func(o *mergeOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"a.json", "b.json", "c.json", "-o", "markdown"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil || !slices.Equal(got.files, []string{"a.json", "b.json", "c.json"}) || got.format != "markdown" {
		t.Errorf("options %+v", got)
	}
}
