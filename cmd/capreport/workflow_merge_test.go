package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/fakegithub"
	"github.com/capreport/capreport/internal/testutil"
)

// TestMonorepoWorkflowMergeStep runs the report job's merge step of
// docs/workflows/monorepo-matrix.yml as the runner would (bash -eo
// pipefail, its env, capreport on PATH, the artifacts where
// download-artifact puts them) over two services that both hold
// charts/web, one passing and one failing: the issue it posts must show
// both rows and the failure, not a green report.
func TestMonorepoWorkflowMergeStep(t *testing.T) {
	testutil.SkipIfShort(t)
	wfs, _ := loadWorkflows(t)
	var step *actionStep
	for _, s := range wfs["monorepo-matrix.yml"].Jobs["report"].Steps {
		if strings.Contains(s.Run, "capreport merge") {
			step = &s
		}
	}
	if step == nil {
		t.Fatal("monorepo-matrix.yml: the report job has no step that runs capreport merge")
	}
	bin := buildCapreport(t)
	binDir, temp := t.TempDir(), t.TempDir()
	copyFile(t, bin, filepath.Join(binDir, "capreport"), 0o755)
	for _, svc := range []string{"payments", "search"} {
		dir := filepath.Join(temp, "reports", "capreport-"+svc, "head")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, filepath.Join("testdata", "merge", svc+".json"), filepath.Join(dir, "report.json"), 0o644)
	}
	const token = "ghs_monorepoTOKEN0123456789abcd"
	api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo,
		Tokens: map[string]fakegithub.Permissions{token: {Issues: "write"}}})
	ctx := &exprContext{contexts: map[string]any{"github": map[string]any{"token": token}}, status: "success"}
	env := evalMap(t, *step, "env", step.Env, ctx)

	script := filepath.Join(t.TempDir(), "step.sh")
	writeFile(t, script, step.Run)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(harnessEnv(t), "RUNNER_TEMP="+temp, "GITHUB_ACTIONS=true",
		"GITHUB_REPOSITORY="+fakeOwner+"/"+fakeRepo, "GITHUB_API_URL="+strings.TrimSuffix(api.URL, "/"),
		"GITHUB_GRAPHQL_URL="+api.GraphQLURL, "GITHUB_SERVER_URL="+strings.TrimSuffix(api.ServerURL, "/"))
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=" + binDir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the merge step failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}

	raw, err := os.ReadFile(filepath.Join(temp, "merged.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m contract.Report
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Workloads) != 2 || m.Summary.Fail != 1 || m.Summary.Pass != 1 {
		t.Errorf("merged.json: %d workloads, summary %+v; want both services' web, one failing", len(m.Workloads), m.Summary)
	}
	issues := api.Issues()
	if len(issues) != 1 {
		t.Fatalf("%d issues, want 1", len(issues))
	}
	body := issues[0].Body
	for _, want := range []string{"1 fail", "services/search/deploy:default/HorizontalPodAutoscaler/capreport-web",
		"services/payments/deploy:default/HorizontalPodAutoscaler/capreport-web"} {
		if !strings.Contains(body, want) {
			t.Errorf("the issue does not say %q:\n%.2000s", want, body)
		}
	}
}
