package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/internal/testutil"
)

// cliCase runs capreport in-process from examples/shop and checks its exit
// code, its stderr against a golden file, and optionally its stdout.
type cliCase struct {
	name   string
	args   []string
	stdin  string
	env    cmdutil.ColorEnv
	tty    bool
	code   int
	stdout func(t *testing.T, out string)
}

func (c cliCase) run(t *testing.T) {
	t.Chdir(filepath.Join(testutil.RepoRoot(t), "examples", "shop"))
	var out, errOut bytes.Buffer
	ios := &cmdutil.IOStreams{In: strings.NewReader(c.stdin), Out: &out, ErrOut: &errOut, StdoutTTY: c.tty, ColorEnv: c.env}
	if code := run(c.args, ios); code != c.code {
		t.Errorf("capreport %s: exit %d, want %d\nstderr: %s", strings.Join(c.args, " "), code, c.code, errOut.String())
	}
	testutil.Golden(t, filepath.Join(testutil.RepoRoot(t), "cmd", "capreport", "testdata", "cli", c.name+".stderr"), errOut.Bytes(), *update)
	if c.stdout != nil {
		c.stdout(t, out.String()) // JSON is compact by default
	}
}

const ansi = "\x1b["

func colored(want bool) func(t *testing.T, out string) {
	return func(t *testing.T, out string) {
		if got := strings.Contains(out, ansi); got != want {
			t.Errorf("colour in the output: %v, want %v", got, want)
		}
	}
}

func contains(parts ...string) func(t *testing.T, out string) {
	return func(t *testing.T, out string) {
		for _, p := range parts {
			if !strings.Contains(out, p) {
				t.Errorf("the output lacks %q:\n%s", p, out)
			}
		}
	}
}

// TestCLIConventions holds capreport to the conventions of helm template,
// kubeconform and kube-linter, and to no-color.org / force-color.org:
// flags are checked before anything renders (exit 2, the flag named),
// files, several paths and - are arguments, check selection has flags,
// and colour follows --color and the environment.
func TestCLIConventions(t *testing.T) {
	orders, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "shop", "manifests", "orders-consumer.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []cliCase{
		{name: "values-file-missing", args: []string{".", "-f", "nope.yaml"}, code: cmdutil.ExitError},
		{name: "set-malformed", args: []string{".", "--set", "a[=1"}, code: cmdutil.ExitError},
		{name: "duration-malformed", args: []string{".", "--render-timeout", "5"}, code: cmdutil.ExitError},
		{name: "memory-malformed", args: []string{".", "--render-memory", "lots"}, code: cmdutil.ExitError},
		// What helm template refuses, refused before anything renders.
		{name: "kube-version-malformed", args: []string{".", "--kube-version", "abc"}, code: cmdutil.ExitError},
		{name: "release-name-invalid", args: []string{".", "--release-name", "Bad_Name"}, code: cmdutil.ExitError},
		{name: "namespace-invalid", args: []string{".", "-n", "NOT valid"}, code: cmdutil.ExitError},
		// A producer that failed before the pipe wrote nothing: no report of zero objects.
		{name: "stdin-empty", args: []string{"-"}, stdin: " \n", code: cmdutil.ExitError},
		{name: "list-stdin", args: []string{"list", "-"}, stdin: string(orders), code: cmdutil.ExitOK,
			stdout: contains("source    stdin:", "stdin  plain  2 object(s)  rendered")},
		{name: "include-unknown", args: []string{".", "--include", "dead-band,no-such-check"}, code: cmdutil.ExitError},
		{name: "color-unknown", args: []string{".", "--color", "rainbow"}, code: cmdutil.ExitError},
		{name: "path-missing", args: []string{"no/such/dir"}, code: cmdutil.ExitError},
		{name: "ref-with-two-paths", args: []string{"charts/web", "manifests", "--ref", "HEAD"}, code: cmdutil.ExitError},
		{name: "behavior-zero-value", args: []string{"simulate", "size", "--behavior", "../../cmd/capreport/testdata/behavior/zero-value.yaml"}, code: cmdutil.ExitError},
		{name: "behavior-unknown-field", args: []string{"simulate", "time", "--behavior", "../../cmd/capreport/testdata/behavior/unknown-field.yaml"}, code: cmdutil.ExitError},
		{name: "namespace-short", args: []string{"charts/web", "-n", "shop", "-o", "json"}, code: cmdutil.ExitOK,
			stdout: contains(`"id":"shop/HorizontalPodAutoscaler/capreport-web"`)},
		{name: "file-argument", args: []string{"manifests/orders-consumer.yaml", "--color", "never"}, code: cmdutil.ExitFail,
			stdout: contains("examples/shop/manifests/orders-consumer.yaml  plain", "1 autoscaler:")},
		{name: "two-paths", args: []string{"charts/web", "manifests", "--color", "never"}, code: cmdutil.ExitFail,
			stdout: contains("examples/shop/charts/web ", "examples/shop/manifests/orders-consumer.yaml", "2 autoscalers:")},
		{name: "stdin", args: []string{"-", "--color", "never"}, stdin: string(orders), code: cmdutil.ExitFail,
			stdout: contains("at stdin:", "rendered  stdin   plain  2")},
		{name: "include-one", args: []string{"manifests", "--include", "latency-floor", "-o", "json"}, code: cmdutil.ExitFail,
			stdout: func(t *testing.T, out string) {
				if !strings.Contains(out, `"check":"latency-floor"`) || strings.Contains(out, `"check":"assumption-default"`) {
					t.Errorf("--include latency-floor: want only that check's findings:\n%s", out)
				}
			}},
		{name: "exclude-one", args: []string{"manifests", "--exclude", "latency-floor", "-o", "json"}, code: cmdutil.ExitFail,
			stdout: func(t *testing.T, out string) {
				if strings.Contains(out, `"check":"latency-floor"`) {
					t.Errorf("--exclude latency-floor: the check still ran:\n%s", out)
				}
			}},
		{name: "color-tty", args: []string{"charts/web"}, tty: true, code: cmdutil.ExitOK, stdout: colored(true)},
		{name: "color-pipe", args: []string{"charts/web"}, code: cmdutil.ExitOK, stdout: colored(false)},
		{name: "color-no-color", args: []string{"charts/web"}, tty: true, env: cmdutil.ColorEnv{NoColor: true}, code: cmdutil.ExitOK, stdout: colored(false)},
		{name: "color-force", args: []string{"charts/web"}, env: cmdutil.ColorEnv{Force: true}, code: cmdutil.ExitOK, stdout: colored(true)},
		{name: "color-no-color-beats-force", args: []string{"charts/web"}, env: cmdutil.ColorEnv{NoColor: true, Force: true}, code: cmdutil.ExitOK, stdout: colored(false)},
		{name: "color-dumb", args: []string{"charts/web"}, tty: true, env: cmdutil.ColorEnv{Dumb: true}, code: cmdutil.ExitOK, stdout: colored(false)},
		{name: "color-always", args: []string{"charts/web", "--color", "always"}, env: cmdutil.ColorEnv{NoColor: true}, code: cmdutil.ExitOK, stdout: colored(true)},
		{name: "color-never", args: []string{"charts/web", "--color", "never"}, tty: true, env: cmdutil.ColorEnv{Force: true}, code: cmdutil.ExitOK, stdout: colored(false)},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
