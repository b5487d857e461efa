package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/inert"
	"github.com/capreport/capreport/internal/testutil"
)

// capture runs the CLI with buffers for streams.
func capture(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(args, &cmdutil.IOStreams{Out: &out, ErrOut: &errOut})
	return out.String(), errOut.String(), code
}

func TestRunExampleFailsByDesign(t *testing.T) {
	example := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	out, stderr, code := capture(example)
	if code != cmdutil.ExitFail {
		t.Fatalf("exit %d, want 1 (the example fails by design); stderr %s", code, stderr)
	}
	for _, want := range []string{"pass", "fail", "hunting", "recovery-too-slow", "shop/ScaledObject/orders-consumer"} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour escapes written to a non-terminal")
	}
	// --fail-on never turns the same run green.
	if _, _, code := capture(example, "--fail-on", "never"); code != cmdutil.ExitOK {
		t.Errorf("--fail-on never: exit %d", code)
	}
}

func TestRunJSONValidatesAgainstSchema(t *testing.T) {
	out, stderr, code := capture(filepath.Join(testutil.RepoRoot(t), "examples", "shop"), "--format", "json")
	if code != cmdutil.ExitFail {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if err := inert.NewValidator(t).Validate([]byte(out)); err != nil {
		t.Fatalf("--format json does not validate against report.v1.json: %v", err)
	}
	var r contract.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, w := range r.Workloads {
		verdicts[w.ID] = w.Verdict
	}
	want := map[string]string{
		"default/HorizontalPodAutoscaler/capreport-web": contract.VerdictPass,
		"shop/HorizontalPodAutoscaler/api":              contract.VerdictFail,
		"shop/ScaledObject/orders-consumer":             contract.VerdictFail,
	}
	for id, v := range want {
		if verdicts[id] != v {
			t.Errorf("%s: verdict %q, want %q (all: %v)", id, verdicts[id], v, verdicts)
		}
	}
}

func TestRunFormatsAndOutDir(t *testing.T) {
	testutil.SkipIfShort(t)
	example := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	for _, format := range []string{"markdown", "html", "sarif"} {
		out, stderr, code := capture(example, "--format", format)
		if code != cmdutil.ExitFail || len(out) == 0 {
			t.Errorf("--format %s: exit %d, %d bytes; stderr %s", format, code, len(out), stderr)
		}
	}
	dir := t.TempDir()
	if _, stderr, code := capture(example, "--out", dir, "--format", "json"); code != cmdutil.ExitFail {
		t.Fatalf("--out: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"report.json", "report.md", "report.html", "report.sarif", "report.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("--out did not write %s", name)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	plots, _ := filepath.Glob(filepath.Join(dir, "plots", "*.svg"))
	if len(plots) == 0 || !strings.Contains(string(md), "plots/") {
		t.Errorf("--out wrote %d plots; report.md links them: %v", len(plots), strings.Contains(string(md), "plots/"))
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"does/not/exist"},
		{".", "--format", "yaml"},
		{".", "--fail-on", "sometimes"},
		{"a", "b"},
	} {
		if _, stderr, code := capture(args...); code != cmdutil.ExitError || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, stderr)
		}
	}
}

