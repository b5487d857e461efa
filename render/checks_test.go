package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/internal/testutil"
)

// Every render check has an input built to raise it and a quiet twin, the
// nearest valid input, that must not. The expected severity is the check's
// default in rules/checks_registry.go (render cannot import rules).

// checkInput is one repository to render: files under the root, optional
// extra setup (symlinks), options and context.
type checkInput struct {
	files map[string]string
	setup func(t *testing.T, root, outside string)
	opts  func(o *Options)
	ctx   func() context.Context
}

// render renders the input: in memory (memRepo) unless it needs the disk
// (a setup making symlinks, worker processes, fetching).
func (in checkInput) render(t *testing.T) *Result {
	t.Helper()
	opts := in.options()
	return in.renderOn(t, in.setup != nil || len(opts.Isolation.Command) > 0 || opts.Fetch.Enabled)
}

func (in checkInput) options() Options {
	opts := DefaultOptions()
	if in.opts != nil {
		in.opts(&opts)
	}
	return opts
}

// renderOn renders the input from the disk (written under <tmp>/repo, with
// <tmp>/outside next to it) or from memory (under memRoot).
func (in checkInput) renderOn(t *testing.T, disk bool) *Result {
	t.Helper()
	opts := in.options()
	ctx := context.Background()
	if in.ctx != nil {
		ctx = in.ctx()
	}
	root := memRoot
	if disk {
		tmp := t.TempDir()
		root = filepath.Join(tmp, "repo")
		outside := filepath.Join(tmp, "outside")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		testutil.WriteTree(t, root, in.files)
		testutil.WriteTree(t, outside, map[string]string{
			"secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: secret\n",
		})
		if in.setup != nil {
			in.setup(t, root, outside)
		}
	} else {
		opts.FS = memFS(t, in.files)
	}
	res, err := Render(ctx, root, opts)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return res
}

type renderCheckCase struct {
	name     string
	check    string
	severity string // registry default; "" when not asserted (see the comment at the case)
	trigger  checkInput
	quiet    checkInput
	source   string // check.Finding.Source
	file     string // check.Finding.File; "" when the code gives none
	line     int    // check.Finding.Line; 0 when the code gives none
	lineMax  int    // when set, Line must lie in [line, lineMax]
	text     string // a substring of the message
}

func (c renderCheckCase) run(t *testing.T) {
	res := c.trigger.render(t)
	var got []check.Finding
	for _, f := range res.Findings {
		if f.Check == c.check {
			got = append(got, f)
		}
	}
	if len(got) == 0 {
		t.Fatalf("trigger: no %s finding; findings:\n%s", c.check, dumpFindings(res.Findings))
	}
	f := got[0]
	if c.severity != "" && f.Severity != c.severity {
		t.Errorf("trigger: %s severity %q, want %q (the default in rules/checks_registry.go)", c.check, f.Severity, c.severity)
	}
	if f.Source != c.source {
		t.Errorf("trigger: %s source %q, want %q", c.check, f.Source, c.source)
	}
	if c.file != "" && f.File() != c.file {
		t.Errorf("trigger: %s file %q, want %q", c.check, f.File(), c.file)
	}
	switch {
	case c.lineMax > 0:
		if f.Line() < c.line || f.Line() > c.lineMax {
			t.Errorf("trigger: %s line %d, want within %d..%d", c.check, f.Line(), c.line, c.lineMax)
		}
	case c.line > 0:
		if f.Line() != c.line {
			t.Errorf("trigger: %s line %d, want %d", c.check, f.Line(), c.line)
		}
	}
	if !strings.Contains(f.Message, c.text) {
		t.Errorf("trigger: %s message %q does not mention %q", c.check, f.Message, c.text)
	}

	// The quiet twin is valid: nothing fails, nothing is an error.
	res = c.quiet.render(t)
	for _, f := range res.Findings {
		if f.Check == c.check || f.Severity == "error" {
			t.Errorf("quiet twin: unexpected %s finding [%s] %s:%d: %s", f.Check, f.Source, f.File(), f.Line(), f.Message)
		}
	}
	if len(res.Sources) == 0 {
		t.Errorf("quiet twin: no source rendered")
	}
	for _, s := range res.Sources {
		if s.Status == StatusDelivered {
			continue // rendered through the GitOps object that delivers it
		}
		if s.Status != StatusRendered || s.Objects == 0 {
			t.Errorf("quiet twin: source %s %s with %d objects (%s)", s.Path, s.Status, s.Objects, s.Reason)
		}
	}
}

