package main

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
	ghreport "github.com/capreport/capreport/report/github"
)

// flagCase is one command line of a command's flag-parsing table: the
// options runF must receive (with what the factory injects cleared), or
// the error parsing must stop at, before runF.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// testFlags parses each case through newXCmd(f, runF) with a runF that only
// captures the options, the way cli/cli tests flags. injected checks that
// the factory's pieces reached the options and clears them, so that want
// holds only what the command line decides.
func testFlags[O any](t *testing.T, newCmd func(*cmdutil.Factory, func(*O) error) *cobra.Command, injected func(*testing.T, *cmdutil.Factory, *O), cases []flagCase[O]) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
			var got *O
			cmd := newCmd(f, func(o *O) error { got = o; return nil })
			cmd.SetArgs(append([]string{}, c.args...)) // never nil: cobra would read os.Args
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("%v: error %v, want one containing %q", c.args, err, c.wantErr)
				}
				if got != nil {
					t.Fatalf("%v: runF ran after a parse error", c.args)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %v", c.args, err)
			}
			if got == nil {
				t.Fatalf("%v: runF not called", c.args)
			}
			injected(t, f, got)
			if !reflect.DeepEqual(*got, c.want) {
				t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, c.want)
			}
		})
	}
}

// defaultRender is RenderFlags as register leaves them with no flag given.
var defaultRender = cmdutil.RenderFlags{
	GitOps:        true,
	RenderTimeout: render.DefaultSourceTimeout,
	RenderMemory:  render.DefaultSourceMemory,
	FetchTimeout:  render.DefaultFetchRunTimeout,
}

// withRender is defaultRender changed by set.
func withRender(set func(*cmdutil.RenderFlags)) cmdutil.RenderFlags {
	r := defaultRender
	set(&r)
	return r
}

// clearRender drops what RenderFlags hold that is not a flag's value.
func clearRender(t *testing.T, r *cmdutil.RenderFlags) {
	t.Helper()
	if r.FetchFlags == nil {
		t.Error("renderFlags.fetchFlags not set by register")
	}
	r.FetchFlags, r.Stdin = nil, nil
}

// sameVersion checks that the options got the factory's version, which
// the reports they build name.
func sameVersion(t *testing.T, f *cmdutil.Factory, v string) {
	t.Helper()
	if v == "" || v != f.Version {
		t.Errorf("options hold version %q, the factory %q", v, f.Version)
	}
}

// sameStreams checks that the options got the factory's streams.
func sameStreams(t *testing.T, f *cmdutil.Factory, ios *cmdutil.IOStreams) {
	t.Helper()
	if ios != f.IOStreams {
		t.Error("options do not hold the factory's streams")
	}
}

