package main

// This file runs action.yml for real: its steps in order, their `if:` and
// `env:` expressions evaluated the way the runner does, the `run:` scripts
// under bash with the runner's files and variables, capreport built from
// this checkout, and a stateful fake GitHub API behind it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/capreport/capreport/internal/fakegithub"
	"github.com/capreport/capreport/internal/testutil"
)

// ---- Expressions -------------------------------------------------------

// exprNode is a parsed expression of the subset the action uses: literals,
// context paths (inputs.x, github.event.pull_request.base.sha,
// steps.id.outputs.x, runner.temp), ==, !=, &&, ||, !, parentheses and the
// status functions. Anything else is a parse error, so the harness never
// silently misreads the action.
type exprNode interface {
	eval(c *exprContext) (any, error)
}

type (
	litExpr  struct{ v any }
	pathExpr struct{ path []string }
	notExpr  struct{ x exprNode }
	binExpr  struct {
		op   string
		l, r exprNode
	}
	callExpr struct{ name string }
)

// exprContext is what an expression can see.
type exprContext struct {
	contexts map[string]any // inputs, github, steps, runner
	status   string         // the job's status so far: success, failure or cancelled
}

func (e litExpr) eval(*exprContext) (any, error) { return e.v, nil }

func (e pathExpr) eval(c *exprContext) (any, error) {
	v, ok := lookupKey(c.contexts, e.path[0])
	if !ok {
		return nil, fmt.Errorf("unknown context %q", e.path[0])
	}
	for _, k := range e.path[1:] {
		m, _ := v.(map[string]any)
		v, _ = lookupKey(m, k) // a missing property is null, as on GitHub
	}
	return v, nil
}

// lookupKey reads a property; GitHub's property names ignore case.
func lookupKey(m map[string]any, k string) (any, bool) {
	if v, ok := m[k]; ok {
		return v, true
	}
	for mk, v := range m {
		if strings.EqualFold(mk, k) {
			return v, true
		}
	}
	return nil, false
}

func (e notExpr) eval(c *exprContext) (any, error) {
	v, err := e.x.eval(c)
	return !truthy(v), err
}

func (e binExpr) eval(c *exprContext) (any, error) {
	l, err := e.l.eval(c)
	if err != nil {
		return nil, err
	}
	switch e.op {
	case "&&": // the operand that decides, as on GitHub
		if !truthy(l) {
			return l, nil
		}
		return e.r.eval(c)
	case "||":
		if truthy(l) {
			return l, nil
		}
		return e.r.eval(c)
	}
	r, err := e.r.eval(c)
	if err != nil {
		return nil, err
	}
	eq := looseEqual(l, r)
	if e.op == "!=" {
		return !eq, nil
	}
	return eq, nil
}

func (e callExpr) eval(c *exprContext) (any, error) {
	switch e.name {
	case "always":
		return true, nil
	case "success":
		return c.status == "success", nil
	case "failure":
		return c.status == "failure", nil
	case "cancelled":
		return c.status == "cancelled", nil
	}
	return nil, fmt.Errorf("unsupported function %s()", e.name)
}

// truthy is GitHub's coercion to a boolean.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true // objects and arrays
}

