package main

import (
	"testing"
	"time"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	ghreport "github.com/capreport/capreport/report/github"
)

func TestRootFlags(t *testing.T) {
	cmdtest.Flags(t, newRootCmd, func(t *testing.T, f *cmdutil.Factory, o *rootOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		if o.render.Stdin != f.IOStreams.In {
			t.Error("stdin is not the factory's")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []cmdtest.FlagCase[rootOptions]{
		{Name: "defaults", Want: rootOptions{paths: []string{"."}, render: cmdtest.DefaultRender, format: "text"}},
		{Name: "cache", Args: []string{"--cache", "--cache-dir", "/c"}, Want: rootOptions{paths: []string{"."}, format: "text",
			render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.Cache, r.CacheDir = true, "/c" })}},
		{Name: "flags", Args: []string{"a", "b", "-o", "json", "--out", "rep", "--fail-on", "warning", "--pretty",
			"-f", "v.yaml", "--set", "x=1", "-n", "shop", "--strict", "--include", "A,B", "--render-timeout", "5s"},
			Want: rootOptions{paths: []string{"a", "b"}, format: "json", out: "rep", failOn: "warning", pretty: true,
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) {
					r.Values, r.Set, r.Namespace, r.Strict = []string{"v.yaml"}, []string{"x=1"}, "shop", true
					r.Include, r.RenderTimeout = []string{"A", "B"}, 5*time.Second
				})}},
		{Name: "ref", Args: []string{"deploy", "--ref", "origin/main"},
			Want: rootOptions{paths: []string{"deploy"}, ref: "origin/main", render: cmdtest.DefaultRender, format: "text"}},
		{Name: "bad duration", Args: []string{"--render-timeout", "soon"}, WantErr: `invalid argument "soon" for "--render-timeout"`},
	})
}

func TestDiffFlags(t *testing.T) {
	cmdtest.Flags(t, newDiffCmd, func(t *testing.T, f *cmdutil.Factory, o *diffOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.git == nil {
			t.Error("context or git runner missing")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.git, o.version = nil, nil, nil, ""
	}, []cmdtest.FlagCase[diffOptions]{
		{Name: "base ref", Args: []string{"deploy/prod/", "--base-ref", "origin/main", "-f", "v.yaml", "--set", "a=b", "-o", "json", "--head-json", "h.json"},
			Want: diffOptions{path: "deploy/prod", baseRef: "origin/main", format: "json", headJSON: "h.json", scope: "new",
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.Values, r.Set = []string{"v.yaml"}, []string{"a=b"} })}},
		{Name: "defaults", Args: []string{"--base-dir", "old"}, Want: diffOptions{path: ".", baseDir: "old", format: "markdown", scope: "new", render: cmdtest.DefaultRender}},
		{Name: "base json", Args: []string{"--base-json", "b.json", "-o", "text"}, Want: diffOptions{path: ".", baseJSON: "b.json", format: "text", scope: "new", render: cmdtest.DefaultRender}},
		{Name: "gate", Args: []string{"--base-json", "b.json", "--fail-on-scope", "all", "--fail-on-worse", "12.5"},
			Want: diffOptions{path: ".", baseJSON: "b.json", format: "markdown", scope: "all", worse: 12.5, render: cmdtest.DefaultRender}},
		{Name: "two paths", Args: []string{"a", "b"}, WantErr: "accepts at most 1 arg(s), received 2"},
	})
}

