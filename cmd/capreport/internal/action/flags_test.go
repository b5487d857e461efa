package action

import (
	"testing"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdtest"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	ghreport "github.com/capreport/capreport/report/github"
)

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
	cmdtest.Flags(t, NewCmdSummary, func(t *testing.T, f *cmdutil.Factory, o *summaryOptions) {
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
