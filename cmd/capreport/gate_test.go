package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
)

// NewlyFailing counts what fails in the head and did not in the base,
// finding by finding: a failure already there is not the change's, a
// second copy of it is, and a finding that stopped failing is not counted.
func TestNewlyFailing(t *testing.T) {
	f := func(id, sev string) check.Finding {
		return check.Finding{Check: id, Severity: sev, Message: "figures move: " + sev}
	}
	w := func(id string, fs ...check.Finding) contract.Workload { return contract.Workload{ID: id, Findings: fs} }
	base := &contract.Report{
		Workloads: []contract.Workload{w("shop/HorizontalPodAutoscaler/api", f("dead-band", "error"), f("no-target", "warning"))},
		Findings:  []check.Finding{{Check: "render-failed", Severity: "error", Location: check.At("charts/a", 0)}},
	}
	for _, tc := range []struct {
		name   string
		head   *contract.Report
		failOn string
		want   int
	}{
		{"unchanged", base, "error", 0},
		{"the old failure, reworded", &contract.Report{Workloads: []contract.Workload{w("shop/HorizontalPodAutoscaler/api", check.Finding{Check: "dead-band", Severity: "error", Message: "other figures"})},
			Findings: base.Findings}, "error", 0},
		{"another autoscaler fails", &contract.Report{Workloads: append([]contract.Workload{w("shop/HorizontalPodAutoscaler/web", f("dead-band", "error"))}, base.Workloads...),
			Findings: base.Findings}, "error", 1},
		{"a warning becomes new at warning, not at error", &contract.Report{Workloads: []contract.Workload{w("shop/HorizontalPodAutoscaler/api", f("dead-band", "error"), f("no-target", "warning"), f("hunts", "warning"))},
			Findings: base.Findings}, "warning", 1},
		{"fixed", &contract.Report{}, "error", 0},
		{"ignored", &contract.Report{Workloads: []contract.Workload{w("a", check.Finding{Check: "x", Severity: "error", Ignored: true})}}, "error", 0},
		{"a render failure elsewhere", &contract.Report{Workloads: base.Workloads,
			Findings: append([]check.Finding{{Check: "render-failed", Severity: "error", Location: check.At("charts/b", 0)}}, base.Findings...)}, "error", 1},
		{"never", &contract.Report{Workloads: []contract.Workload{w("b", f("dead-band", "error"))}}, "never", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cmdutil.NewlyFailing(base, tc.head, tc.failOn); got != tc.want {
				t.Errorf("newlyFailing = %d, want %d", got, tc.want)
			}
		})
	}
}

// The findings FailingKeys counts are the ones the summary counts: with no
// base, scope new is all.
func TestFailingKeysMatchSummary(t *testing.T) {
	for _, name := range []string{"base", "head"} {
		r, err := cmdutil.ReadReportLimited(reports(t)[name], cmdutil.DefaultMaxReportBytes, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, failOn := range []string{"error", "warning"} {
			if got, want := len(cmdutil.FailingKeys(r, failOn)), cmdutil.Failing(r, failOn); got != want {
				t.Errorf("%s at %s: %d keys, summary counts %d", name, failOn, got, want)
			}
		}
	}
}

// With --base, failed=N counts what the head makes worse (the default,
// --fail-on-scope new): a head compared with itself fails nothing, though
// it has failing checks; --fail-on-scope all counts them all.
func TestFailOnScope(t *testing.T) {
	rep := reports(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	env := map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"), "GITHUB_OUTPUT": out}
	for _, tc := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"--base", rep["head"]}, regexp.MustCompile(`(?m)^failed=0$`)},
		{[]string{"--base", rep["head"], "--fail-on-scope", "new"}, regexp.MustCompile(`(?m)^failed=0$`)},
		{[]string{"--base", rep["head"], "--fail-on-scope", "all"}, regexp.MustCompile(`(?m)^failed=[1-9]\d*$`)},
		{[]string{"--fail-on-scope", "new"}, regexp.MustCompile(`(?m)^failed=[1-9]\d*$`)}, // no base: all
	} {
		_ = os.Remove(out)
		args := append([]string{"summary", "--report", rep["head"], "--fail-on", "error", "--github-output", out}, tc.args...)
		if r := runGitHub(t, env, args...); r.code != cmdutil.ExitOK || !tc.want.MatchString(r.outs) {
			t.Errorf("%v: exit %d, outputs\n%s%s", tc.args, r.code, r.outs, r.errOut)
		}
	}
	if r := runGitHub(t, env, "summary", "--report", rep["head"], "--fail-on-scope", "some"); r.code != cmdutil.ExitError || !regexp.MustCompile(`--fail-on-scope: "some" is not one of new, all`).MatchString(r.errOut) {
		t.Errorf("bad --fail-on-scope: exit %d\n%s", r.code, r.errOut)
	}
}