func TestMergeFlags(t *testing.T) {
	cmdtest.Flags(t, newMergeCmd, func(t *testing.T, f *cmdutil.Factory, o *mergeOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[mergeOptions]{
		{Name: "defaults", Args: []string{"a.json", "b.json", "c.json", "-o", "markdown"},
			Want: mergeOptions{files: []string{"a.json", "b.json", "c.json"}, format: "markdown", failOn: config.FailOnError, maxReportBytes: cmdutil.DefaultMaxReportBytes}},
		{Name: "flags", Args: []string{"a.json", "--prefer", "last", "--fail-on", "never", "--pretty", "--max-report-bytes", "1000"},
			Want: mergeOptions{files: []string{"a.json"}, format: "json", prefer: "last", failOn: "never", pretty: true, maxReportBytes: 1000}},
		{Name: "no report", WantErr: "requires at least 1 arg(s)"},
	})
}

func TestExplainFlags(t *testing.T) {
	cmdtest.Flags(t, newExplainCmd, func(t *testing.T, f *cmdutil.Factory, o *explainOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		cmdtest.ClearRender(t, &o.render)
		cmdtest.SameVersion(t, f, o.version)
		o.ios, o.ctx, o.version = nil, nil, ""
	}, []cmdtest.FlagCase[explainOptions]{
		{Name: "id", Args: []string{"web"}, Want: explainOptions{id: "web", format: "text", render: cmdtest.DefaultRender}},
		{Name: "id and path", Args: []string{"shop/HorizontalPodAutoscaler/web", "deploy", "-o", "json", "--config", "c.yaml"},
			Want: explainOptions{id: "shop/HorizontalPodAutoscaler/web", path: "deploy", format: "json",
				render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) { r.ConfigFile = "c.yaml" })}},
		{Name: "no id", WantErr: "accepts between 1 and 2 arg(s), received 0"},
	})
}

func TestChecksFlags(t *testing.T) {
	cmdtest.Flags(t, newChecksCmd, func(t *testing.T, f *cmdutil.Factory, o *checksOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		o.ios = nil
	}, []cmdtest.FlagCase[checksOptions]{
		{Name: "defaults", Want: checksOptions{format: "text"}},
		{Name: "markdown", Args: []string{"-o", "markdown"}, Want: checksOptions{format: "markdown"}},
		{Name: "argument", Args: []string{"CR001"}, WantErr: `unknown command "CR001"`},
	})
}

func TestListFlags(t *testing.T) {
	cmdtest.Flags(t, newListCmd, func(t *testing.T, f *cmdutil.Factory, o *listOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil {
			t.Error("context missing")
		}
		cmdtest.ClearRender(t, &o.render)
		o.ios, o.ctx = nil, nil
	}, []cmdtest.FlagCase[listOptions]{
		{Name: "defaults", Want: listOptions{path: ".", format: "text", render: cmdtest.DefaultRender}},
		{Name: "flags", Args: []string{"deploy", "-f", "a.yaml", "--values", "b.yaml", "--set", "x=1", "--release-name", "r",
			"--namespace", "n", "--config", "c.yaml", "-o", "json"},
			Want: listOptions{path: "deploy", format: "json", render: cmdtest.WithRender(func(r *cmdutil.RenderFlags) {
				r.Values, r.Set, r.ReleaseName, r.Namespace, r.ConfigFile = []string{"a.yaml", "b.yaml"}, []string{"x=1"}, "r", "n", "c.yaml"
			})}},
		{Name: "bad format", Args: []string{"-o", "yaml"}, WantErr: "--format"},
	})
}

// clearGitHub checks and clears what the GitHub commands take from the
// factory: the streams and the environment (and, but for summary, the
// HTTP client and retry policy beside it).
func clearGitHub(t *testing.T, f *cmdutil.Factory, ios **cmdutil.IOStreams, post *postOptions, gh *githubOptions) {
	t.Helper()
	cmdtest.SameStreams(t, f, *ios)
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
	cmdtest.Flags(t, newCommentGitHubCmd, func(t *testing.T, f *cmdutil.Factory, o *commentOptions) {
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearGitHub(t, f, &o.ios, &o.postOptions, &o.githubOptions)
		o.ctx = nil
	}, []cmdtest.FlagCase[commentOptions]{
		{Name: "defaults", Args: []string{"--report", "h.json"}, Want: commentOptions{postOptions: withPost(func(p *postOptions) { p.report = "h.json" }),
			behavior: string(ghreport.BehaviorUpdate), when: whenChanged, images: "none", imagesBranch: "capreport-images"}},
		{Name: "flags", Args: []string{"--report", "h.json", "--base", "b.json", "--pr", "42", "--repo", "acme/deploy",
			"--behavior", "hide-and-new", "--when", "always", "--images", "branch", "--dry-run", "--github-output", "out", "--fail-on", "warning", "--fail-on-scope", "all"},
			Want: commentOptions{postOptions: withPost(func(p *postOptions) {
				p.report, p.base, p.githubOutput, p.failOn, p.failOnScope = "h.json", "b.json", "out", "warning", "all"
			}),
				githubOptions: githubOptions{repo: "acme/deploy", dryRun: true}, pr: 42, behavior: "hide-and-new", when: whenAlways, images: "branch", imagesBranch: "capreport-images"}},
		{Name: "bad pr", Args: []string{"--pr", "latest"}, WantErr: `invalid argument "latest" for "--pr"`},
	})
}

