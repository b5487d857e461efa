package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/testutil"
	ghreport "github.com/capreport/capreport/report/github"
)

// actionFile is the part of action.yml the checks read.
type actionFile struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

// invocation is one `"$CAPREPORT" sub --flag ...` in a step's script.
type invocation struct {
	step, sub string // sub "" is the root command
	flags     []string
	line      string
}

var (
	shellStop = regexp.MustCompile(`\s(?:[0-9]?>|\|\|?|&&|;)`)
	flagRef   = regexp.MustCompile(`(?:^|[\s+])--([a-z][a-z0-9-]*)`)
	inputRef  = regexp.MustCompile(`inputs\.([a-zA-Z0-9_-]+)`)
	stepRef   = regexp.MustCompile(`steps\.([a-zA-Z0-9_-]+)\.outputs\.([a-zA-Z0-9_-]+)`)
	subWord   = regexp.MustCompile(`^[a-z][a-z-]*$`)
)

// invocations finds every capreport command line of the scripts.
func invocations(steps []actionStep) []invocation {
	var out []invocation
	for _, s := range steps {
		script := strings.ReplaceAll(s.Run, "\\\n", " ")
		for _, line := range strings.Split(script, "\n") {
			_, rest, ok := strings.Cut(line, `"$CAPREPORT"`)
			if !ok {
				continue
			}
			if loc := shellStop.FindStringIndex(rest); loc != nil {
				rest = rest[:loc[0]]
			}
			inv := invocation{step: s.Name, line: strings.TrimSpace(line)}
			if f := strings.Fields(rest); len(f) > 0 && subWord.MatchString(f[0]) {
				inv.sub = f[0]
			}
			for _, m := range flagRef.FindAllStringSubmatch(rest, -1) {
				inv.flags = append(inv.flags, m[1])
			}
			out = append(out, inv)
		}
	}
	return out
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

// TestActionMatchesCLI: the action cannot drift from the command tree.
func TestActionMatchesCLI(t *testing.T) {
	a, _ := loadAction(t)
	root := newRootCmd(&streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	invs := invocations(a.Runs.Steps)

	subs := map[string][]string{}
	for _, inv := range invs {
		cmd := root
		if inv.sub != "" {
			c, _, err := root.Find([]string{inv.sub})
			if err != nil || c == root {
				t.Errorf("%s: capreport has no subcommand %q: %s", inv.step, inv.sub, inv.line)
				continue
			}
			cmd = c
		}
		for _, f := range inv.flags {
			if cmd.Flags().Lookup(f) == nil && cmd.InheritedFlags().Lookup(f) == nil {
				t.Errorf("%s: `capreport %s` has no flag --%s: %s", inv.step, inv.sub, f, inv.line)
			}
		}
		subs[inv.sub] = append(subs[inv.sub], inv.flags...)
	}
	// The parser must have found what the action is for, or a change to
	// the scripts could silently check nothing.
	got := make([]string, 0, len(subs))
	for s := range subs {
		got = append(got, s)
	}
	sort.Strings(got)
	if want := []string{"", "comment", "diff", "issue"}; !slices.Equal(got, want) {
		t.Errorf("capreport commands invoked %q, want %q", got, want)
	}
	for sub, want := range map[string][]string{
		"":        {"out", "format", "config", "fail-on"},
		"diff":    {"base-ref", "format", "config"},
		"comment": {"repo", "pr", "behavior", "body-file", "github-api-url"},
		"issue":   {"repo", "title", "label", "body-file", "github-api-url"},
	} {
		for _, f := range want {
			if !slices.Contains(subs[sub], f) {
				t.Errorf("`capreport %s` is not invoked with --%s", sub, f)
			}
		}
	}
}

// TestActionInputsAndSafety: inputs are declared and described, defaults
// are values the CLI accepts, scripts read inputs only through env, and
// each step that runs capreport says where the binary is.
func TestActionInputsAndSafety(t *testing.T) {
	a, raw := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	for name, in := range a.Inputs {
		if strings.TrimSpace(in.Description) == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	for _, want := range []string{"path", "config", "fail-on", "comment-behavior", "mode", "github-token", "sarif"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("input %s is missing", want)
		}
	}
	for _, m := range inputRef.FindAllStringSubmatch(string(raw), -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("inputs.%s is used but not declared", m[1])
		}
	}
	if _, err := ghreport.ParseBehavior(a.Inputs["comment-behavior"].Default); err != nil {
		t.Errorf("comment-behavior default: %v", err)
	}
	if d := a.Inputs["fail-on"].Default; !slices.Contains([]string{config.FailOnError, config.FailOnWarning, config.FailOnNever}, d) {
		t.Errorf("fail-on default %q", d)
	}
	if d := a.Inputs["path"].Default; d != "." {
		t.Errorf("path default %q", d)
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
	for _, s := range a.Runs.Steps {
		if s.Run == "" {
			if s.Uses == "" {
				t.Errorf("step %q neither runs nor uses", s.Name)
			}
			continue
		}
		if s.Shell != "bash" {
			t.Errorf("step %q: a composite run step needs shell: bash", s.Name)
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script; pass it through env", s.Name)
		}
		if strings.Contains(s.Run, `"$CAPREPORT"`) && s.Env["CAPREPORT"] == "" {
			t.Errorf("step %q runs $CAPREPORT without setting it", s.Name)
		}
		if strings.Contains(s.Run, "GITHUB_TOKEN") {
			t.Errorf("step %q mentions the token in its script", s.Name)
		}
	}
	var uses []string
	for _, s := range a.Runs.Steps {
		if s.Uses != "" {
			uses = append(uses, strings.Split(s.Uses, "@")[0])
		}
	}
	for _, want := range []string{"actions/setup-go", "actions/upload-artifact", "github/codeql-action/upload-sarif"} {
		if !slices.Contains(uses, want) {
			t.Errorf("action does not use %s", want)
		}
	}
}

// TestActionInvocationParser: the parser the checks rest on.
func TestActionInvocationParser(t *testing.T) {
	invs := invocations([]actionStep{{Name: "s", Run: "x=1\n" +
		`"$CAPREPORT" diff "$P" --base-ref "$B" \` + "\n" + `  --format markdown ${C:+--config "$C"} > out.md || rc=$? --not-a-flag` + "\n" +
		`"$CAPREPORT" "$P" --out d` + "\n" +
		`echo capreport --ignored`}})
	if len(invs) != 2 ||
		invs[0].sub != "diff" || !slices.Equal(invs[0].flags, []string{"base-ref", "format", "config"}) ||
		invs[1].sub != "" || !slices.Equal(invs[1].flags, []string{"out"}) {
		t.Errorf("%+v", invs)
	}
	// And a drifted action is caught.
	root := newRootCmd(&streams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	c, _, _ := root.Find([]string{"comment"})
	if c.Flags().Lookup("behaviour") != nil || c.Flags().Lookup("behavior") == nil {
		t.Error("flag lookup does not tell a typo from the flag")
	}
}
