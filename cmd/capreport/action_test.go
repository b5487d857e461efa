package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
)

// actionFile is the part of action.yml the checks read.
type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStep is one step of action.yml or of a workflow's job.
type actionStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

// title names a step in messages.
func (s actionStep) title() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.ID != "":
		return s.ID
	case s.Uses != "":
		return s.Uses
	}
	return strings.SplitN(strings.TrimSpace(s.Run), "\n", 2)[0]
}

// invocation is one capreport command line of a script: `"$CAPREPORT" sub
// --flag ...` (the action) or `capreport sub --flag ...` (a workflow).
type invocation struct {
	step  string
	words []string // the leading bare words: subcommands, e.g. comment github
	flags []string
	line  string
}

var (
	flagRef  = regexp.MustCompile(`(?:^|[\s+])--([a-z][a-z0-9-]*)`)
	inputRef = regexp.MustCompile(`inputs\.([a-zA-Z0-9_-]+)`)
	stepRef  = regexp.MustCompile(`steps\.([a-zA-Z0-9_-]+)\.outputs\.([a-zA-Z0-9_-]+)`)
	subWord  = regexp.MustCompile(`^[a-z][a-z-]*$`)
	// shellSplit cuts a line into simple commands (roughly: quotes are not
	// honoured, which the scripts checked here do not need).
	shellSplit = regexp.MustCompile("&&|\\|\\||\\$\\(|[;|()`]")
	assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	redirect   = regexp.MustCompile(`^[0-9]*[<>&]`)
)

// commandWords are the spellings of capreport at a command's start.
var commandWords = []string{`"$CAPREPORT"`, `$CAPREPORT`, `"${CAPREPORT}"`, `${CAPREPORT}`, `capreport`}

// shellPrefixes may stand before a command's name.
var shellPrefixes = []string{"if", "then", "else", "elif", "do", "while", "until", "!", "time", "exec", "command"}

// invocations finds every capreport command line of the steps' scripts.
func invocations(steps []actionStep) []invocation {
	var out []invocation
	for _, s := range steps {
		out = append(out, scriptInvocations(s.title(), s.Run)...)
	}
	return out
}

// scriptInvocations finds the simple commands of a script whose name is
// capreport; their arguments end at the first redirection.
func scriptInvocations(step, script string) []invocation {
	var out []invocation
	script = strings.ReplaceAll(script, "\\\n", " ")
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, cmd := range shellSplit.Split(line, -1) {
			f := strings.Fields(cmd)
			for len(f) > 0 && (slices.Contains(shellPrefixes, f[0]) || assignment.MatchString(f[0])) {
				f = f[1:]
			}
			if len(f) == 0 || !slices.Contains(commandWords, f[0]) {
				continue
			}
			args := f[1:]
			for i, a := range args {
				if redirect.MatchString(a) {
					args = args[:i]
					break
				}
			}
			inv := invocation{step: step, line: strings.TrimSpace(line)}
			for _, a := range args {
				if !subWord.MatchString(a) {
					break
				}
				inv.words = append(inv.words, a)
			}
			for _, m := range flagRef.FindAllStringSubmatch(strings.Join(args, " "), -1) {
				inv.flags = append(inv.flags, m[1])
			}
			out = append(out, inv)
		}
	}
	return out
}

// resolve finds the invocation's command in the tree and checks its flags,
// reporting each problem to errorf; it returns the subcommand path ("" for
// the root, "comment github").
func (inv invocation) resolve(root *cobra.Command, errorf func(string, ...any)) (string, bool) {
	cmd, rest := root, inv.words
	var path []string
	for len(rest) > 0 {
		var next *cobra.Command
		for _, c := range cmd.Commands() {
			if c.Name() == rest[0] || c.HasAlias(rest[0]) {
				next = c
				break
			}
		}
		if next == nil {
			break
		}
		cmd, rest, path = next, rest[1:], append(path, next.Name())
	}
	sub := strings.Join(path, " ")
	// A word left over is an unknown subcommand, unless the command takes
	// positional words (PATH of the root is never a bare word here).
	if len(rest) > 0 && (cmd == root || cmd.HasSubCommands() || cmd.ValidateArgs(rest) != nil) {
		errorf("%s: `%s` has no subcommand %q: %s", inv.step, strings.TrimSpace("capreport "+sub), rest[0], inv.line)
		return sub, false
	}
	ok := true
	for _, f := range inv.flags {
		if cmd.Flags().Lookup(f) == nil && cmd.InheritedFlags().Lookup(f) == nil {
			errorf("%s: `%s` has no flag --%s: %s", inv.step, strings.TrimSpace("capreport "+sub), f, inv.line)
			ok = false
		}
	}
	return sub, ok
}