func TestIssueGitHubFlags(t *testing.T) {
	issuePost := withPost(func(p *postOptions) { p.report, p.title, p.failOnScope = "r.json", "capreport: autoscaler report", "" })
	cmdtest.Flags(t, newIssueGitHubCmd, func(t *testing.T, f *cmdutil.Factory, o *issueOptions) {
		if o.ctx == nil {
			t.Error("context missing")
		}
		clearGitHub(t, f, &o.ios, &o.postOptions, &o.githubOptions)
		o.ctx = nil
	}, []cmdtest.FlagCase[issueOptions]{
		{Name: "defaults", Args: []string{"--report", "r.json"}, Want: issueOptions{postOptions: issuePost, labels: []string{"capreport"}}},
		{Name: "flags", Args: []string{"--report", "r.json", "--label", "a,b", "--label", "c", "--github-api-url", "https://ghe/api/v3/"},
			Want: issueOptions{postOptions: issuePost, githubOptions: githubOptions{apiURL: "https://ghe/api/v3/"}, labels: []string{"a", "b", "c"}}},
		{Name: "no base", Args: []string{"--report", "r.json", "--base", "b.json"}, WantErr: "unknown flag: --base"},
	})
}

func TestSummaryFlags(t *testing.T) {
	cmdtest.Flags(t, newSummaryCmd, func(t *testing.T, f *cmdutil.Factory, o *summaryOptions) {
		clearGitHub(t, f, &o.ios, &o.postOptions, nil)
	}, []cmdtest.FlagCase[summaryOptions]{
		{Name: "defaults", Args: []string{"--report", "r.json"}, Want: summaryOptions{postOptions: withPost(func(p *postOptions) { p.report = "r.json" })}},
		{Name: "flags", Args: []string{"--report", "r.json", "--base", "b.json", "--summary", "-", "--max-report-bytes", "1024", "--title", "T"},
			Want: summaryOptions{postOptions: withPost(func(p *postOptions) {
				p.report, p.base, p.summary, p.maxReportBytes, p.title = "r.json", "b.json", "-", 1024, "T"
			})}},
		{Name: "bad size", Args: []string{"--max-report-bytes", "1MiB"}, WantErr: `invalid argument "1MiB" for "--max-report-bytes"`},
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
		minPods: 5, minSamples: 12, render: cmdtest.DefaultRender}
	set := def
	set.path, set.prometheus, set.since, set.quantile, set.timeout, set.dryRun, set.insecure, set.caFile =
		"deploy", "https://prom:9090", "36h", 0.95, 5*time.Second, true, true, "ca.pem"
	cmdtest.Flags(t, newCalibrateCmd, func(t *testing.T, f *cmdutil.Factory, o *calibrateOptions) {
		cmdtest.SameStreams(t, f, o.ios)
		if o.ctx == nil || o.getenv == nil || o.now == nil || o.newSource == nil {
			t.Error("context, environment, clock or client missing")
		}
		cmdtest.ClearRender(t, &o.render)
		o.ios, o.ctx, o.getenv, o.now, o.newSource = nil, nil, nil, nil, nil
	}, []cmdtest.FlagCase[calibrateOptions]{
		{Name: "defaults", Want: def},
		{Name: "flags", Args: []string{"deploy", "--prometheus", "https://prom:9090", "--since", "36h", "--quantile", "0.95",
			"--timeout", "5s", "--dry-run", "--insecure-skip-tls-verify", "--ca-file", "ca.pem"}, Want: set},
		{Name: "bad duration", Args: []string{"--step", "5"}, WantErr: `invalid argument "5" for "--step"`},
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