func TestRootFlags(t *testing.T) {
	testFlags(t, newRootCmd, func(t *testing.T, f *cmdutil.Factory, o *rootOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		if o.render.Stdin != f.IOStreams.In {
			t.Error("stdin is not the factory's")
		}
		clearRender(t, &o.render)
		sameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []flagCase[rootOptions]{
		{name: "defaults", want: rootOptions{paths: []string{"."}, render: defaultRender, format: "text"}},
		{name: "cache", args: []string{"--cache", "--cache-dir", "/c"}, want: rootOptions{paths: []string{"."}, format: "text",
			render: withRender(func(r *cmdutil.RenderFlags) { r.Cache, r.CacheDir = true, "/c" })}},
		{name: "flags", args: []string{"a", "b", "-o", "json", "--out", "rep", "--fail-on", "warning", "--pretty",
			"-f", "v.yaml", "--set", "x=1", "-n", "shop", "--strict", "--include", "A,B", "--render-timeout", "5s"},
			want: rootOptions{paths: []string{"a", "b"}, format: "json", out: "rep", failOn: "warning", pretty: true,
				render: withRender(func(r *cmdutil.RenderFlags) {
					r.Values, r.Set, r.Namespace, r.Strict = []string{"v.yaml"}, []string{"x=1"}, "shop", true
					r.Include, r.RenderTimeout = []string{"A", "B"}, 5*time.Second
				})}},
		{name: "ref", args: []string{"deploy", "--ref", "origin/main"},
			want: rootOptions{paths: []string{"deploy"}, ref: "origin/main", render: defaultRender, format: "text"}},
		{name: "bad duration", args: []string{"--render-timeout", "soon"}, wantErr: `invalid argument "soon" for "--render-timeout"`},
	})
}

func TestSimulateSizeFlags(t *testing.T) {
	def := simulateSizeOptions{pods: 10, request: "1", target: 50, podRate: 100, deadTime: "90s", metricWindow: "30s",
		overload: "10x", minReplicas: 1, maxReplicas: 100000, efficiency: 1, syncPeriod: "15s", downscaleWindow: "300s",
		cipStr: "5m", tolerance: 0.1, format: "text"}
	set := def
	set.pods, set.request, set.limit, set.overload, set.behavior, set.tolerance, set.format = 4, "250m", "500m", "3x", "b.yaml", 0.2, "json"
	testFlags(t, newSimulateSizeCmd, func(t *testing.T, f *cmdutil.Factory, o *simulateSizeOptions) {
		sameStreams(t, f, o.ios)
		o.ios = nil
	}, []flagCase[simulateSizeOptions]{
		{name: "defaults", want: def},
		{name: "flags", args: []string{"--pods", "4", "--request", "250m", "--limit", "500m", "--overload", "3x",
			"--behavior", "b.yaml", "--tolerance", "0.2", "-o", "json"}, want: set},
		{name: "bad int", args: []string{"--pods", "ten"}, wantErr: `invalid argument "ten" for "--pods"`},
		{name: "argument", args: []string{"extra"}, wantErr: `unknown command "extra"`},
	})
}

func TestSimulateTimeFlags(t *testing.T) {
	def := simulateTimeOptions{podRate: 10, threshold: 10, demand: 500, deadTime: "90s", window: "300s", step: "4x",
		minReplicas: 1, maxReplicas: 2000, syncPeriod: "15s", tolerance: 0.1, format: "text"}
	set := def
	set.podRate, set.window, set.step, set.events, set.maxReplicas = 20, "60s", "2x", true, 50
	testFlags(t, newSimulateTimeCmd, func(t *testing.T, f *cmdutil.Factory, o *simulateTimeOptions) {
		sameStreams(t, f, o.ios)
		o.ios = nil
	}, []flagCase[simulateTimeOptions]{
		{name: "defaults", want: def},
		{name: "flags", args: []string{"--pod-rate", "20", "--window", "60s", "--step", "2x", "--events", "--max-replicas", "50"}, want: set},
		{name: "bad float", args: []string{"--pod-rate", "fast"}, wantErr: `invalid argument "fast" for "--pod-rate"`},
	})
}

func TestPhiFlags(t *testing.T) {
	testFlags(t, newPhiCmd, func(t *testing.T, f *cmdutil.Factory, o *phiOptions) {
		sameStreams(t, f, o.ios)
		o.ios = nil
	}, []flagCase[phiOptions]{
		{name: "defaults", want: phiOptions{window: "300s", format: "text"}},
		{name: "w", args: []string{"--w", "3.33", "-o", "json"}, want: phiOptions{w: "3.33", window: "300s", format: "json", wSet: true}},
		{name: "dead time", args: []string{"--dead-time", "90s", "--window", "600s"},
			want: phiOptions{deadTime: "90s", window: "600s", format: "text", deadTimeSet: true, windowSet: true}},
		{name: "argument", args: []string{"3.33"}, wantErr: `unknown command "3.33"`},
	})
}

func TestDiffFlags(t *testing.T) {
	testFlags(t, newDiffCmd, func(t *testing.T, f *cmdutil.Factory, o *diffOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		clearRender(t, &o.render)
		sameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []flagCase[diffOptions]{
		{name: "base ref", args: []string{"deploy/prod/", "--base-ref", "origin/main", "-f", "v.yaml", "--set", "a=b", "-o", "json", "--head-json", "h.json"},
			want: diffOptions{path: "deploy/prod", baseRef: "origin/main", format: "json", headJSON: "h.json", scope: "new",
				render: withRender(func(r *cmdutil.RenderFlags) { r.Values, r.Set = []string{"v.yaml"}, []string{"a=b"} })}},
		{name: "defaults", args: []string{"--base-dir", "old"}, want: diffOptions{path: ".", baseDir: "old", format: "markdown", scope: "new", render: defaultRender}},
		{name: "base json", args: []string{"--base-json", "b.json", "-o", "text"}, want: diffOptions{path: ".", baseJSON: "b.json", format: "text", scope: "new", render: defaultRender}},
		{name: "gate", args: []string{"--base-json", "b.json", "--fail-on-scope", "all", "--fail-on-worse", "12.5"},
			want: diffOptions{path: ".", baseJSON: "b.json", format: "markdown", scope: "all", worse: 12.5, render: defaultRender}},
		{name: "two paths", args: []string{"a", "b"}, wantErr: "accepts at most 1 arg(s), received 2"},
	})
}

func TestMergeFlags(t *testing.T) {
	testFlags(t, newMergeCmd, func(t *testing.T, f *cmdutil.Factory, o *mergeOptions) {
		sameStreams(t, f, o.ios)
		o.ios = nil
	}, []flagCase[mergeOptions]{
		{name: "defaults", args: []string{"a.json", "b.json", "c.json", "-o", "markdown"},
			want: mergeOptions{files: []string{"a.json", "b.json", "c.json"}, format: "markdown", failOn: config.FailOnError, maxReportBytes: cmdutil.DefaultMaxReportBytes}},
		{name: "flags", args: []string{"a.json", "--prefer", "last", "--fail-on", "never", "--pretty", "--max-report-bytes", "1000"},
			want: mergeOptions{files: []string{"a.json"}, format: "json", prefer: "last", failOn: "never", pretty: true, maxReportBytes: 1000}},
		{name: "no report", wantErr: "requires at least 1 arg(s)"},
	})
}

func TestInitFlags(t *testing.T) {
	testFlags(t, newInitCmd, func(t *testing.T, f *cmdutil.Factory, o *initOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearRender(t, &o.render)
		o.ios, o.ctx = nil, nil
	}, []flagCase[initOptions]{
		{name: "defaults", want: initOptions{path: ".", render: defaultRender}},
		{name: "flags", args: []string{"deploy", "--force", "--stdout", "--release-name", "web"},
			want: initOptions{path: "deploy", force: true, stdout: true, render: withRender(func(r *cmdutil.RenderFlags) { r.ReleaseName = "web" })}},
		{name: "bad bool", args: []string{"--force=maybe"}, wantErr: `invalid argument "maybe" for "--force"`},
	})
}

func TestExplainFlags(t *testing.T) {
	testFlags(t, newExplainCmd, func(t *testing.T, f *cmdutil.Factory, o *explainOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearRender(t, &o.render)
		sameVersion(t, f, o.version)
		o.ios, o.ctx, o.version = nil, nil, ""
	}, []flagCase[explainOptions]{
		{name: "id", args: []string{"web"}, want: explainOptions{id: "web", format: "text", render: defaultRender}},
		{name: "id and path", args: []string{"shop/HorizontalPodAutoscaler/web", "deploy", "-o", "json", "--config", "c.yaml"},
			want: explainOptions{id: "shop/HorizontalPodAutoscaler/web", path: "deploy", format: "json",
				render: withRender(func(r *cmdutil.RenderFlags) { r.ConfigFile = "c.yaml" })}},
		{name: "no id", wantErr: "accepts between 1 and 2 arg(s), received 0"},
	})
}

func TestChecksFlags(t *testing.T) {
	testFlags(t, newChecksCmd, func(t *testing.T, f *cmdutil.Factory, o *checksOptions) {
		sameStreams(t, f, o.ios)
		o.ios = nil
	}, []flagCase[checksOptions]{
		{name: "defaults", want: checksOptions{format: "text"}},
		{name: "markdown", args: []string{"-o", "markdown"}, want: checksOptions{format: "markdown"}},
		{name: "argument", args: []string{"CR001"}, wantErr: `unknown command "CR001"`},
	})
}

func TestListFlags(t *testing.T) {
	testFlags(t, newListCmd, func(t *testing.T, f *cmdutil.Factory, o *listOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearRender(t, &o.render)
		o.ios, o.ctx = nil, nil
	}, []flagCase[listOptions]{
		{name: "defaults", want: listOptions{path: ".", format: "text", render: defaultRender}},
		{name: "flags", args: []string{"deploy", "-f", "a.yaml", "--values", "b.yaml", "--set", "x=1", "--release-name", "r",
			"--namespace", "n", "--config", "c.yaml", "-o", "json"},
			want: listOptions{path: "deploy", format: "json", render: withRender(func(r *cmdutil.RenderFlags) {
				r.Values, r.Set, r.ReleaseName, r.Namespace, r.ConfigFile = []string{"a.yaml", "b.yaml"}, []string{"x=1"}, "r", "n", "c.yaml"
			})}},
		{name: "bad format", args: []string{"-o", "yaml"}, wantErr: "--format"},
	})
}

// clearGitHub checks and clears what the GitHub commands take from the
// factory: the streams and the environment (and, but for summary, the
// HTTP client and retry policy beside it).
func clearGitHub(t *testing.T, f *cmdutil.Factory, ios **cmdutil.IOStreams, post *postOptions, gh *githubOptions) {
	t.Helper()
	sameStreams(t, f, *ios)
	if post.env == nil || (gh != nil && gh.Env == nil) {
		t.Error("environment missing")
	}
	*ios, post.env = nil, nil
	if gh != nil {
		gh.GHDeps = cmdutil.GHDeps{}
	}
}

var defaultPost = postOptions{maxReportBytes: cmdutil.DefaultMaxReportBytes, title: "capreport", failOnScope: cmdutil.FailOnScopeNew}

func TestCommentGitHubFlags(t *testing.T) {
	testFlags(t, newCommentGitHubCmd, func(t *testing.T, f *cmdutil.Factory, o *commentOptions) {
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearGitHub(t, f, &o.ios, &o.postOptions, &o.githubOptions)
		o.ctx = nil
	}, []flagCase[commentOptions]{
		{name: "defaults", args: []string{"--report", "h.json"}, want: commentOptions{postOptions: withPost(func(p *postOptions) { p.report = "h.json" }),
			behavior: string(ghreport.BehaviorUpdate), when: whenChanged, images: "none", imagesBranch: "capreport-images"}},
		{name: "flags", args: []string{"--report", "h.json", "--base", "b.json", "--pr", "42", "--repo", "acme/deploy",
			"--behavior", "hide-and-new", "--when", "always", "--images", "branch", "--dry-run", "--github-output", "out", "--fail-on", "warning", "--fail-on-scope", "all"},
			want: commentOptions{postOptions: withPost(func(p *postOptions) {
				p.report, p.base, p.githubOutput, p.failOn, p.failOnScope = "h.json", "b.json", "out", "warning", "all"
			}),
				githubOptions: githubOptions{repo: "acme/deploy", dryRun: true}, pr: 42, behavior: "hide-and-new", when: whenAlways, images: "branch", imagesBranch: "capreport-images"}},
		{name: "bad pr", args: []string{"--pr", "latest"}, wantErr: `invalid argument "latest" for "--pr"`},
	})
}

func TestIssueGitHubFlags(t *testing.T) {
	issuePost := withPost(func(p *postOptions) { p.report, p.title, p.failOnScope = "r.json", "capreport: autoscaler report", "" })
	testFlags(t, newIssueGitHubCmd, func(t *testing.T, f *cmdutil.Factory, o *issueOptions) {
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearGitHub(t, f, &o.ios, &o.postOptions, &o.githubOptions)
		o.ctx = nil
	}, []flagCase[issueOptions]{
		{name: "defaults", args: []string{"--report", "r.json"}, want: issueOptions{postOptions: issuePost, labels: []string{"capreport"}}},
		{name: "flags", args: []string{"--report", "r.json", "--label", "a,b", "--label", "c", "--github-api-url", "https://ghe/api/v3/"},
			want: issueOptions{postOptions: issuePost, githubOptions: githubOptions{apiURL: "https://ghe/api/v3/"}, labels: []string{"a", "b", "c"}}},
		{name: "no base", args: []string{"--report", "r.json", "--base", "b.json"}, wantErr: "unknown flag: --base"},
	})
}

func TestSummaryFlags(t *testing.T) {
	testFlags(t, newSummaryCmd, func(t *testing.T, f *cmdutil.Factory, o *summaryOptions) {
		clearGitHub(t, f, &o.ios, &o.postOptions, nil)
	}, []flagCase[summaryOptions]{
		{name: "defaults", args: []string{"--report", "r.json"}, want: summaryOptions{postOptions: withPost(func(p *postOptions) { p.report = "r.json" })}},
		{name: "flags", args: []string{"--report", "r.json", "--base", "b.json", "--summary", "-", "--max-report-bytes", "1024", "--title", "T"},
			want: summaryOptions{postOptions: withPost(func(p *postOptions) {
				p.report, p.base, p.summary, p.maxReportBytes, p.title = "r.json", "b.json", "-", 1024, "T"
			})}},
		{name: "bad size", args: []string{"--max-report-bytes", "1MiB"}, wantErr: `invalid argument "1MiB" for "--max-report-bytes"`},
	})
}

// withPost is defaultPost changed by set.
func withPost(set func(*postOptions)) postOptions {
	p := defaultPost
	set(&p)
	return p
}

func TestCalibrateFlags(t *testing.T) {
	def := calibrateOptions{path: ".", since: "7d", step: 5 * time.Minute, timeout: time.Minute, quantile: 0.9,
		minPods: 5, minSamples: 12, render: defaultRender}
	set := def
	set.path, set.prometheus, set.since, set.quantile, set.timeout, set.dryRun, set.insecure, set.caFile =
		"deploy", "https://prom:9090", "36h", 0.95, 5*time.Second, true, true, "ca.pem"
	testFlags(t, newCalibrateCmd, func(t *testing.T, f *cmdutil.Factory, o *calibrateOptions) {
		sameStreams(t, f, o.ios)
		if o.ctx == nil || o.getenv == nil || o.now == nil || o.newSource == nil {
			t.Error("context, environment, clock or client missing")
		}
		clearRender(t, &o.render)
		o.ios, o.ctx, o.getenv, o.now, o.newSource = nil, nil, nil, nil, nil
	}, []flagCase[calibrateOptions]{
		{name: "defaults", want: def},
		{name: "flags", args: []string{"deploy", "--prometheus", "https://prom:9090", "--since", "36h", "--quantile", "0.95",
			"--timeout", "5s", "--dry-run", "--insecure-skip-tls-verify", "--ca-file", "ca.pem"}, want: set},
		{name: "bad duration", args: []string{"--step", "5"}, wantErr: `invalid argument "5" for "--step"`},
	})
}

// The factory's clock and environment are what calibrate reads.
func TestCalibrateUsesFactory(t *testing.T) {
	f := newFactory(&cmdutil.IOStreams{})
	end := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	f.Now = func() time.Time { return end }
	f.Env = func(k string) (string, bool) { return "v-" + k, true }
	var got *calibrateOptions
	cmd := newCalibrateCmd(f, func(o *calibrateOptions) error { got = o; return nil })
	cmd.SetArgs([]string{})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.now().Equal(end) || got.getenv("X") != "v-X" {
		t.Errorf("now %v, getenv %q", got.now(), got.getenv("X"))
	}
}