// looseEqual is GitHub's ==: strings ignore case; values of different
// types are compared as numbers.
func looseEqual(a, b any) bool {
	switch a := a.(type) {
	case string:
		if b, ok := b.(string); ok {
			return strings.EqualFold(a, b)
		}
	case bool:
		if b, ok := b.(bool); ok {
			return a == b
		}
	case nil:
		if b == nil {
			return true
		}
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return toNumber(a) == toNumber(b) // NaN is never equal
}

func toNumber(v any) float64 {
	switch v := v.(type) {
	case nil:
		return 0
	case bool:
		if v {
			return 1
		}
		return 0
	case float64:
		return v
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

// exprString is a value as ${{ }} writes it into a string.
func exprString(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	case string:
		return v, nil
	}
	return "", fmt.Errorf("an object or array in a string: %v", v)
}

// usesStatus tells whether an expression calls a status function; an `if:`
// that does not is implicitly `success() && (...)`.
func usesStatus(n exprNode) bool {
	switch n := n.(type) {
	case callExpr:
		return true
	case notExpr:
		return usesStatus(n.x)
	case binExpr:
		return usesStatus(n.l) || usesStatus(n.r)
	}
	return false
}

type exprParser struct {
	src  string
	toks []string
	pos  int
}

// tokenize splits an expression into identifiers, numbers, 'strings' and
// operators.
func tokenizeExpr(src string) ([]string, error) {
	var toks []string
	for i := 0; i < len(src); {
		c := rune(src[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '\'':
			j := i + 1
			for {
				if j >= len(src) {
					return nil, fmt.Errorf("unterminated string in %q", src)
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' { // '' is an escaped quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			toks = append(toks, src[i:j+1])
			i = j + 1
		case unicode.IsLetter(c) || c == '_' || unicode.IsDigit(c):
			j := i
			for j < len(src) && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])) || src[j] == '_' || src[j] == '-') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			if i+1 < len(src) {
				if two := src[i : i+2]; two == "==" || two == "!=" || two == "&&" || two == "||" {
					toks = append(toks, two)
					i += 2
					continue
				}
			}
			if !strings.ContainsRune("!().", c) {
				return nil, fmt.Errorf("unsupported character %q in %q", c, src)
			}
			toks = append(toks, string(c))
			i++
		}
	}
	return toks, nil
}

func parseExpr(src string) (exprNode, error) {
	toks, err := tokenizeExpr(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{src: src, toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("unexpected %q in %q", p.toks[p.pos], src)
	}
	return n, nil
}

func (p *exprParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *exprParser) next() string { t := p.peek(); p.pos++; return t }

func (p *exprParser) or() (exprNode, error)  { return p.binary("||", p.and) }
func (p *exprParser) and() (exprNode, error) { return p.binary("&&", p.cmp) }

func (p *exprParser) binary(op string, operand func() (exprNode, error)) (exprNode, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.peek() == op {
		p.next()
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *exprParser) cmp() (exprNode, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	if op := p.peek(); op == "==" || op == "!=" {
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		return binExpr{op: op, l: l, r: r}, nil
	}
	return l, nil
}

func (p *exprParser) unary() (exprNode, error) {
	if p.peek() == "!" {
		p.next()
		x, err := p.unary()
		return notExpr{x}, err
	}
	return p.primary()
}

func (p *exprParser) primary() (exprNode, error) {
	t := p.next()
	switch {
	case t == "":
		return nil, fmt.Errorf("unexpected end of %q", p.src)
	case t == "(":
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.next() != ")" {
			return nil, fmt.Errorf("missing ) in %q", p.src)
		}
		return n, nil
	case strings.HasPrefix(t, "'"):
		return litExpr{strings.ReplaceAll(t[1:len(t)-1], "''", "'")}, nil
	case t == "true" || t == "false":
		return litExpr{t == "true"}, nil
	case t == "null":
		return litExpr{nil}, nil
	case unicode.IsDigit(rune(t[0])):
		f, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("bad number %q in %q", t, p.src)
		}
		return litExpr{f}, nil
	case unicode.IsLetter(rune(t[0])) || t[0] == '_':
		if p.peek() == "(" {
			p.next()
			if p.next() != ")" {
				return nil, fmt.Errorf("%s(): arguments are not supported in %q", t, p.src)
			}
			switch t {
			case "always", "success", "failure", "cancelled":
				return callExpr{t}, nil
			}
			return nil, fmt.Errorf("unsupported function %s() in %q", t, p.src)
		}
		path := []string{t}
		for p.peek() == "." {
			p.next()
			k := p.next()
			if k == "" || !(unicode.IsLetter(rune(k[0])) || k[0] == '_') {
				return nil, fmt.Errorf("bad property %q in %q", k, p.src)
			}
			path = append(path, k)
		}
		return pathExpr{path}, nil
	}
	return nil, fmt.Errorf("unexpected %q in %q", t, p.src)
}

// evalExpr parses and evaluates one expression.
func evalExpr(src string, c *exprContext) (any, error) {
	n, err := parseExpr(src)
	if err != nil {
		return nil, err
	}
	return n.eval(c)
}

// interpolate replaces each ${{ expr }} of s with its value.
func interpolate(s string, c *exprContext) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated ${{ in %q", s)
		}
		v, err := evalExpr(s[i+3:i+j], c)
		if err != nil {
			return "", err
		}
		str, err := exprString(v)
		if err != nil {
			return "", err
		}
		b.WriteString(s[:i])
		b.WriteString(str)
		s = s[i+j+2:]
	}
}

// evalIf evaluates a step's `if:`: empty means success(), a condition
// without a status function is ANDed with success(), and the whole may
// be wrapped in ${{ }}.
func evalIf(cond string, c *exprContext) (bool, error) {
	cond = strings.TrimSpace(cond)
	if strings.HasPrefix(cond, "${{") && strings.HasSuffix(cond, "}}") {
		cond = cond[3 : len(cond)-2]
	}
	if strings.TrimSpace(cond) == "" {
		cond = "success()"
	}
	n, err := parseExpr(cond)
	if err != nil {
		return false, err
	}
	if !usesStatus(n) {
		n = binExpr{op: "&&", l: callExpr{"success"}, r: n}
	}
	v, err := n.eval(c)
	return truthy(v), err
}

// ---- The runner --------------------------------------------------------

// actionJob is one run of the action: the event, the inputs and the world.
type actionJob struct {
	event     string         // github.event_name
	payload   map[string]any // the event, as GITHUB_EVENT_PATH holds it
	inputs    map[string]string
	token     string // github.token
	workspace string // the checkout
	runID     string
	attempt   string
	api       *fakegithub.Server
	binary    string // a capreport built from this checkout, copied into RUNNER_TEMP first
	// actionRef and actionRepository are github.action_ref and
	// github.action_repository; empty, as for a local action, the install
	// step finds no release and the action builds from source.
	actionRef, actionRepository string
}

type stepResult struct {
	step           actionStep
	ran            bool
	outcome        string // success, failure or skipped
	env, with      map[string]string
	stdout, stderr string
	outputs        map[string]string
	summary        string
}

type jobResult struct {
	steps      []stepResult
	summary    string // the job summary: every step's, in order
	outputs    map[string]string
	status     string // success or failure
	runnerTemp string
}

// step returns the result of the step with id or name.
func (r jobResult) step(t *testing.T, key string) stepResult {
	t.Helper()
	for _, s := range r.steps {
		if s.step.ID == key || s.step.Name == key {
			return s
		}
	}
	t.Fatalf("no step %q", key)
	return stepResult{}
}

// log is every step's output, for failure messages.
func (r jobResult) log() string {
	var b strings.Builder
	for _, s := range r.steps {
		fmt.Fprintf(&b, "--- %s: %s\n", s.step.title(), s.outcome)
		if s.stdout != "" {
			fmt.Fprintf(&b, "stdout:\n%s\n", strings.TrimRight(s.stdout, "\n"))
		}
		if s.stderr != "" {
			fmt.Fprintf(&b, "stderr:\n%s\n", strings.TrimRight(s.stderr, "\n"))
		}
	}
	return b.String()
}

const (
	fakeOwner = "o"
	fakeRepo  = "r"
	fakeRunID = "4242"
)

// runAction runs action.yml's steps for job, as the runner would.
func runAction(t *testing.T, job actionJob) jobResult {
	t.Helper()
	a, _ := loadAction(t)
	actionPath := testutil.RepoRoot(t)
	runnerTemp := t.TempDir()
	files := t.TempDir() // the runner's own files: event, scripts, outputs
	if job.binary != "" {
		copyFile(t, job.binary, filepath.Join(runnerTemp, "capreport"), 0o755)
	}

	eventPath := filepath.Join(files, "event.json")
	payload, err := json.Marshal(job.payload)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, eventPath, string(payload))
	event := map[string]any{}
	if err := json.Unmarshal(payload, &event); err != nil { // numbers as float64, as expressions see them
		t.Fatal(err)
	}

	apiURL := strings.TrimSuffix(job.api.URL, "/") // Actions sets them without the slash
	serverURL := strings.TrimSuffix(job.api.ServerURL, "/")
	repository := fakeOwner + "/" + fakeRepo
	github := map[string]any{
		"event_name":        job.event,
		"event":             event,
		"event_path":        eventPath,
		"repository":        repository,
		"repository_owner":  fakeOwner,
		"token":             job.token,
		"action_path":       actionPath,
		"workspace":         job.workspace,
		"run_id":            job.runID,
		"run_attempt":       job.attempt,
		"server_url":        serverURL,
		"action_ref":        job.actionRef,
		"action_repository": job.actionRepository,
		"api_url":           apiURL,
		"graphql_url":       job.api.GraphQLURL,
	}
	steps := map[string]any{}
	ctx := &exprContext{
		contexts: map[string]any{
			"github": github,
			"runner": map[string]any{"temp": runnerTemp, "os": "Linux", "arch": "X64"},
			"steps":  steps,
		},
		status: "success",
	}

	// Inputs: the job's, else the default (which may be an expression).
	for k := range job.inputs {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("the job passes input %q, which action.yml does not declare", k)
		}
	}
	inputs := map[string]any{}
	for k, in := range a.Inputs {
		v, ok := job.inputs[k]
		if !ok {
			if v, err = interpolate(in.Default, ctx); err != nil {
				t.Fatalf("input %s default: %v", k, err)
			}
		}
		inputs[k] = v
	}
	ctx.contexts["inputs"] = inputs

	runnerEnv := append(harnessEnv(t),
		"CI=true",
		"GITHUB_ACTIONS=true",
		"GITHUB_ACTION_PATH="+actionPath,
		"GITHUB_WORKSPACE="+job.workspace,
		"GITHUB_EVENT_NAME="+job.event,
		"GITHUB_EVENT_PATH="+eventPath,
		"GITHUB_REPOSITORY="+repository,
		"GITHUB_REPOSITORY_OWNER="+fakeOwner,
		"GITHUB_API_URL="+apiURL,
		"GITHUB_GRAPHQL_URL="+job.api.GraphQLURL,
		"GITHUB_SERVER_URL="+serverURL,
		"GITHUB_RUN_ID="+job.runID,
		"GITHUB_RUN_ATTEMPT="+job.attempt,
		"RUNNER_TEMP="+runnerTemp,
		"RUNNER_OS=Linux",
		"RUNNER_ARCH=X64",
	)

	res := jobResult{runnerTemp: runnerTemp}
	for i, s := range a.Runs.Steps {
		r := stepResult{step: s, outcome: "skipped", outputs: map[string]string{}}
		run, err := evalIf(s.If, ctx)
		if err != nil {
			t.Fatalf("step %q: if %q: %v", s.title(), s.If, err)
		}
		if run {
			r.ran = true
			r.env = evalMap(t, s, "env", s.Env, ctx)
			r.with = evalMap(t, s, "with", s.With, ctx)
			switch {
			case s.Run != "":
				runScript(t, &r, i, files, job.workspace, runnerEnv, ctx)
			case s.Uses != "":
				checkUses(t, &r)
			default:
				t.Fatalf("step %q neither runs nor uses", s.title())
			}
			if r.outcome == "failure" {
				ctx.status = "failure"
			}
			res.summary += r.summary
		}
		if s.ID != "" {
			outs := map[string]any{}
			for k, v := range r.outputs {
				outs[k] = v
			}
			steps[s.ID] = map[string]any{"outputs": outs, "outcome": r.outcome, "conclusion": r.outcome}
		}
		res.steps = append(res.steps, r)
	}
	res.status = ctx.status
	res.outputs = map[string]string{}
	for k, o := range a.Outputs {
		v, err := interpolate(o.Value, ctx)
		if err != nil {
			t.Fatalf("output %s: %v", k, err)
		}
		res.outputs[k] = v
	}
	return res
}