func TestExplainAndInit(t *testing.T) {
	example := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	out, stderr, code := capture("explain", "ScaledObject/orders-consumer", example)
	if code != cmdutil.ExitOK || !strings.Contains(out, "hunting") || !strings.Contains(out, "Last two hours") {
		t.Errorf("explain: exit %d, stderr %s\n%s", code, stderr, out)
	}
	// Each law the bill rests on names the checks behind it (issue 33).
	for _, want := range []string{"Checked by", "KEDA's HPA:", "the KEDA differential (internal/kedadiff)",
		"the delay a window demands:", "the twin (docs/fidelity.md): part 2",
		"the twin (docs/fidelity.md): part 2: the HPA KEDA's operator builds"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain of a ScaledObject lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = capture("explain", "capreport-web", example)
	for _, want := range []string{"one factor per round:", "the dead band:", "the twin (docs/fidelity.md): part 1 F4"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain of an HPA lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "KEDA's HPA") {
		t.Errorf("explain of an HPA names KEDA's checks:\n%s", out)
	}
	if _, stderr, code := capture("explain", "nope", example); code != cmdutil.ExitError || !strings.Contains(stderr, "orders-consumer") {
		t.Errorf("explain of an unknown id: exit %d, %s", code, stderr)
	}
	out, stderr, code = capture("init", example, "--stdout")
	if code != cmdutil.ExitOK || !strings.Contains(out, "name: api") || !strings.Contains(out, "# latencyTarget") {
		t.Errorf("init --stdout: exit %d, %s\n%s", code, stderr, out)
	}
	// init refuses to overwrite without --force.
	dir := t.TempDir()
	if _, _, code := capture("init", dir); code != cmdutil.ExitOK {
		t.Fatalf("init on an empty repository: exit %d", code)
	}
	if _, _, code := capture("init", dir); code != cmdutil.ExitError {
		t.Errorf("second init without --force: exit %d", code)
	}
}

// Every corpus case runs end to end with default assumptions: no crash,
// each autoscaler priced or saying why not, each assumption with its
// provenance, and a finding for a default the bill rests on (an unpriced
// workload rests on none).
func TestRunCorpus(t *testing.T) {
	testutil.SkipIfShort(t)
	for _, dir := range corpusCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out, stderr, code := capture(corpusArgs(dir)...)
			if code != cmdutil.ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if err := inert.NewValidator(t).Validate([]byte(out)); err != nil {
				t.Fatalf("report does not validate: %v", err)
			}
			var r contract.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			if len(r.Workloads) == 0 {
				t.Fatalf("no autoscaler found; sources %+v", r.Sources)
			}
			for _, w := range r.Workloads {
				if w.Size == nil && w.Time == nil && w.UnpricedReason == "" {
					t.Errorf("%s: neither priced nor a reason", w.ID)
				}
				if a, ok := w.Assumptions["deadTime"]; !ok || a.From == "" {
					t.Errorf("%s: dead time without provenance", w.ID)
				} else if a.From == "default" && (w.Size != nil || w.Time != nil) && !reportFindingNames(r, "assumption-default", w.ID) {
					t.Errorf("%s: defaulted dead time, and the assumption-default finding does not name it", w.ID)
				}
				// Issue 12: nothing fails on defaults alone; what fails,
				// fails on a finding that needs no assumption.
				if w.Verdict == contract.VerdictFail && !failsWithoutDefaults(w) {
					t.Errorf("%s fails on defaults alone: %+v", w.ID, w.Findings)
				}
				if w.Verdict == contract.VerdictWarn && w.VerdictReason == "" && !hasWarning(w) {
					t.Errorf("%s: warn without a warning", w.ID)
				}
			}
		})
	}
}

// corpusCases are the case directories of ../shared/corpus, in order.
func corpusCases(t *testing.T) []string {
	corpus := testutil.Corpus(t)
	ents, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(corpus, e.Name()))
		}
	}
	return dirs
}

// corpusArgs prices one corpus case as its README renders it: release rel
// in demo, with capreport-values.yaml when the case has one.
func corpusArgs(dir string) []string {
	args := []string{dir, "--format", "json", "--release-name", "rel", "--namespace", "demo", "--fail-on", "never"}
	if _, err := os.Stat(filepath.Join(dir, "capreport-values.yaml")); err == nil {
		args = append(args, "-f", filepath.Join(dir, "capreport-values.yaml"))
	}
	return args
}

func reportFindingNames(r contract.Report, check, id string) bool {
	for _, f := range r.Findings {
		if f.Check == check && strings.Contains(f.Message, id) {
			return true
		}
	}
	return false
}

func failsWithoutDefaults(w contract.Workload) bool {
	for _, f := range w.Findings {
		if f.Severity == check.SeverityError && !f.Ignored && !f.RestsOnDefaults {
			return true
		}
	}
	return false
}

func hasWarning(w contract.Workload) bool {
	for _, f := range w.Findings {
		if f.Severity == check.SeverityWarning && !f.Ignored {
			return true
		}
	}
	return false
}