// lineOf returns the 1-based line of the first line of s that starts with
// prefix, or fails the test.
func lineOf(t *testing.T, s, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starting with %q in\n%s", prefix, s)
	return 0
}

// cancelOnWait is a context that cancels itself when first waited on.
// Render checks Err before it starts a source (nil: the source starts),
// then waits on Done while the source renders, so the run is cancelled
// mid-render without depending on timing.
type cancelOnWait struct {
	context.Context
	cancel context.CancelFunc
}

func (c cancelOnWait) Done() <-chan struct{} {
	c.cancel()
	return c.Context.Done()
}

func newCancelOnWait() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	return cancelOnWait{Context: ctx, cancel: cancel}
}

const (
	checksCM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
	// slowTemplate loops loops² times before its object: with loops=1 it
	// renders at once, with loops=4000 it takes most of a second. (The key
	// is not "n": YAML 1.1 reads n as false.)
	slowTemplate = "{{- range $i := until (int .Values.loops) }}{{ range $j := until (int $.Values.loops) }}{{ end }}{{ end }}\n" + checksCM
	chartYAML    = "apiVersion: v2\nname: c\nversion: 0.1.0\n"
)

func slowChart() map[string]string {
	return map[string]string{
		"c/Chart.yaml":       chartYAML,
		"c/values.yaml":      "loops: 1\n",
		"c/templates/x.yaml": slowTemplate,
	}
}

// isolate renders in worker processes (this test binary; see TestMain).
func isolate(o *Options) { *o = isolated(*o) }

// doublingChart doubles a 16-byte string n times: 30 doublings ask for
// 16 GiB.
func doublingChart(n int) map[string]string {
	return map[string]string{
		"c/Chart.yaml":       chartYAML,
		"c/templates/x.yaml": fmt.Sprintf("{{- $s := \"xxxxxxxxxxxxxxxx\" }}{{- range until %d }}{{ $s = print $s $s }}{{ end }}\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n", n),
	}
}

// includeChain is n distinct templates, each including the next: Helm's
// include limit counts one name's depth, so only the stack stops it.
func includeChain(n int) map[string]string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{{- define \"t%d\" }}{{ include \"t%d\" . }}{{ end }}\n", i, i+1)
	}
	fmt.Fprintf(&b, "{{- define \"t%d\" }}x{{ end }}\n", n)
	b.WriteString("kind: ConfigMap\napiVersion: v1\nmetadata: {name: {{ include \"t0\" . }}}\n")
	return map[string]string{"c/Chart.yaml": chartYAML, "c/templates/x.yaml": b.String()}
}

func setLoops(n int) func(o *Options) {
	return func(o *Options) { o.Helm.Set = []string{fmt.Sprintf("loops=%d", n)} }
}

// aliasDoc is a document whose aliases expand to 10^levels scalars.
func aliasDoc(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n")
	b.WriteString("  l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		ref := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.Repeat(ref+", ", 9)+ref)
	}
	return b.String()
}

func TestRenderChecks(t *testing.T) {
	testutil.SkipIfShort(t)
	cases := renderCheckCases(t)
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.check] = true
		t.Run(c.name, c.run)
	}
	// render-panic needs a library to panic; no input does so without
	// changing the renderer, so it is not in the table.
	for _, id := range renderCheckIDs {
		if !seen[id] && id != check.RenderPanic {
			t.Errorf("check %s has no case", id)
		}
	}
}

// TestRenderChecksSameOnDisk: every input of TestRenderChecks that it
// renders in memory renders the same from the disk.
func TestRenderChecksSameOnDisk(t *testing.T) {
	testutil.SkipIfShort(t)
	for _, c := range renderCheckCases(t) {
		for side, in := range map[string]checkInput{"trigger": c.trigger, "quiet": c.quiet} {
			opts := in.options()
			if in.setup != nil || len(opts.Isolation.Command) > 0 || opts.Fetch.Enabled {
				continue
			}
			t.Run(c.name+"/"+side, func(t *testing.T) {
				want, got := deterministic(in.renderOn(t, true)), deterministic(in.renderOn(t, false))
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("in memory (+) the render differs from the disk's (-):\n%s", d)
				}
			})
		}
	}
}