func evalMap(t *testing.T, s actionStep, what string, m map[string]string, ctx *exprContext) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range m {
		var err error
		if out[k], err = interpolate(v, ctx); err != nil {
			t.Fatalf("step %q: %s.%s: %v", s.title(), what, k, err)
		}
	}
	return out
}

// runScript runs a `run:` step as the runner runs `shell: bash`: bash
// --noprofile --norc -eo pipefail on a script file, in the workspace or
// the working directory, with fresh GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
// files, the runner's variables and the step's env.
func runScript(t *testing.T, r *stepResult, i int, files, workspace string, runnerEnv []string, ctx *exprContext) {
	t.Helper()
	if r.step.Shell != "bash" {
		t.Fatalf("step %q: shell %q; the harness runs bash only", r.step.title(), r.step.Shell)
	}
	script := filepath.Join(files, fmt.Sprintf("step-%d.sh", i))
	output := filepath.Join(files, fmt.Sprintf("output-%d", i))
	summary := filepath.Join(files, fmt.Sprintf("summary-%d.md", i))
	writeFile(t, script, r.step.Run)
	writeFile(t, output, "")
	writeFile(t, summary, "")

	dir := workspace
	if wd, err := interpolate(r.step.WorkingDirectory, ctx); err != nil {
		t.Fatalf("step %q: working-directory: %v", r.step.title(), err)
	} else if wd != "" {
		dir = wd
		if !filepath.IsAbs(wd) {
			dir = filepath.Join(workspace, wd)
		}
	}

	env := slices.Clone(runnerEnv)
	env = append(env, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary)
	for _, k := range slices.Sorted(maps.Keys(r.env)) {
		env = append(env, k+"="+r.env[k]) // the step's env wins (last one counts)
	}

	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(c, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	r.outcome = "success"
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("step %q: %v", r.step.title(), err)
		}
		r.outcome = "failure"
	}
	// The runner reads the files whatever the outcome.
	raw, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	if r.outputs, err = parseOutputFile(string(raw)); err != nil {
		t.Errorf("step %q: GITHUB_OUTPUT: %v\n%s", r.step.title(), err, raw)
	}
	sum, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	r.summary = string(sum)
}