func TestChecksCommand(t *testing.T) {
	out, _, code := capture("checks")
	if code != cmdutil.ExitOK || !strings.Contains(out, "dead-band") || !strings.Contains(out, "remote-base") {
		t.Errorf("checks: exit %d\n%s", code, out)
	}
	out, _, code = capture("checks", "--format", "json")
	var checks []check.Info
	if code != cmdutil.ExitOK || json.Unmarshal([]byte(out), &checks) != nil || len(checks) != len(check.All()) {
		t.Errorf("checks --format json: exit %d, %d entries", code, len(checks))
	}
	// camelCase like the report: Unmarshal matches keys case-insensitively,
	// so the decode above would accept "ID" too. Compact or indented.
	if !regexp.MustCompile(`"id":\s*"dead-band"`).MatchString(out) || strings.Contains(out, `"ID"`) {
		t.Errorf("checks --format json: keys are not camelCase:\n%.300s", out)
	}
}

// SARIF paths are relative to the repository top, where code scanning
// resolves them, not to the scanned directory.
func TestSARIFPathsFromRepositoryTop(t *testing.T) {
	out, _, _ := capture(filepath.Join(testutil.RepoRoot(t), "examples", "shop"), "--format", "sarif")
	if !strings.Contains(out, `"uri": "examples/shop/base/api/hpa.yaml"`) {
		t.Errorf("SARIF uri not from the repository top:\n%.600s", out)
	}
	if got := cmdutil.RepoBaseDir(t.TempDir()); got != "" {
		t.Errorf("outside a repository: base %q, want none", got)
	}
}

// Names from manifests cannot send escape sequences to the terminal through
// list (the ledger's renderers escape them too).
func TestListEscapesManifestText(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: \"web\\e[2J\\e[31mPWNED\"\n" +
		"spec:\n  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 3\n"
	if err := os.WriteFile(filepath.Join(dir, "hpa.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := capture("list", dir)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `\u001b[2J`) {
		t.Errorf("escape sequence not neutralized:\n%q", out)
	}
}

// TestRunAtRef: --ref prices PATH as a revision has it, leaving the
// checkout alone; a PATH the revision lacks has an empty report.
func TestRunAtRef(t *testing.T) {
	repo := t.TempDir()
	gitT(t, repo, "init", "--quiet")
	writeManifests(t, repo, "50", "300")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "--quiet", "-m", "base")
	writeManifests(t, repo, "80", "60") // uncommitted head

	dir := filepath.Join(repo, "deploy")
	code, atRef, errOut := runArgs(t, dir, "--ref", "HEAD", "--format", "json", "--fail-on", "never")
	if code != cmdutil.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, now, _ := runArgs(t, dir, "--format", "json", "--fail-on", "never")
	var base, head contract.Report
	if err := json.Unmarshal([]byte(atRef), &base); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(now), &head); err != nil {
		t.Fatal(err)
	}
	if base.Root != dir+"@HEAD" || len(base.Workloads) != 3 {
		t.Fatalf("root %q, %d workloads", base.Root, len(base.Workloads))
	}
	target := func(r contract.Report) any {
		for _, w := range r.Workloads {
			if w.ID == webID {
				return w.Metrics[0].Target
			}
		}
		return nil
	}
	if fmt.Sprint(target(base)) == fmt.Sprint(target(head)) {
		t.Errorf("--ref HEAD priced the working tree: target %v both", target(base))
	}
	if st := gitT(t, repo, "status", "--porcelain"); !strings.Contains(st, "deploy/web.yaml") || strings.Contains(st, "??") {
		t.Errorf("the checkout changed:\n%s", st)
	}

	if err := os.MkdirAll(filepath.Join(repo, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runArgs(t, filepath.Join(repo, "new"), "--ref", "HEAD", "--format", "json")
	if code != cmdutil.ExitOK || !strings.Contains(errOut, "does not exist at HEAD; its report there is empty") || !strings.Contains(out, `"workloads":[]`) { // compact by default
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runArgs(t, dir, "--ref", "no-such-rev"); code != cmdutil.ExitError || !strings.Contains(errOut, `--ref: "no-such-rev" is not a commit`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
