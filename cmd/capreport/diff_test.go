package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/testutil"
)

// runArgs runs `capreport args...` in-process with buffers for streams.
func runArgs(t *testing.T, args ...string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &cmdutil.IOStreams{Out: &o, ErrOut: &e})
	return code, o.String(), e.String()
}

// The acceptance repository: a CPU HPA, a KEDA kafka consumer with a
// scale-down window, and a third autoscaler no commit touches.
const (
	webYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: example/web:1
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
  annotations:
    capreport.io/dead-time: 90s
    capreport.io/pod-rate: "100"
    capreport.io/overload: 10x,30x
    capreport.io/latency-target: 5m
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 10
  maxReplicas: 1000
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: TARGET}
`
	ordersYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: orders, namespace: shop}
spec:
  replicas: 5
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers:
        - name: consumer
          image: example/orders:1
          resources: {requests: {cpu: 250m}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: orders
  namespace: shop
  annotations:
    capreport.io/dead-time: 90s
    capreport.io/pod-rate: "10"
    capreport.io/demand: "50"
    capreport.io/step: 4x
spec:
  scaleTargetRef: {name: orders}
  minReplicaCount: 1
  maxReplicaCount: 100
  advanced:
    horizontalPodAutoscalerConfig:
      behavior:
        scaleDown:
          stabilizationWindowSeconds: WINDOW
  triggers:
    - type: kafka
      metadata:
        bootstrapServers: kafka:9092
        consumerGroup: orders
        topic: orders
        lagThreshold: "600"
`
	staticYAML = `apiVersion: apps/v1
kind: Deployment
metadata: {name: static, namespace: shop}
spec:
  replicas: 4
  selector: {matchLabels: {app: static}}
  template:
    metadata: {labels: {app: static}}
    spec:
      containers:
        - name: app
          image: example/static:1
          resources: {requests: {cpu: 500m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: static
  namespace: shop
  annotations:
    capreport.io/dead-time: 60s
    capreport.io/pod-rate: "50"
    capreport.io/overload: 3x
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: static}
  minReplicas: 4
  maxReplicas: 40
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: {type: Utilization, averageUtilization: 60}
`
)

const (
	webID    = "shop/HorizontalPodAutoscaler/web"
	ordersID = "shop/ScaledObject/orders"
	staticID = "shop/HorizontalPodAutoscaler/static"
)

// writeManifests writes the three manifests with a CPU target and a
// scale-down window under dir/deploy.
func writeManifests(t *testing.T, dir, target, window string) {
	t.Helper()
	d := filepath.Join(dir, "deploy")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"web.yaml":    strings.Replace(webYAML, "TARGET", target, 1),
		"orders.yaml": strings.Replace(ordersYAML, "WINDOW", window, 1),
		"static.yaml": staticYAML,
	} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gitT runs git in dir with a fixed identity and no user or system config,
// so the test does not depend on the machine's git setup.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=capreport test",
		"-c", "user.email=test@capreport.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// diffDoc is the part of the JSON diff the tests read.
type diffDoc struct {
	SchemaVersion string `json:"schemaVersion"`
	Base          struct {
		Root string `json:"root"`
	} `json:"base"`
	Counts struct {
		Base, Head, Changed, Unchanged, NewFailures int
	} `json:"counts"`
	Changes []struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		Summary       string `json:"summary"`
		VerdictBefore string `json:"verdictBefore"`
		VerdictAfter  string `json:"verdictAfter"`
		Figures       []struct {
			Key        string `json:"key"`
			Before     any    `json:"before"`
			After      any    `json:"after"`
			BeforeText string `json:"beforeText"`
			AfterText  string `json:"afterText"`
		} `json:"figures"`
		Base *struct {
			ID string `json:"id"`
		} `json:"base"`
		Head *struct {
			ID string `json:"id"`
		} `json:"head"`
	} `json:"changes"`
}

func decodeDiff(t *testing.T, out string) diffDoc {
	t.Helper()
	var d diffDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("not a JSON diff: %v\n%s", err, out)
	}
	return d
}