// parseOutputFile reads GITHUB_OUTPUT: name=value lines and
// name<<DELIMITER blocks.
func parseOutputFile(s string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, heredoc := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case heredoc > 0 && (eq < 0 || heredoc < eq):
			name, delim := line[:heredoc], line[heredoc+2:]
			if delim == "" {
				return nil, fmt.Errorf("line %d: empty delimiter", i+1)
			}
			var body []string
			for i++; ; i++ {
				if i >= len(lines) {
					return nil, fmt.Errorf("%s: no closing %s", name, delim)
				}
				if lines[i] == delim {
					break
				}
				body = append(body, lines[i])
			}
			out[name] = strings.Join(body, "\n")
		case eq > 0:
			out[line[:eq]] = line[eq+1:]
		default:
			return nil, fmt.Errorf("line %d: %q is neither name=value nor name<<DELIMITER", i+1, line)
		}
	}
	return out, nil
}

// checkUses records a `uses:` step without running it, after checking
// what it would have been given.
func checkUses(t *testing.T, r *stepResult) {
	t.Helper()
	r.outcome = "success"
	switch name := strings.Split(r.step.Uses, "@")[0]; name {
	case "actions/setup-go":
		// Nothing to check: Go is on the PATH already.
	case "actions/cache":
		// The Go caches of the build, or capreport's (fetched charts,
		// renders and bills; keyed by the lock files and the commit).
		key := r.with["key"]
		if strings.TrimSpace(r.with["path"]) == "" || !(strings.HasPrefix(key, "capreport-go-") || strings.HasPrefix(key, "capreport-cache-")) {
			t.Errorf("cache: path %q key %q", r.with["path"], key)
		}
	case "actions/upload-artifact":
		if _, err := os.Stat(r.with["path"]); err != nil {
			t.Errorf("upload-artifact: path %q: %v", r.with["path"], err)
		}
	case "github/codeql-action/upload-sarif":
		if _, err := os.Stat(r.with["sarif_file"]); err != nil {
			t.Errorf("upload-sarif: %v", err)
		}
	default:
		t.Errorf("step %q uses %s, which the harness does not know", r.step.title(), name)
	}
}

// goEnv is the Go configuration of this test, asked once.
var goEnv = sync.OnceValues(func() ([]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "CGO_ENABLED").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %v", err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(v) != 4 {
		return nil, fmt.Errorf("go env: %q", out)
	}
	return []string{"GOCACHE=" + v[0], "GOMODCACHE=" + v[1], "GOPATH=" + v[2], "CGO_ENABLED=" + v[3]}, nil
})

// harnessEnv is the environment every step starts from: PATH, the Go
// caches of this test (so the action's build reuses them, offline), a
// HOME of its own and no git configuration of the machine.
func harnessEnv(t *testing.T) []string {
	t.Helper()
	g, err := goEnv()
	if err != nil {
		t.Fatal(err)
	}
	return append(slices.Clone(g),
		"PATH="+os.Getenv("PATH"),
		"HOME="+t.TempDir(),
		"TMPDIR="+os.TempDir(),
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"LANG=C.UTF-8",
	)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// ---- The world ----------------------------------------------------------

// shopRepo makes a git repository of examples/shop with two commits: the
// base, then a head that runs the prod API's autoscaler cooler (CPU target
// 80% → 60%). It returns the directory and both commits.
func shopRepo(t *testing.T) (dir, base, head string) {
	t.Helper()
	return shopRepoWith(t, shopEdit{"overlays/prod/hpa-target.yaml", "averageUtilization: 80", "averageUtilization: 60", "prod API: CPU target 60%"})
}

// shopEdit is the head commit of shopRepoWith: old replaced by new in file.
type shopEdit struct{ file, old, new, message string }

// webFails makes the chart's web autoscaler, which passes in the base,
// miss its latency target (it takes 39 s; the target becomes 10 s).
var webFails = shopEdit{"charts/web/values.yaml", "capreport.io/latency-target: 10m", "capreport.io/latency-target: 10s", "web: latency target 10s"}

// shopRepoWith is examples/shop as a git repository: the base commit, then
// a head commit making edit.
func shopRepoWith(t *testing.T, edit shopEdit) (dir, base, head string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "workspace")
	src := filepath.Join(testutil.RepoRoot(t), "examples", "shop")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	env := append(harnessEnv(t), "GIT_AUTHOR_DATE=2026-01-05T10:00:00Z", "GIT_COMMITTER_DATE=2026-01-05T10:00:00Z")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=capreport test",
			"-c", "user.email=test@capreport.invalid", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	base = git("rev-parse", "HEAD")

	target := filepath.Join(dir, filepath.FromSlash(edit.file))
	b, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), edit.old, edit.new, 1)
	if changed == string(b) {
		t.Fatalf("examples/shop/%s no longer holds %q", edit.file, edit.old)
	}
	writeFile(t, target, changed)
	git("commit", "-q", "-am", edit.message)
	head = git("rev-parse", "HEAD")
	return dir, base, head
}

// changedID is the autoscaler the head changes.
const changedID = "shop/HorizontalPodAutoscaler/api"