// renderCheckCases are TestRenderChecks' inputs.
func renderCheckCases(t *testing.T) []renderCheckCase {
	const (
		invalidDoc = "apiVersion: v1\nkind: [unclosed\nmetadata:\n  name: broken\n"
		fixedDoc   = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n"
		noKindDoc  = "apiVersion: v1\nmetadata:\n  name: nokind\n"
	)
	invalidStream := checksCM + "---\n" + invalidDoc
	noKindStream := checksCM + "---\n" + noKindDoc
	bombStream := checksCM + "---\n" + aliasDoc(6)
	depChart := chartYAML + "dependencies:\n  - name: redis\n    version: 1.2.3\n    repository: https://charts.example.com\n"
	many := func(n int) string { return strings.Repeat("---\n"+checksCM, n) }

	cases := []renderCheckCase{
		{
			name: "render-failed/helm-template", check: check.RenderFailed, severity: "error",
			trigger: checkInput{files: map[string]string{
				"c/Chart.yaml":       chartYAML,
				"c/templates/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n",
			}},
			quiet: checkInput{files: map[string]string{
				"c/Chart.yaml":       chartYAML,
				"c/values.yaml":      "name: cm\n",
				"c/templates/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ required \"name is required\" .Values.name }}\n",
			}},
			source: "c", text: "name is required",
		},
		{
			name: "render-failed/kustomization-not-a-mapping", check: check.RenderFailed, severity: "error",
			trigger: checkInput{files: map[string]string{"k/kustomization.yaml": "- cm.yaml\n", "k/cm.yaml": checksCM}},
			quiet:   checkInput{files: map[string]string{"k/kustomization.yaml": "resources:\n  - cm.yaml\n", "k/cm.yaml": checksCM}},
			source:  "k", file: "k/kustomization.yaml", text: "not a single YAML mapping",
		},
		{
			name: "render-timeout", check: check.RenderTimeout, severity: "error",
			// Margins both ways so a loaded CI machine cannot flip either
			// side: 16M template iterations against 300 ms, one against 10 s.
			trigger: checkInput{files: slowChart(), opts: func(o *Options) {
				setLoops(4000)(o)
				o.SourceTimeout = 300 * time.Millisecond
			}},
			quiet: checkInput{files: slowChart(), opts: func(o *Options) {
				setLoops(1)(o)
				o.SourceTimeout = 10 * time.Second
			}},
			source: "c", text: "did not finish within 300ms",
		},
		{
			name: "render-memory", check: check.RenderMemory, severity: "error",
			trigger: checkInput{files: doublingChart(30), opts: isolate},
			quiet:   checkInput{files: doublingChart(3), opts: isolate},
			source:  "c", text: "more than 512 MiB and was stopped",
		},
		{
			name: "render-crashed", check: check.RenderCrashed, severity: "error",
			trigger: checkInput{files: includeChain(60000), opts: isolate},
			quiet:   checkInput{files: includeChain(10), opts: isolate},
			source:  "c", text: "stack limit",
		},
		{
			name: "render-log", check: check.RenderLog, severity: "warning",
			trigger: checkInput{files: map[string]string{"k/kustomization.yaml": "commonLabels: {app: web}\nresources: [cm.yaml]\n", "k/cm.yaml": checksCM}, opts: isolate},
			quiet:   checkInput{files: map[string]string{"k/kustomization.yaml": "labels: [{pairs: {app: web}}]\nresources: [cm.yaml]\n", "k/cm.yaml": checksCM}, opts: isolate},
			source:  "k", text: "'commonLabels' is deprecated",
		},
		{
			name: "render-cancelled", check: check.RenderCancelled, severity: "warning",
			trigger: checkInput{files: slowChart(), opts: setLoops(4000), ctx: newCancelOnWait},
			quiet:   checkInput{files: slowChart(), opts: setLoops(1)},
			source:  "c", text: "context canceled",
		},
		{
			// A remote patch cannot be left out without changing what the
			// rest renders: the overlay fails.
			name: "remote-base", check: check.RemoteBase, severity: "error",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\npatches:\n  - path: https://example.com/app/patch.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml":    "resources:\n  - ../base\n",
				"base/kustomization.yaml": "resources:\n  - cm.yaml\n",
				"base/cm.yaml":            checksCM,
			}},
			source: "k", file: "k/kustomization.yaml", text: "https://example.com/app/patch.yaml",
		},
		{
			// A remote, escaping or missing resource is left out: the rest
			// renders, partial.
			name: "partial-render", check: check.PartialRender, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - https://github.com/example/app//base?ref=v1\n  - cm.yaml\n  - gone.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			source: "k", file: "k/kustomization.yaml", text: "https://github.com/example/app//base?ref=v1",
		},
		{
			name: "exec-function", check: check.ExecFunction, severity: "error",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\ntransformers:\n  - fn.yaml\n",
				"k/cm.yaml":            checksCM,
				"k/fn.yaml": "apiVersion: example.com/v1\nkind: Labeller\nmetadata:\n  name: fn\n  annotations:\n" +
					"    config.kubernetes.io/function: |\n      exec:\n        path: ./fn.sh\n",
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\ntransformers:\n  - fn.yaml\n",
				"k/cm.yaml":            checksCM,
				"k/fn.yaml": "apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: fn\nlabels:\n  team: a\n" +
					"fieldSpecs:\n  - path: metadata/labels\n    create: true\n",
			}},
			source: "k", file: "k/fn.yaml", text: "exec function",
		},
		{
			// A plugin capreport does not run fails the overlay: an error.
			name: "kustomize-plugin", check: check.KustomizePlugin, severity: "error",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\nhelmChartInflationGenerator:\n  - chartName: nginx\n    chartRepoUrl: https://charts.example.com\n",
				"k/cm.yaml":            checksCM,
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			source: "k", file: "k/kustomization.yaml", text: "helmChartInflationGenerator",
		},
		{
			// Not vendored: left out of the build, the rest renders.
			name: "helm-chart-remote", check: check.HelmChartRemote, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "helmCharts:\n  - name: web\n    repo: https://charts.example.com\n    version: 1.0.0\n",
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml":           "helmCharts:\n  - name: web\n    repo: https://charts.example.com\n    version: 1.0.0\n",
				"k/charts/web/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
				"k/charts/web/templates/cm.yaml": checksCM,
			}},
			source: "k", file: "k/kustomization.yaml", text: `"web"`,
		},
		{
			name: "helm-dependency-missing", check: check.HelmDependencyMissing, severity: "warning",
			trigger: checkInput{files: map[string]string{
				"c/Chart.yaml":        depChart,
				"c/templates/cm.yaml": checksCM,
			}},
			quiet: checkInput{files: map[string]string{
				"c/Chart.yaml":              depChart,
				"c/templates/cm.yaml":       checksCM,
				"c/charts/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 1.2.3\n",
			}},
			source: "c", file: "c/Chart.yaml", text: `"redis"`,
		},
		{
			name: "path-escape/kustomize-patch", check: check.PathEscape, severity: "error",
			trigger: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - cm.yaml\npatches:\n  - path: ../../outside/secret.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			quiet: checkInput{files: map[string]string{
				"k/kustomization.yaml": "resources:\n  - ../k/cm.yaml\n",
				"k/cm.yaml":            checksCM,
			}},
			source: "k", file: "k/kustomization.yaml", text: "leaves the repository root",
		},
		{
			name: "path-escape/explicit-source", check: check.PathEscape, severity: "error",
			trigger: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				opts: func(o *Options) { o.Sources = []SourceSpec{{Path: "../outside"}} }},
			quiet: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				opts: func(o *Options) { o.Sources = []SourceSpec{{Path: "ok/../ok"}} }},
			source: "../outside", text: "leaves the repository root",
		},
		{
			name: "symlink-escape", check: check.SymlinkEscape, severity: "error",
			trigger: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				setup: func(t *testing.T, root, outside string) {
					testutil.Symlink(t, filepath.Join(outside, "secret.yaml"), filepath.Join(root, "leak.yaml"))
				}},
			quiet: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				setup: func(t *testing.T, root, _ string) {
					testutil.Symlink(t, filepath.Join("ok", "cm.yaml"), filepath.Join(root, "leak.yaml"))
				}},
			source: "leak.yaml", file: "leak.yaml", text: "outside the repository",
		},
		{
			name: "file-too-large", check: check.FileTooLarge, severity: "error",
			trigger: checkInput{files: map[string]string{"big.yaml": checksCM + "data:\n  x: " + strings.Repeat("x", 400) + "\n"},
				opts: func(o *Options) { o.MaxFileBytes = 256 }},
			quiet: checkInput{files: map[string]string{"big.yaml": checksCM + "data:\n  x: " + strings.Repeat("x", 100) + "\n"},
				opts: func(o *Options) { o.MaxFileBytes = 256 }},
			source: "big.yaml", file: "big.yaml", text: "too large",
		},
		{
			name: "too-many-objects", check: check.TooManyObjects, severity: "error",
			trigger: checkInput{files: map[string]string{"many.yaml": many(4)}, opts: func(o *Options) { o.MaxObjects = 3 }},
			quiet:   checkInput{files: map[string]string{"many.yaml": many(3)}, opts: func(o *Options) { o.MaxObjects = 3 }},
			source:  "many.yaml", text: "more than 3 objects",
		},
		{
			name: "yaml-alias-bomb", check: check.YAMLAliasBomb, severity: "error",
			trigger: checkInput{files: map[string]string{"bomb.yaml": bombStream}},
			quiet:   checkInput{files: map[string]string{"bomb.yaml": checksCM + "---\n" + aliasDoc(3)}},
			source:  "bomb.yaml", file: "bomb.yaml", line: lineOf(t, bombStream, "---") + 1, text: "alias",
		},
		{
			// A parse error is reported at its document: from the "---" that
			// opens it to the line that does not parse.
			name: "yaml-invalid", check: check.YAMLInvalid, severity: "error",
			trigger: checkInput{files: map[string]string{"docs.yaml": invalidStream}},
			quiet:   checkInput{files: map[string]string{"docs.yaml": checksCM + "---\n" + fixedDoc}},
			source:  "docs.yaml", file: "docs.yaml",
			line: lineOf(t, invalidStream, "---"), lineMax: lineOf(t, invalidStream, "kind: [unclosed"),
			text: "not decoded",
		},
		{
			name: "not-an-object/plain", check: check.NotAnObject, severity: "info",
			trigger: checkInput{files: map[string]string{"docs.yaml": noKindStream}},
			quiet:   checkInput{files: map[string]string{"docs.yaml": checksCM + "---\n" + fixedDoc}},
			source:  "docs.yaml", file: "docs.yaml", line: lineOf(t, noKindStream, "---") + 1,
			text: "no apiVersion or kind",
		},
		{
			name: "not-an-object/helm", check: check.NotAnObject, severity: "info",
			trigger: checkInput{files: map[string]string{"c/Chart.yaml": chartYAML, "c/templates/x.yaml": noKindStream}},
			quiet:   checkInput{files: map[string]string{"c/Chart.yaml": chartYAML, "c/templates/x.yaml": checksCM + "---\n" + fixedDoc}},
			source:  "c", file: "c/templates/x.yaml", line: lineOf(t, noKindStream, "---") + 1,
			text: "no apiVersion or kind",
		},
		{
			name: "source-missing", check: check.SourceMissing, severity: "error",
			trigger: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				opts: func(o *Options) { o.Sources = []SourceSpec{{Path: "missing"}} }},
			quiet: checkInput{files: map[string]string{"ok/cm.yaml": checksCM},
				opts: func(o *Options) { o.Sources = []SourceSpec{{Path: "ok"}} }},
			source: "missing", file: "missing", text: `source "missing"`,
		},
	}
	cases = append(cases, gitopsCheckCases()...)
	return append(cases, fetchCheckCases(t)...)
}

// renderCheckIDs are the checks render raises, each of which needs a case.
var renderCheckIDs = []string{
	check.RenderFailed, check.RenderPanic, check.RenderTimeout, check.RenderCancelled,
	check.RemoteBase, check.ExecFunction, check.KustomizePlugin, check.HelmChartRemote,
	check.HelmDependencyMissing, check.PathEscape, check.SymlinkEscape, check.FileTooLarge,
	check.TooManyObjects, check.YAMLAliasBomb, check.YAMLInvalid, check.NotAnObject, check.SourceMissing,
	check.GitOpsNotFollowed, check.GitOpsReference, check.GitOpsSubstitution, check.GitOpsCycle, check.GitOpsLimit,
	check.DuplicateDelivery, check.PartialRender, check.SchemaRef, check.YAMLEncoding, check.YAMLDuplicateKey,
	check.RenderMemory, check.RenderCrashed, check.RenderLog,
	check.FetchFailed, check.FetchLimit, check.FetchUnsafe, check.FetchDigest,
}