func loadAction(t *testing.T) (actionFile, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a, raw
}

func newTestRoot() *cobra.Command {
	return newRootCmd(newFactory(&cmdutil.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}), nil)
}

// TestActionMatchesCLI: the action cannot drift from the command tree.
func TestActionMatchesCLI(t *testing.T) {
	a, _ := loadAction(t)
	root := newTestRoot()
	subs := map[string][]string{}
	for _, inv := range invocations(a.Runs.Steps) {
		sub, _ := inv.resolve(root, t.Errorf)
		subs[sub] = append(subs[sub], inv.flags...)
	}
	// The parser must have found what the action is for, or a change to
	// the scripts could silently check nothing.
	got := make([]string, 0, len(subs))
	for s := range subs {
		got = append(got, s)
	}
	sort.Strings(got)
	if want := []string{"", "comment github", "issue github", "summary"}; !slices.Equal(got, want) {
		t.Errorf("capreport commands invoked %q, want %q", got, want)
	}
	for sub, want := range map[string][]string{
		"":               {"out", "ref", "format", "config", "fail-on"},
		"comment github": {"report", "base", "behavior", "images", "github-output"},
		"issue github":   {"report", "title", "label", "github-output"},
		"summary":        {"report", "base", "github-output"},
	} {
		for _, f := range want {
			if !slices.Contains(subs[sub], f) {
				t.Errorf("`capreport %s` is not invoked with --%s", sub, f)
			}
		}
	}
}

// actionInputs are the inputs action.yml must declare, each described.
var actionInputs = []string{
	"path", "config", "mode", "base-ref", "behavior", "comment-when", "fail-on", "fail-on-scope", "fail-on-worse", "fetch", "github-token", "images",
	"report", "base-report", "issue-title", "issue-label", "artifact-name", "sarif",
}

// TestActionInputsAndSafety: inputs are declared and described, defaults
// are values the CLI accepts, scripts read inputs only through env, the
// token reaches only the posting steps, and each step that runs capreport
// says where the binary is.
func TestActionInputsAndSafety(t *testing.T) {
	a, raw := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	var names []string
	for name, in := range a.Inputs {
		names = append(names, name)
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	sort.Strings(names)
	want := slices.Sorted(slices.Values(actionInputs))
	if !slices.Equal(names, want) {
		t.Errorf("inputs %q, want %q", names, want)
	}
	for _, name := range []string{"verdict", "report", "comment-url"} {
		if o, ok := a.Outputs[name]; !ok || strings.TrimSpace(o.Description) == "" || o.Value == "" {
			t.Errorf("output %s is missing, undescribed or without a value", name)
		}
	}
	for _, m := range inputRef.FindAllStringSubmatch(string(raw), -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("inputs.%s is used but not declared", m[1])
		}
	}
	for input, allowed := range map[string][]string{
		"behavior": {"update", "new", "hide-and-new", "delete-and-new"},
		"fail-on":  {config.FailOnError, config.FailOnWarning, config.FailOnNever},
		"images":   {"none", "branch"},
		"sarif":    {"false"},
		"mode":     {""},
		"path":     {"."},
		"base-ref": {""},
		"report":   {""},
	} {
		if d := a.Inputs[input].Default; !slices.Contains(allowed, d) {
			t.Errorf("input %s: default %q, want one of %q", input, d, allowed)
		}
	}
	if d := a.Inputs["github-token"].Default; d != "${{ github.token }}" {
		t.Errorf("github-token default %q", d)
	}

	ids := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
	}
	for _, m := range stepRef.FindAllStringSubmatch(string(raw), -1) {
		if !ids[m[1]] {
			t.Errorf("steps.%s.outputs.%s names no step", m[1], m[2])
		}
	}
	var tokenSteps []string
	for _, s := range a.Runs.Steps {
		for k, v := range s.Env {
			if strings.Contains(v, "github-token") || strings.Contains(v, "github.token") || strings.Contains(v, "secrets.") {
				if k != "GITHUB_TOKEN" {
					t.Errorf("step %q passes the token as %s", s.title(), k)
				}
				tokenSteps = append(tokenSteps, s.ID)
			}
		}
		for k, v := range s.With {
			if strings.Contains(v, "github-token") || strings.Contains(v, "github.token") {
				t.Errorf("step %q passes the token to %s as %s", s.title(), s.Uses, k)
			}
		}
		if s.Run == "" {
			if s.Uses == "" {
				t.Errorf("step %q neither runs nor uses", s.title())
			}
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %q: a composite run step needs shell: bash", s.title())
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env", s.title())
		}
		if strings.Contains(s.Run, "CAPREPORT") && s.Env["CAPREPORT"] == "" {
			t.Errorf("step %q runs $CAPREPORT without setting it", s.title())
		}
		if strings.Contains(s.Run, "GITHUB_TOKEN") || strings.Contains(s.Run, "GH_TOKEN") {
			t.Errorf("step %q mentions the token in its script", s.title())
		}
	}
	sort.Strings(tokenSteps)
	if !slices.Equal(tokenSteps, []string{"comment", "issue"}) {
		t.Errorf("the token reaches steps %q, want only the posting steps comment and issue", tokenSteps)
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, strings.Split(s.Uses, "@")[0])
		}
	}
	for _, want := range []string{"actions/setup-go", "actions/cache", "actions/upload-artifact", "github/codeql-action/upload-sarif"} {
		if !slices.Contains(uses, want) {
			t.Errorf("action does not use %s", want)
		}
	}
	for _, s := range a.Runs.Steps {
		switch strings.Split(s.Uses, "@")[0] {
		case "actions/setup-go":
			// The action's own Go; setup-go's cache cannot hash the
			// action's go.sum (outside the workspace), so it is off and
			// actions/cache keeps explicit paths.
			if !strings.Contains(s.With["go-version-file"], "github.action_path") || s.With["cache"] != "false" {
				t.Errorf("setup-go must read the action's go.mod and leave caching to actions/cache: %v", s.With)
			}
		case "actions/cache":
			if s.Name == "Cache of fetched charts, renders and bills" {
				break // capreport's cache, keyed by the lock files and the commit
			}
			if !strings.Contains(s.With["key"], "steps.gocache.outputs.key") || !strings.Contains(s.With["path"], "steps.gocache.outputs.modcache") {
				t.Errorf("the Go cache must use the explicit paths and key of the gocache step: %v", s.With)
			}
		case "actions/upload-artifact":
			// The artifact is kept when posting fails.
			if !strings.Contains(s.If, "always()") {
				t.Errorf("the artifact upload must run always(), not %q", s.If)
			}
		}
		if strings.Contains(s.Run, "go build") && strings.Contains(s.Run, "-trimpath") {
			t.Errorf("step %q builds with -trimpath, which misses the warm build cache", s.title())
		}
	}
}