func pullRequestEvent(number int, headRepo, base, head string) map[string]any {
	owner, _, _ := strings.Cut(headRepo, "/")
	return map[string]any{
		"action": "synchronize",
		"number": number,
		"pull_request": map[string]any{
			"number": number,
			"head": map[string]any{"ref": "feature", "sha": head,
				"repo": map[string]any{"full_name": headRepo, "fork": headRepo != fakeOwner+"/"+fakeRepo, "owner": map[string]any{"login": owner}}},
			"base": map[string]any{"ref": "main", "sha": base,
				"repo": map[string]any{"full_name": fakeOwner + "/" + fakeRepo}},
		},
		"repository": map[string]any{"full_name": fakeOwner + "/" + fakeRepo, "name": fakeRepo, "owner": map[string]any{"login": fakeOwner}},
	}
}

// buildCapreport builds capreport once for the scenarios. Each scenario
// copies it into its RUNNER_TEMP before the action's own build step runs
// `go build -o $RUNNER_TEMP/capreport`, which then finds the binary up to
// date and skips the link: the step still runs for real, in seconds.
func buildCapreport(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "capreport")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/capreport")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Env = append(harnessEnv(t), "GOFLAGS=-mod=readonly", "GOWORK=off") // the build step's env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/capreport: %v\n%s", err, out)
	}
	return bin
}

