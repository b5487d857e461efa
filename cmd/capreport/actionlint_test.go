package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/internal/testutil"
)

// TestActionlint lints the workflows a team copies (docs/workflows) and the
// repository's own (.github/workflows: the release) with
// actionlint, in process: syntax, expressions and their contexts, event
// and permission names, and the inputs of well-known actions. The
// workflows are linted in a scratch project where `uses:
// capreport/capreport@v1` points at the action of this checkout (`./`),
// so every input they pass is checked against action.yml; the action's own
// steps are linted as a reusable workflow's job.
func TestActionlint(t *testing.T) {
	root := testutil.RepoRoot(t)
	proj := t.TempDir()
	wfDir := filepath.Join(proj, ".github", "workflows")
	if err := os.MkdirAll(wfDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "action.yml"), action, 0o644); err != nil {
		t.Fatal(err)
	}
	flows, err := filepath.Glob(filepath.Join(root, "docs", "workflows", "*.yml"))
	own, err2 := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	flows = append(flows, own...)
	if err != nil || err2 != nil || len(flows) < 6 || len(own) == 0 {
		t.Fatalf("workflows %v, %v %v", flows, err, err2)
	}
	var paths []string
	for _, f := range flows {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		local := strings.ReplaceAll(string(b), "uses: capreport/capreport@v1", "uses: ./")
		if local == string(b) && strings.Contains(local, "capreport/capreport@") {
			t.Fatalf("%s uses the action at a version this test does not rewrite", f)
		}
		p := filepath.Join(wfDir, filepath.Base(f))
		if err := os.WriteFile(p, []byte(local), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}

	paths = append(paths, compositeAsWorkflow(t, action, wfDir))

	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{WorkingDir: proj, Oneline: true})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(paths, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", filepath.Base(e.Filepath), e.Line, e.Column, e.Message, e.Kind)
	}

	// The linter does see action.yml and the contexts: a workflow with an
	// undeclared input and a misspelt context is refused.
	bad := filepath.Join(wfDir, "bad.yml")
	if err := os.WriteFile(bad, []byte(`on: pull_request
permissions: {contents: read}
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: ./
        with:
          behaviour: update
          path: ${{ github.evnt.pull_request.number }}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, err = l.LintFiles([]string{bad}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Message)
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, `"behaviour" is not defined`) || !strings.Contains(all, "evnt") {
		t.Errorf("actionlint missed the broken workflow:\n%s", all)
	}
}

// compositeAsWorkflow writes action.yml's steps as the one job of a
// reusable workflow taking the action's inputs, which actionlint can check:
// it has no linter for a composite action's own steps, and their
// expressions (inputs, steps.<id>.outputs, runner, github) are the same.
func compositeAsWorkflow(t *testing.T, action []byte, dir string) string {
	t.Helper()
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Steps []any `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(action, &a); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]any{}
	for name := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": false}
	}
	b, err := yaml.Marshal(map[string]any{
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": a.Runs.Steps}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "action-steps.yml")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