// checkAcceptance asserts the two edited autoscalers are listed with
// figures before and after, and the third is only counted.
func checkAcceptance(t *testing.T, code int, out, errOut string) diffDoc {
	t.Helper()
	d := decodeDiff(t, out)
	if d.SchemaVersion != "capreport.io/diff/v1" {
		t.Errorf("schemaVersion %q", d.SchemaVersion)
	}
	var ids []string
	for _, c := range d.Changes {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	if want := []string{webID, ordersID}; !slices.Equal(ids, want) {
		t.Fatalf("listed %q, want exactly %q\nstderr: %s", ids, want, errOut)
	}
	if d.Counts.Base != 3 || d.Counts.Head != 3 || d.Counts.Changed != 2 || d.Counts.Unchanged != 1 {
		t.Errorf("counts %+v, want 3 → 3 autoscalers, 2 changed, 1 unchanged", d.Counts)
	}
	wantCode := cmdutil.ExitOK
	if d.Counts.NewFailures > 0 {
		wantCode = cmdutil.ExitFail
	}
	if code != wantCode {
		t.Errorf("exit %d with %d new failures; stderr %q", code, d.Counts.NewFailures, errOut)
	}
	for _, c := range d.Changes {
		if c.Status != "changed" || c.Base == nil || c.Head == nil || c.Base.ID != c.ID || c.Head.ID != c.ID {
			t.Errorf("%s: status %q, both sides must be carried", c.ID, c.Status)
		}
		figs := map[string][2]string{}
		for _, f := range c.Figures {
			if f.Before == nil || f.After == nil || f.BeforeText == f.AfterText {
				t.Errorf("%s: figure %s is not a before → after pair: %v → %v", c.ID, f.Key, f.Before, f.After)
			}
			figs[f.Key] = [2]string{f.BeforeText, f.AfterText}
		}
		switch c.ID {
		case webID:
			if figs["metrics"] != [2]string{"cpu 50%", "cpu 80%"} {
				t.Errorf("web: metric targets %q, want 50%% → 80%%", figs["metrics"])
			}
			// A hotter target grows each round less: more rounds at 30x.
			r, ok := figs["size.overload[30].rounds"]
			if !ok || r[0] == r[1] {
				t.Errorf("web: 30x rounds not listed as changed: %v (figures %v)", r, figs)
			}
			if !strings.Contains(c.Summary, "30x overload: ") || !strings.Contains(c.Summary, "target cpu 50% → cpu 80%") {
				t.Errorf("web: summary %q", c.Summary)
			}
		case ordersID:
			// The window moves the Time bill's required standing delay;
			// the consumer's own settings do not change.
			if _, ok := figs["time.requiredStandingDelaySeconds"]; !ok {
				t.Errorf("orders: required standing delay not listed: %v", figs)
			}
			if _, ok := figs["metrics"]; ok {
				t.Errorf("orders: metric target listed as changed: %v", figs["metrics"])
			}
		}
	}
	return d
}

func TestDiffAcceptance(t *testing.T) {
	testutil.SkipIfShort(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH; the --base-ref acceptance test needs it")
	}
	repo := t.TempDir()
	gitT(t, repo, "init", "--quiet")
	writeManifests(t, repo, "50", "300")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "--quiet", "-m", "three autoscalers")

	// The base report as the first commit renders it, saved for --base-json.
	code, baseJSON, errOut := runArgs(t, filepath.Join(repo, "deploy"), "--format", "json")
	if code == cmdutil.ExitError {
		t.Fatalf("capreport on the base: exit %d: %s", code, errOut)
	}
	saved := filepath.Join(t.TempDir(), "base.json")
	if err := os.WriteFile(saved, []byte(baseJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	baseDir := t.TempDir()
	writeManifests(t, baseDir, "50", "300")

	writeManifests(t, repo, "80", "60")
	gitT(t, repo, "commit", "--quiet", "-am", "hotter target, shorter window")

	t.Run("base-ref", func(t *testing.T) {
		code, out, errOut := runArgs(t, "diff", filepath.Join(repo, "deploy"), "--base-ref", "HEAD~1", "--format", "json")
		d := checkAcceptance(t, code, out, errOut)
		if want := filepath.Join(repo, "deploy") + "@HEAD~1"; d.Base.Root != want {
			t.Errorf("base root %q, want %q", d.Base.Root, want)
		}
		// The temporary worktree is gone and the checkout is untouched.
		if wl := gitT(t, repo, "worktree", "list"); strings.Count(wl, "\n") != 0 {
			t.Errorf("worktrees left behind:\n%s", wl)
		}
		if st := gitT(t, repo, "status", "--porcelain"); st != "" {
			t.Errorf("checkout modified:\n%s", st)
		}
	})
	t.Run("base-ref from inside the repository, relative path", func(t *testing.T) {
		t.Chdir(filepath.Join(repo, "deploy"))
		code, out, errOut := runArgs(t, "diff", "--base-ref", "HEAD~1", "--format", "json")
		checkAcceptance(t, code, out, errOut)
	})
	t.Run("base-json", func(t *testing.T) {
		code, out, errOut := runArgs(t, "diff", filepath.Join(repo, "deploy"), "--base-json", saved, "--format", "json")
		checkAcceptance(t, code, out, errOut)
	})
	t.Run("base-dir", func(t *testing.T) {
		code, out, errOut := runArgs(t, "diff", filepath.Join(repo, "deploy"), "--base-dir", filepath.Join(baseDir, "deploy"), "--format", "json")
		checkAcceptance(t, code, out, errOut)
	})
	t.Run("markdown", func(t *testing.T) {
		_, out, errOut := runArgs(t, "diff", filepath.Join(repo, "deploy"), "--base-ref", "HEAD~1")
		for _, s := range []string{"<!-- capreport -->\n", "**2 autoscalers changed: ", "| " + webID + " |", "| " + ordersID + " |",
			"· 1 unchanged", "```mermaid\n%%{init:", "%%\nxychart-beta\n",
			// The failing row quotes the figure it fails on.
			"| fail | peak wait at 30x: "} {
			if !strings.Contains(out, s) {
				t.Errorf("comment lacks %q; stderr %q\n%s", s, errOut, out)
			}
		}
		if strings.Contains(out, staticID) {
			t.Errorf("the unchanged autoscaler is listed:\n%s", out)
		}
	})
	t.Run("text", func(t *testing.T) {
		_, out, _ := runArgs(t, "diff", filepath.Join(repo, "deploy"), "--base-ref", "HEAD~1", "--format", "text")
		if !strings.HasPrefix(out, "2 autoscalers changed: ") || !strings.Contains(out, "(1 unchanged)") {
			t.Errorf("text diff:\n%s", out)
		}
	})
	t.Run("a path the base does not have is all new", func(t *testing.T) {
		extra := filepath.Join(repo, "extra")
		writeManifests(t, extra, "50", "300")
		gitT(t, repo, "add", ".")
		gitT(t, repo, "commit", "--quiet", "-m", "extra")
		code, out, errOut := runArgs(t, "diff", extra, "--base-ref", "HEAD~1", "--format", "json")
		d := decodeDiff(t, out)
		if d.Counts.Base != 0 || d.Counts.Head != 3 || d.Counts.Changed != 3 {
			t.Errorf("counts %+v, want 3 added; exit %d, stderr %q", d.Counts, code, errOut)
		}
		if !strings.Contains(errOut, "does not exist at HEAD~1") {
			t.Errorf("stderr %q", errOut)
		}
	})
}

// A minimal report; verdict "" leaves the workload out.
func miniReport(schema, verdict string) string {
	ws := "[]"
	if verdict != "" {
		ws = `[{"id": "a/HorizontalPodAutoscaler/x", "verdict": "` + verdict + `", "minReplicas": 1, "maxReplicas": 5, "findings": []}]`
	}
	return `{"schemaVersion": "` + schema + `", "tool": {"name": "capreport", "version": "t"}, "root": "r",
"summary": {}, "workloads": ` + ws + `, "sources": [], "findings": []}`
}

func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDiffExitCodes: 1 only when a workload newly fails (any failing one
// with --fail-on-scope all, a bill grown past --fail-on-worse too), 2 on
// usage errors.
func TestDiffExitCodes(t *testing.T) {
	pass := writeTemp(t, "pass.json", miniReport("capreport.io/report/v1", "pass"))
	fail := writeTemp(t, "fail.json", miniReport("capreport.io/report/v1", "fail"))
	failWider := writeTemp(t, "fail-wider.json", strings.Replace(miniReport("capreport.io/report/v1", "fail"), `"maxReplicas": 5`, `"maxReplicas": 6`, 1))
	empty := writeTemp(t, "empty.json", miniReport("capreport.io/report/v1", ""))
	old := writeTemp(t, "old.json", miniReport("capreport.io/report/v0", "pass"))
	notJSON := writeTemp(t, "x.json", "apiVersion: v1\n")
	// A passing bill at 3x: 2 rounds, 60 s to capacity; then 3 rounds, 90 s
	// (+50 %), still passing.
	bill := func(rounds, seconds int) string {
		return strings.Replace(miniReport("capreport.io/report/v1", "pass"), `"findings": []}]`,
			fmt.Sprintf(`"findings": [], "size": {"growthFactor": 2, "deadBand": false, "hottestTarget": null, "roundSeconds": 30, "overloads": [{"k": 3, "roundsBound": 3, "rounds": %d, "timeToCapacitySeconds": %d, "peakReplicas": 15, "neededReplicas": 15, "overshoot": 0, "peakBacklog": 0, "peakWaitSeconds": 10, "drainedAtSeconds": null}]}}]`, rounds, seconds), 1)
	}
	cheap, dear := writeTemp(t, "cheap.json", bill(2, 60)), writeTemp(t, "dear.json", bill(3, 90))
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // substring
	}{
		{"pass → fail newly fails", []string{"--base-json", pass, "--head-json", fail}, cmdutil.ExitFail, ""},
		{"a new autoscaler that fails newly fails", []string{"--base-json", empty, "--head-json", fail}, cmdutil.ExitFail, ""},
		{"still failing is not new", []string{"--base-json", fail, "--head-json", fail}, cmdutil.ExitOK, ""},
		{"still failing with a change is not new", []string{"--base-json", fail, "--head-json", failWider}, cmdutil.ExitOK, ""},
		{"fixed", []string{"--base-json", fail, "--head-json", pass}, cmdutil.ExitOK, ""},
		{"removed", []string{"--base-json", fail, "--head-json", empty}, cmdutil.ExitOK, ""},
		{"still failing fails the gate with scope all", []string{"--base-json", fail, "--head-json", fail, "--fail-on-scope", "all"}, cmdutil.ExitFail, ""},
		{"passing passes with scope all", []string{"--base-json", fail, "--head-json", pass, "--fail-on-scope", "all"}, cmdutil.ExitOK, ""},
		{"a bill 50 % dearer fails a 20 % gate", []string{"--base-json", cheap, "--head-json", dear, "--fail-on-worse", "20"}, cmdutil.ExitFail, ""},
		{"a bill 50 % dearer passes a 60 % gate", []string{"--base-json", cheap, "--head-json", dear, "--fail-on-worse", "60"}, cmdutil.ExitOK, ""},
		{"a bill 50 % dearer passes without the gate", []string{"--base-json", cheap, "--head-json", dear}, cmdutil.ExitOK, ""},
		{"a cheaper bill passes the gate", []string{"--base-json", dear, "--head-json", cheap, "--fail-on-worse", "1"}, cmdutil.ExitOK, ""},
		{"bad scope", []string{"--base-json", pass, "--head-json", pass, "--fail-on-scope", "some"}, cmdutil.ExitError, `--fail-on-scope: "some" is not one of new, all`},
		{"negative worse", []string{"--base-json", pass, "--head-json", pass, "--fail-on-worse", "-5"}, cmdutil.ExitError, "--fail-on-worse: -5 is not a percentage"},
		{"no base", []string{"--head-json", pass}, cmdutil.ExitError, "exactly one of --base-ref, --base-dir or --base-json is required"},
		{"two bases", []string{"--base-json", pass, "--base-dir", ".", "--head-json", pass}, cmdutil.ExitError, "exactly one of"},
		{"bad format", []string{"--base-json", pass, "--head-json", pass, "--format", "html"}, cmdutil.ExitError, `--format: "html" is not one of markdown, json, text`},
		{"other schema version", []string{"--base-json", old, "--head-json", pass}, cmdutil.ExitError, old + `: schemaVersion "capreport.io/report/v0"`},
		{"not a report", []string{"--base-json", notJSON, "--head-json", pass}, cmdutil.ExitError, notJSON + ": not a capreport JSON report"},
		{"missing file", []string{"--base-json", pass, "--head-json", "/nonexistent/h.json"}, cmdutil.ExitError, "/nonexistent/h.json: no such file"},
		{"unknown flag", []string{"--base", pass}, cmdutil.ExitError, "unknown flag: --base"},
		{"option-like ref", []string{"--base-ref", "--output=/tmp/x", "--head-json", pass}, cmdutil.ExitError, "--base-ref"},
		{"not a repository", []string{t.TempDir(), "--base-ref", "HEAD", "--head-json", pass}, cmdutil.ExitError, "is not inside a git repository"},
	} {
		code, out, errOut := runArgs(t, append([]string{"diff"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d, stderr with %q\n%s", c.name, code, errOut, c.code, c.stderr, out)
		}
		if c.code != cmdutil.ExitError && !strings.HasPrefix(out, "<!-- capreport -->") {
			t.Errorf("%s: no comment on stdout:\n%s", c.name, out)
		}
	}
}

func TestDiffBadRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	repo := t.TempDir()
	gitT(t, repo, "init", "--quiet")
	writeManifests(t, repo, "50", "300")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "--quiet", "-m", "one")
	code, _, errOut := runArgs(t, "diff", repo, "--base-ref", "no-such-branch")
	if code != cmdutil.ExitError || !strings.Contains(errOut, `--base-ref: "no-such-branch" is not a commit of`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// A diff whose commits change one source renders it on both sides in one
// worker process: the base's pool takes the head's worker when the head's
// render is done, instead of starting a second (each worker writes its
// own profile, so their files count them).
func TestDiffRendersBothSidesInOneWorker(t *testing.T) {
	testutil.SkipIfShort(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH; the --base-ref test needs it")
	}
	repo, cache := t.TempDir(), t.TempDir()
	gitT(t, repo, "init", "--quiet")
	writeManifests(t, repo, "50", "300")
	gitT(t, repo, "add", ".")
	gitT(t, repo, "commit", "--quiet", "-m", "three autoscalers")
	runDiff := func(extra ...string) diffDoc {
		t.Helper()
		args := append([]string{"diff", filepath.Join(repo, "deploy"), "--base-ref", "HEAD~1", "--format", "json", "--cache", "--cache-dir", cache}, extra...)
		code, out, errOut := runArgs(t, args...)
		if code == cmdutil.ExitError {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return decodeDiff(t, out)
	}
	for _, target := range []string{"60", "70"} { // two commits no run has rendered
		writeManifests(t, repo, target, "300")
		gitT(t, repo, "commit", "--quiet", "-am", "target "+target)
	}
	runDiff() // the cache now holds the sources no later commit changes
	for _, target := range []string{"80", "90"} {
		writeManifests(t, repo, target, "300")
		gitT(t, repo, "commit", "--quiet", "-am", "target "+target)
	}
	prof := filepath.Join(t.TempDir(), "heap.pprof")
	d := runDiff("--profile", "heap", "--profile-output", prof)
	if d.Counts.Changed != 1 {
		t.Errorf("counts %+v, want the one autoscaler whose target moved", d.Counts)
	}
	workers, err := filepath.Glob(prof + ".worker.*")
	if err != nil || len(workers) != 1 {
		t.Errorf("%d render workers ran (%v), want one for both sides", len(workers), err)
	}
}