// TestActionInvocationParser: the parser the checks rest on.
func TestActionInvocationParser(t *testing.T) {
	invs := scriptInvocations("s", "x=1\n"+
		`rc=0; "$CAPREPORT" diff "$P" --base-ref "$B" \`+"\n"+`  --format markdown ${C:+--config "$C"} > out.md || rc=$? --not-a-flag`+"\n"+
		`"$CAPREPORT" "$P" --out d`+"\n"+
		`if ! X=1 "$CAPREPORT" comment github --report r.json; then echo capreport --ignored; fi`+"\n"+
		`# capreport --commented-out`+"\n"+
		`out=$(capreport merge a.json b.json 2>/dev/null) && capreport issue github --title "t"`+"\n"+
		`go install github.com/capreport/capreport/cmd/capreport@v1`)
	type got struct{ words, flags string }
	var g []got
	for _, inv := range invs {
		g = append(g, got{strings.Join(inv.words, " "), strings.Join(inv.flags, ",")})
	}
	want := []got{
		{"diff", "base-ref,format,config"},
		{"", "out"},
		{"comment github", "report"},
		{"merge", ""},
		{"issue github", "title"},
	}
	if !slices.Equal(g, want) {
		t.Errorf("parsed %+v\nwant   %+v", g, want)
	}

	// And a drifted script is caught: an unknown subcommand, a word that
	// is not one, and a flag typo, each in a test of its own.
	root := newTestRoot()
	for _, script := range []string{
		`"$CAPREPORT" frobnicate --out d`,
		`capreport deploy --out d`,
		`"$CAPREPORT" merge a.json --formatt json`,
	} {
		var reported []string
		for _, inv := range scriptInvocations("s", script) {
			inv.resolve(root, func(f string, a ...any) { reported = append(reported, fmt.Sprintf(f, a...)) })
		}
		if len(reported) != 1 {
			t.Errorf("%s: reported %q, want one problem", script, reported)
		}
	}
	// Flags are looked up exactly.
	c, _, _ := root.Find([]string{"merge"})
	if c.Flags().Lookup("formatt") != nil || c.Flags().Lookup("format") == nil {
		t.Error("flag lookup does not tell a typo from the flag")
	}
}