// checkToken asserts the token went only into the Authorization header of
// requests, and nowhere in any step's output, the outputs or the summary.
func checkToken(t *testing.T, token string, res jobResult, api *fakegithub.Server) {
	t.Helper()
	for _, r := range api.Requests() {
		where := r.Method + " " + r.Path
		if strings.Contains(r.Path, token) || strings.Contains(r.RawQuery, token) || bytes.Contains(r.Body, []byte(token)) {
			t.Errorf("%s: the token is in the URL or the body", where)
		}
		for k, vs := range r.Header {
			for _, v := range vs {
				if !strings.Contains(v, token) {
					continue
				}
				if k != "Authorization" || (v != "Bearer "+token && v != "token "+token) {
					t.Errorf("%s: the token is in header %s", where, k)
				}
			}
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+token && got != "token "+token {
			t.Errorf("%s: Authorization %q does not carry the job's token", where, got)
		}
	}
	for _, s := range res.steps {
		if strings.Contains(s.stdout, token) || strings.Contains(s.stderr, token) {
			t.Errorf("step %q printed the token", s.step.title())
		}
		for k, v := range s.outputs {
			if strings.Contains(v, token) {
				t.Errorf("step %q: output %s holds the token", s.step.title(), k)
			}
		}
		for k, v := range s.env {
			if strings.Contains(v, token) && (k != "GITHUB_TOKEN" || !slices.Contains([]string{"comment", "issue"}, s.step.ID)) {
				t.Errorf("step %q gets the token as %s", s.step.title(), k)
			}
		}
	}
	if strings.Contains(res.summary, token) {
		t.Error("the job summary holds the token")
	}
	for k, v := range res.outputs {
		if strings.Contains(v, token) {
			t.Errorf("the action's output %s holds the token", k)
		}
	}
}

// ranSteps lists the ids (else names) of the steps that ran.
func ranSteps(res jobResult) []string {
	var out []string
	for _, s := range res.steps {
		if s.ran {
			out = append(out, s.step.title())
		}
	}
	return out
}

// ---- Scenarios ----------------------------------------------------------

func TestActionRun(t *testing.T) {
	testutil.SkipIfShort(t)
	bin := buildCapreport(t)
	const (
		writeToken = "ghs_writeTOKEN0123456789abcdef"
		readToken  = "ghs_readonlyTOKEN0123456789abc"
	)
	perms := map[string]fakegithub.Permissions{
		writeToken: {PullRequests: "write", Issues: "write", Contents: "read"},
		readToken:  {PullRequests: "read", Issues: "read", Contents: "read"},
	}

	t.Run("pull request comment, then a re-run", func(t *testing.T) {
		t.Parallel()
		ws, base, head := shopRepo(t)
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 7, HeadOwner: fakeOwner, HeadRepo: fakeRepo, HeadRef: "feature", HeadSHA: head, BaseRef: "main"}}})
		job := actionJob{event: "pull_request", payload: pullRequestEvent(7, fakeOwner+"/"+fakeRepo, base, head),
			token: writeToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin}

		// (a) The first run creates the comment. The shop fails its
		// latency targets by design, in the base as in the head: the
		// change makes nothing fail that did not fail before, so the job
		// passes (fail-on-scope new, the default).
		res := runAction(t, job)
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		want := []string{"capreport mode", "Install capreport", "Set up Go for capreport", "Locate the Go caches", "Cache Go for capreport", "Build capreport from the action's source",
			"Cache of fetched charts, renders and bills", "capreport (head)", "capreport (base)", "capreport comment", "Upload the capreport artifact", "capreport verdict"}
		if got := ranSteps(res); !slices.Equal(got, want) {
			t.Errorf("steps run %q, want %q", got, want)
		}
		if c := res.step(t, "comment"); c.outcome != "success" {
			t.Errorf("the comment step failed")
		}
		if v := res.step(t, "capreport verdict"); v.outcome != "success" {
			t.Errorf("the verdict step: %s, stdout %q; want success (the failures were there before)", v.outcome, v.stdout)
		}
		if res.status != "success" {
			t.Errorf("job %s, want success (nothing newly fails)", res.status)
		}
		comments := api.Comments(7)
		if len(comments) != 1 {
			t.Fatalf("%d comments on #7, want 1", len(comments))
		}
		if body := comments[0].Body; !strings.HasPrefix(body, "<!-- capreport -->") || !strings.Contains(body, changedID) {
			t.Errorf("the comment does not start with the marker or does not name %s:\n%s", changedID, body)
		}
		if !strings.Contains(res.summary, changedID) {
			t.Errorf("the job summary does not hold the report:\n%s", res.summary)
		}
		// The shop fails its targets by design.
		if res.outputs["verdict"] != "fail" || res.outputs["comment-url"] == "" {
			t.Errorf("outputs %v: want verdict fail and the comment's URL", res.outputs)
		}
		if _, err := os.Stat(res.outputs["report"]); err != nil {
			t.Errorf("output report %q: %v", res.outputs["report"], err)
		}
		checkToken(t, writeToken, res, api)

		// (b) A re-run of the same run writes nothing; with fail-on-scope
		// all, the failures already there fail the job, as they did
		// before the scope existed.
		writes := len(api.Writes())
		job.attempt, job.inputs = "2", map[string]string{"fail-on-scope": "all"}
		res = runAction(t, job)
		if w := api.Writes(); len(w) != writes {
			t.Errorf("the re-run wrote %d times: %s %s", len(w)-writes, w[len(w)-1].Method, w[len(w)-1].Path)
		}
		if v := res.step(t, "capreport verdict"); v.outcome != "failure" || !strings.Contains(v.stdout, "::error::") {
			t.Errorf("the verdict step: %s, stdout %q; want a failure with an error annotation", v.outcome, v.stdout)
		}
		if res.status != "failure" || len(api.Comments(7)) != 1 {
			t.Errorf("re-run: job %s, %d comments; want failure (a check fails at fail-on error) and still 1", res.status, len(api.Comments(7)))
		}
		checkToken(t, writeToken, res, api)

	})

	t.Run("a pull request that changes no autoscaler", func(t *testing.T) {
		t.Parallel()
		// A comment in a values file: the manifests render the same.
		ws, base, head := shopRepoWith(t, shopEdit{"charts/web/values.yaml", "capreport.io/overload: 3x,10x", "capreport.io/overload: 3x,10x # reviewed", "web: a comment"})
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 9, HeadOwner: fakeOwner, HeadRepo: fakeRepo, HeadRef: "docs", HeadSHA: head, BaseRef: "main"}}})
		job := actionJob{event: "pull_request", payload: pullRequestEvent(9, fakeOwner+"/"+fakeRepo, base, head),
			token: writeToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin}
		res := runAction(t, job)
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		// The shop's failures were there before: green, and no comment.
		if res.status != "success" || len(api.Comments(9)) != 0 || len(api.Writes()) != 0 {
			t.Errorf("job %s, %d comments, %d writes; want success and nothing written", res.status, len(api.Comments(9)), len(api.Writes()))
		}
		if !strings.Contains(res.summary, "No autoscaler changed") {
			t.Errorf("the job summary does not say nothing changed:\n%.500s", res.summary)
		}
		// comment-when: always comments all the same.
		job.attempt, job.inputs = "2", map[string]string{"comment-when": "always"}
		if res = runAction(t, job); res.status != "success" || len(api.Comments(9)) != 1 {
			t.Errorf("always: job %s, %d comments; want success and 1", res.status, len(api.Comments(9)))
		}
	})

	t.Run("a pull request that makes a failing bill dearer", func(t *testing.T) {
		t.Parallel()
		// The prod API fails in the base already; a 90 % CPU target makes
		// its bill dearer without a new failure: green by default, red
		// under a team's gate on bills, and the comment names the bill.
		ws, base, head := shopRepoWith(t, shopEdit{"overlays/prod/hpa-target.yaml", "averageUtilization: 80", "averageUtilization: 90", "prod API: CPU target 90%"})
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 11, HeadOwner: fakeOwner, HeadRepo: fakeRepo, HeadRef: "hot", HeadSHA: head, BaseRef: "main"}}})
		job := actionJob{event: "pull_request", payload: pullRequestEvent(11, fakeOwner+"/"+fakeRepo, base, head),
			token: writeToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin}
		res := runAction(t, job)
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		if res.status != "success" || res.outputs["worse"] != "0" {
			t.Errorf("without the gate: job %s, worse=%q; want success and 0", res.status, res.outputs["worse"])
		}
		job.attempt, job.inputs = "2", map[string]string{"fail-on-worse": "10"}
		res = runAction(t, job)
		if v := res.step(t, "capreport verdict"); v.outcome != "failure" || !strings.Contains(v.stdout, "1 autoscaler bill(s) grew by more than fail-on-worse (10 %)") {
			t.Errorf("the verdict step: %s, stdout %q; want a failure naming the bill gate", v.outcome, v.stdout)
		}
		if res.status != "failure" || res.outputs["worse"] != "1" {
			t.Errorf("with the gate: job %s, worse=%q; want failure and 1", res.status, res.outputs["worse"])
		}
		if c := api.Comments(11); len(c) != 1 || !strings.Contains(c[0].Body, "📈 1 bill grew more than 10 %: "+changedID) {
			t.Errorf("the comment does not name the bill past the gate:\n%v", c)
		}
	})

	t.Run("a pull request that makes another autoscaler fail", func(t *testing.T) {
		t.Parallel()
		ws, base, head := shopRepoWith(t, webFails)
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 8, HeadOwner: fakeOwner, HeadRepo: fakeRepo, HeadRef: "web", HeadSHA: head, BaseRef: "main"}}})
		res := runAction(t, actionJob{event: "pull_request", payload: pullRequestEvent(8, fakeOwner+"/"+fakeRepo, base, head),
			token: writeToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin})
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		if v := res.step(t, "capreport verdict"); v.outcome != "failure" || !strings.Contains(v.stdout, "that did not fail in the base") {
			t.Errorf("the verdict step: %s, stdout %q; want a failure naming what newly fails", v.outcome, v.stdout)
		}
		if res.status != "failure" || len(api.Comments(8)) != 1 {
			t.Errorf("job %s, %d comments; want failure and the comment", res.status, len(api.Comments(8)))
		}
		if body := api.Comments(8)[0].Body; !strings.Contains(body, "capreport-web") {
			t.Errorf("the comment does not name the web autoscaler:\n%s", body)
		}
	})

	t.Run("read-only token", func(t *testing.T) {
		t.Parallel()
		ws, base, head := shopRepo(t)
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 7, HeadOwner: fakeOwner, HeadRepo: fakeRepo, HeadRef: "feature", HeadSHA: head, BaseRef: "main"}}})
		res := runAction(t, actionJob{event: "pull_request", payload: pullRequestEvent(7, fakeOwner+"/"+fakeRepo, base, head),
			token: readToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin})
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		c := res.step(t, "comment")
		if c.outcome != "failure" || !strings.Contains(c.stdout+c.stderr, "pull-requests: write") {
			t.Errorf("comment step %s; want a failure naming pull-requests: write:\n%s%s", c.outcome, c.stdout, c.stderr)
		}
		if res.status != "failure" {
			t.Errorf("job %s, want failure", res.status)
		}
		if len(api.Comments(7)) != 0 {
			t.Error("a comment was posted with a read-only token")
		}
		// The report is kept: the summary, the files and the artifact.
		if !strings.Contains(res.summary, changedID) {
			t.Errorf("the job summary does not hold the report:\n%s", res.summary)
		}
		dir := res.step(t, "mode").outputs["dir"]
		if _, err := os.Stat(filepath.Join(dir, "head", "report.json")); err != nil {
			t.Errorf("head/report.json: %v", err)
		}
		if up := res.step(t, "Upload the capreport artifact"); !up.ran {
			t.Error("the artifact was not uploaded")
		}
		// The outputs are set before posting, so a failed post keeps them.
		if res.outputs["verdict"] != "fail" || res.outputs["report"] == "" {
			t.Errorf("outputs %v: want verdict fail and the report's path", res.outputs)
		}
		checkToken(t, readToken, res, api)
	})

	t.Run("scheduled issue", func(t *testing.T) {
		t.Parallel()
		ws, _, _ := shopRepo(t)
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms})
		res := runAction(t, actionJob{event: "schedule", payload: map[string]any{"schedule": "0 6 * * 1"},
			inputs: map[string]string{"mode": "issue", "issue-label": "capreport", "fail-on": "never"},
			token:  writeToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin})
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		want := []string{"capreport mode", "Install capreport", "Set up Go for capreport", "Locate the Go caches", "Cache Go for capreport", "Build capreport from the action's source",
			"Cache of fetched charts, renders and bills", "capreport (head)", "capreport issue", "Upload the capreport artifact", "capreport verdict"}
		if got := ranSteps(res); !slices.Equal(got, want) {
			t.Errorf("steps run %q, want %q", got, want)
		}
		if res.status != "success" {
			t.Errorf("job %s, want success (fail-on never)", res.status)
		}
		issues := api.Issues()
		if len(issues) != 1 || !slices.Contains(issues[0].Labels, "capreport") || issues[0].State != "open" {
			t.Fatalf("issues %+v, want one open issue labelled capreport", issues)
		}
		if !strings.HasPrefix(issues[0].Body, "<!-- capreport -->") || !strings.Contains(issues[0].Body, changedID) {
			t.Errorf("the issue's body:\n%s", issues[0].Body)
		}
		if res.outputs["issue-url"] == "" || res.outputs["verdict"] == "" || strings.TrimSpace(res.summary) == "" {
			t.Errorf("outputs %v, summary %d bytes", res.outputs, len(res.summary))
		}
		checkToken(t, writeToken, res, api)
	})

	t.Run("pull request from a fork", func(t *testing.T) {
		t.Parallel()
		ws, base, head := shopRepo(t)
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 9, HeadOwner: "someone", HeadRepo: fakeRepo, HeadRef: "feature", HeadSHA: head, BaseRef: "main"}}})
		res := runAction(t, actionJob{event: "pull_request", payload: pullRequestEvent(9, "someone/"+fakeRepo, base, head),
			token: readToken, workspace: ws, runID: fakeRunID, attempt: "1", api: api, binary: bin})
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		if m := res.step(t, "mode"); !strings.Contains(m.stdout, "::notice::") || !strings.Contains(m.stdout, "two-stage") {
			t.Errorf("no notice pointing at the two-stage workflow: %q", m.stdout)
		}
		if c := res.step(t, "comment"); c.ran {
			t.Error("the comment step ran for a fork")
		}
		if s := res.step(t, "summary"); s.outcome != "success" {
			t.Error("the summary step did not run, or failed")
		}
		if !strings.Contains(res.summary, changedID) {
			t.Errorf("the job summary does not hold the change:\n%s", res.summary)
		}
		if r := api.Requests(); len(r) != 0 {
			t.Errorf("%d requests to GitHub from a fork's run, want none", len(r))
		}
		if _, err := os.Stat(filepath.Join(res.step(t, "mode").outputs["dir"], "base.json")); err != nil {
			t.Errorf("base.json for stage 2: %v", err)
		}
		checkToken(t, readToken, res, api)
	})

	t.Run("fork pair: stage 2 posts the artifact's reports", func(t *testing.T) {
		t.Parallel()
		// Stage 1's artifact, made here by capreport itself.
		ws, base, head := shopRepo(t)
		artifact := t.TempDir()
		for _, args := range [][]string{
			{".", "--out", filepath.Join(artifact, "head"), "--fail-on", "never"},
			{".", "--ref", base, "--format", "json", "--fail-on", "never"},
		} {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = ws, harnessEnv(t)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("capreport %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			if slices.Contains(args, "--ref") {
				writeFile(t, filepath.Join(artifact, "base.json"), stdout.String())
			}
		}
		// Stage 2 checks out nothing: its workspace is empty.
		api := fakegithub.New(t, fakegithub.Config{Owner: fakeOwner, Repo: fakeRepo, Tokens: perms,
			PullRequests: []fakegithub.PullRequest{{Number: 9, HeadOwner: "someone", HeadRepo: fakeRepo, HeadRef: "feature", HeadSHA: head, BaseRef: "main"}}})
		event := map[string]any{
			"action": "completed",
			"workflow_run": map[string]any{
				"id": 1001, "event": "pull_request", "conclusion": "success", "status": "completed",
				"head_branch": "feature", "head_sha": head,
				"head_repository": map[string]any{"full_name": "someone/" + fakeRepo, "owner": map[string]any{"login": "someone"}, "name": fakeRepo},
				"repository":      map[string]any{"full_name": fakeOwner + "/" + fakeRepo},
				// What a fork could put here is never trusted.
				"pull_requests": []any{},
			},
			"repository": map[string]any{"full_name": fakeOwner + "/" + fakeRepo, "name": fakeRepo, "owner": map[string]any{"login": fakeOwner}},
		}
		res := runAction(t, actionJob{event: "workflow_run", payload: event,
			inputs: map[string]string{
				"mode": "comment", "fail-on": "never",
				"report":      filepath.Join(artifact, "head", "report.json"),
				"base-report": filepath.Join(artifact, "base.json"),
			},
			token: writeToken, workspace: t.TempDir(), runID: fakeRunID, attempt: "1", api: api, binary: bin})
		defer func() {
			if t.Failed() {
				t.Logf("job log:\n%s", res.log())
			}
		}()
		want := []string{"capreport mode", "Install capreport", "Set up Go for capreport", "Locate the Go caches", "Cache Go for capreport", "Build capreport from the action's source", "capreport comment", "capreport verdict"}
		if got := ranSteps(res); !slices.Equal(got, want) {
			t.Errorf("steps run %q, want %q", got, want)
		}
		comments := api.Comments(9)
		if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "<!-- capreport -->") || !strings.Contains(comments[0].Body, changedID) {
			t.Errorf("comments on #9: %+v; want one naming %s", comments, changedID)
		}
		if res.status != "success" || res.outputs["report"] != filepath.Join(artifact, "head", "report.json") {
			t.Errorf("job %s, outputs %v", res.status, res.outputs)
		}
		checkToken(t, writeToken, res, api)
	})
}