// workflowFile is the part of a workflow the checks read.
type workflowFile struct {
	Name        string                 `yaml:"name"`
	On          any                    `yaml:"on"`
	Permissions any                    `yaml:"permissions"`
	Jobs        map[string]workflowJob `yaml:"jobs"`
}

type workflowJob struct {
	If          string       `yaml:"if"`
	Needs       any          `yaml:"needs"`
	Permissions any          `yaml:"permissions"`
	Steps       []actionStep `yaml:"steps"`
}

// events lists the workflow's triggers.
func (w workflowFile) events() []string {
	var out []string
	switch on := w.On.(type) {
	case string:
		out = append(out, on)
	case []any:
		for _, e := range on {
			out = append(out, e.(string))
		}
	case map[string]any:
		for e := range on {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

// permissionMap turns a permissions block into a map; ok is false when it
// is absent or not a map (read-all, write-all).
func permissionMap(p any) (map[string]string, bool) {
	m, ok := p.(map[string]any)
	if !ok {
		return nil, false
	}
	out := map[string]string{}
	for k, v := range m {
		out[k], _ = v.(string)
	}
	return out, true
}

// workflowPermissions are the minimal permissions of each job of each
// shipped workflow; a new workflow must be added here.
var workflowPermissions = map[string]map[string]map[string]string{
	"pull-request.yml":         {"capreport": {"contents": "read", "pull-requests": "write"}},
	"pull-request-analyze.yml": {"analyze": {"contents": "read"}},
	"pull-request-comment.yml": {"comment": {"pull-requests": "write", "actions": "read"}},
	"weekly-report.yml":        {"report": {"contents": "read", "issues": "write"}},
	"monorepo-matrix.yml":      {"price": {"contents": "read"}, "report": {"issues": "write"}},
	"release.yml":              {"release": {"contents": "write", "packages": "write"}},
	"ci.yml":                   {"ci": {"contents": "read"}, "release-check": {"contents": "read"}},
}

func loadWorkflows(t *testing.T) (map[string]workflowFile, map[string]string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "docs", "workflows", "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	// The repository's own (the release), which GitHub runs.
	own, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil || len(own) == 0 {
		t.Fatalf(".github/workflows: %v %v", own, err)
	}
	files = append(files, own...)
	wfs, raws := map[string]workflowFile{}, map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var w workflowFile
		if err := yaml.Unmarshal(raw, &w); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		wfs[filepath.Base(f)], raws[filepath.Base(f)] = w, string(raw)
	}
	return wfs, raws
}

// TestWorkflows: the workflows a team copies parse, ask for the least
// permissions, never run a fork's code with a write token, pass the action
// only inputs it declares, and run only capreport commands that exist.
func TestWorkflows(t *testing.T) {
	a, _ := loadAction(t)
	wfs, raws := loadWorkflows(t)
	var names []string
	for n := range wfs {
		names = append(names, n)
	}
	sort.Strings(names)
	if want := slices.Sorted(maps.Keys(workflowPermissions)); !slices.Equal(names, want) {
		t.Errorf("docs/workflows holds %q, want %q", names, want)
	}
	doc, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "github-action.md"))
	if err != nil {
		t.Fatal(err)
	}

	root := newTestRoot()
	commands := map[string]bool{}
	stageOne := map[string]workflowFile{} // by name: workflows on pull_request
	for _, n := range names {
		w := wfs[n]
		if !strings.Contains(string(doc), "workflows/"+n) {
			t.Errorf("docs/github-action.md does not point at docs/workflows/%s", n)
		}
		if w.Name == "" || len(w.Jobs) == 0 || len(w.events()) == 0 {
			t.Errorf("%s: no name, trigger or job", n)
		}
		if strings.Contains(raws[n], "pull_request_target") {
			t.Errorf("%s: pull_request_target runs with a write token; checking out the pull request there is a pwn request", n)
		}
		if slices.Contains(w.events(), "pull_request") {
			stageOne[w.Name] = w
		}
		var jobs []string
		for j := range w.Jobs {
			jobs = append(jobs, j)
		}
		sort.Strings(jobs)
		for _, j := range jobs {
			job := w.Jobs[j]
			where := n + ": job " + j
			perms, ok := permissionMap(job.Permissions)
			if job.Permissions == nil {
				perms, ok = permissionMap(w.Permissions)
			}
			if !ok {
				t.Errorf("%s: permissions must be set as a map, at the workflow or the job", where)
			} else if want := workflowPermissions[n][j]; !maps.Equal(perms, want) {
				t.Errorf("%s: permissions %v, want exactly %v", where, perms, want)
			}
			for _, s := range job.Steps {
				stepWhere := where + ": step " + s.title()
				if strings.Contains(s.Run, "${{") {
					t.Errorf("%s interpolates an expression into its script; pass it through env", stepWhere)
				}
				for _, inv := range scriptInvocations(stepWhere, s.Run) {
					if sub, ok := inv.resolve(root, t.Errorf); ok {
						commands[sub] = true
					}
				}
				switch uses := strings.Split(s.Uses, "@")[0]; uses {
				case "actions/checkout":
					if s.With["persist-credentials"] != "false" {
						t.Errorf("%s: check out with persist-credentials: false (no token left in .git/config)", stepWhere)
					}
				case "capreport/capreport":
					for k, v := range s.With {
						if _, ok := a.Inputs[k]; !ok {
							t.Errorf("%s: action.yml has no input %q", stepWhere, k)
						}
						if k == "mode" && !slices.Contains([]string{"comment", "issue", "summary"}, v) {
							t.Errorf("%s: mode %q", stepWhere, v)
						}
					}
				}
			}
		}
	}
	// The parser must have found the commands the monorepo workflow runs.
	for _, c := range []string{"merge", "issue github"} {
		if !commands[c] {
			t.Errorf("no workflow runs `capreport %s`", c)
		}
	}

	// The second stage of the fork-safe pair.
	var stageTwo int
	for _, n := range names {
		w := wfs[n]
		on, _ := w.On.(map[string]any)
		wr, ok := on["workflow_run"].(map[string]any)
		if !ok {
			continue
		}
		stageTwo++
		if evs := w.events(); !slices.Equal(evs, []string{"workflow_run"}) {
			t.Errorf("%s: stage 2 runs on %q, want workflow_run only", n, evs)
		}
		if types, _ := wr["types"].([]any); !slices.Equal(types, []any{"completed"}) {
			t.Errorf("%s: workflow_run types %v, want [completed]", n, types)
		}
		flows, _ := wr["workflows"].([]any)
		if len(flows) != 1 {
			t.Fatalf("%s: workflow_run must follow exactly one workflow, not %v", n, flows)
		}
		one, ok := stageOne[flows[0].(string)]
		if !ok {
			t.Errorf("%s: follows %q, which is no pull_request workflow of docs/workflows", n, flows[0])
		} else {
			for j, job := range one.Jobs {
				perms, _ := permissionMap(job.Permissions)
				if job.Permissions == nil {
					perms, _ = permissionMap(one.Permissions)
				}
				if !maps.Equal(perms, map[string]string{"contents": "read"}) {
					t.Errorf("stage 1 %q job %s: permissions %v, want only contents: read", one.Name, j, perms)
				}
				for _, s := range job.Steps {
					if strings.HasPrefix(s.Uses, "capreport/capreport@") && s.With["mode"] != "summary" {
						t.Errorf("stage 1 %q runs the action in mode %q, want summary", one.Name, s.With["mode"])
					}
				}
			}
		}
		for j, job := range w.Jobs {
			for _, cond := range []string{
				"github.event.workflow_run.conclusion == 'success'",
				"github.event.workflow_run.conclusion == 'failure'",
				"github.event.workflow_run.event == 'pull_request'",
			} {
				if !strings.Contains(job.If, cond) {
					t.Errorf("%s: job %s runs without `%s`", n, j, cond)
				}
			}
			var downloads, posts int
			for _, s := range job.Steps {
				switch strings.Split(s.Uses, "@")[0] {
				case "actions/checkout":
					t.Errorf("%s: job %s checks out code; stage 2 must never run the pull request's code", n, j)
				case "actions/download-artifact":
					downloads++
					if !strings.Contains(s.With["run-id"], "github.event.workflow_run.id") || s.With["github-token"] == "" {
						t.Errorf("%s: download-artifact must name the run (run-id) and pass github-token: %v", n, s.With)
					}
				case "capreport/capreport":
					posts++
					if s.With["report"] == "" || s.With["base-report"] == "" || s.With["mode"] != "comment" {
						t.Errorf("%s: the action must post the downloaded reports (mode comment, report, base-report): %v", n, s.With)
					}
				}
				if s.Run != "" {
					t.Errorf("%s: job %s runs a script; stage 2 should only download and post", n, j)
				}
			}
			if downloads != 1 || posts != 1 {
				t.Errorf("%s: job %s has %d downloads and %d posts, want one of each", n, j, downloads, posts)
			}
		}
	}
	if stageTwo != 1 {
		t.Errorf("%d workflow_run workflows, want the one second stage", stageTwo)
	}
}