// TestActionExpressions: the evaluator the harness rests on.
func TestActionExpressions(t *testing.T) {
	ctx := &exprContext{status: "success", contexts: map[string]any{
		"inputs": map[string]any{"mode": "", "fail-on": "error", "report": "r.json"},
		"github": map[string]any{"event_name": "pull_request", "event": map[string]any{
			"pull_request": map[string]any{"number": 7.0, "head": map[string]any{"repo": map[string]any{"full_name": "O/R"}}}}},
		"steps": map[string]any{"mode": map[string]any{"outputs": map[string]any{"post": "comment"}}},
	}}
	for expr, want := range map[string]any{
		"inputs.fail-on":                                         "error",
		"inputs.mode || 'summary'":                               "summary",
		"inputs.report && inputs.fail-on":                        "error",
		"inputs.mode && inputs.fail-on":                          "",
		"github.event.pull_request.number == '7'":                true,
		"github.event.pull_request.head.repo.full_name == 'o/r'": true, // strings ignore case
		"github.event.pull_request.base.sha":                     nil,  // a missing property is null
		"github.event.pull_request.base.sha == ''":               true,
		"!(steps.mode.outputs.post != 'comment')":                true,
		"steps.nope.outputs.x != ''":                             false,
		"always() && !cancelled()":                               true,
		"failure() || 'it''s'":                                   "it's",
		"github.EVENT_NAME == 'PULL_REQUEST'":                    true,
		"true && null":                                           nil,
		"1 == true":                                              true,
	} {
		got, err := evalExpr(expr, ctx)
		if err != nil || got != want {
			t.Errorf("%s = %#v, %v; want %#v", expr, got, err, want)
		}
	}
	for _, bad := range []string{"contains(inputs.mode, 'x')", "inputs.mode < 1", "inputs.", "(inputs.mode", "format('{0}')", "vars.x", "'open"} {
		if v, err := evalExpr(bad, ctx); err == nil {
			t.Errorf("%s = %#v; want an error", bad, v)
		}
	}
	for cond, want := range map[string]bool{
		"":                              true,
		"inputs.report != ''":           true,
		"${{ !cancelled() && true }}":   true,
		"always() && inputs.mode == ''": true,
	} {
		if got, err := evalIf(cond, ctx); err != nil || got != want {
			t.Errorf("if %q = %v, %v", cond, got, err)
		}
	}
	failed := &exprContext{status: "failure", contexts: ctx.contexts}
	for cond, want := range map[string]bool{
		"":                           false, // success() only
		"inputs.report != ''":        false,
		"always()":                   true,
		"failure() && inputs.report": true,
		"${{ !cancelled() }}":        true,
	} {
		if got, err := evalIf(cond, failed); err != nil || got != want {
			t.Errorf("after a failure, if %q = %v, %v", cond, got, err)
		}
	}
	if s, err := interpolate("${{ runner.temp }}/x ${{ inputs.fail-on }}", &exprContext{contexts: map[string]any{
		"runner": map[string]any{"temp": "/t"}, "inputs": map[string]any{"fail-on": "never"}}}); err != nil || s != "/t/x never" {
		t.Errorf("interpolate: %q, %v", s, err)
	}
	out, err := parseOutputFile("a=1\nb<<EOF\nline 1\nx=y\nEOF\nc=\n")
	if err != nil || !maps.Equal(out, map[string]string{"a": "1", "b": "line 1\nx=y", "c": ""}) {
		t.Errorf("output file: %v, %v", out, err)
	}
}
