package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/report"
)

// issueOptions are the inputs of `capreport issue github`.
type issueOptions struct {
	ios *cmdutil.IOStreams
	ctx context.Context // the command's, set before runF
	postOptions
	githubOptions
	labels []string
}

func NewCmdIssue(f *cmdutil.Factory) *cobra.Command {
	return platformCmd("issue", "Keep the repository-wide report as one living issue",
		newIssueGitHubCmd(f, nil))
}

// newIssueGitHubCmd builds the command; runF, when set, receives the
// parsed options instead of running (flag-parsing tests).
func newIssueGitHubCmd(f *cmdutil.Factory, runF func(*issueOptions) error) *cobra.Command {
	o := &issueOptions{ios: f.IOStreams, postOptions: postOptions{env: f.Env}, githubOptions: githubOptions{GHDeps: f.GHDeps}}
	cmd := &cobra.Command{
		Use:   "github --report REPORT.json",
		Short: "Create or update the report issue on GitHub",
		Long: "issue github renders the repository-wide report from a JSON report and keeps it as one open\n" +
			"issue: the newest open issue with the labels whose body starts with the same hidden marker\n" +
			"gets the new title and body; without one, an issue is opened with the labels. Nothing is\n" +
			"written when the title and body are unchanged. The full report is appended to the job\n" +
			"summary first. The token needs issues: write.",
		Example: "  capreport deploy --format json > report.json\n" +
			"  capreport issue github --report report.json --repo acme/deploy",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.ctx = cmd.Context()
			if runF != nil {
				return runF(o)
			}
			return runIssueGitHub(o)
		},
	}
	o.postOptions.register(cmd, false, "capreport: autoscaler report")
	o.githubOptions.register(cmd)
	fl := cmd.Flags()
	fl.Lookup("title").Usage = "the issue's title, also heading its body"
	fl.StringSliceVar(&o.labels, "label", []string{"capreport"}, "label the issue carries and is found by (repeatable)")
	return cmd
}

func runIssueGitHub(o *issueOptions) error {
	ctx, s := o.ctx, o.ios
	if strings.TrimSpace(o.title) == "" {
		return cmdutil.FlagErrorf("title", "the issue's title cannot be empty")
	}
	for _, l := range o.labels {
		if strings.TrimSpace(l) == "" {
			return cmdutil.FlagErrorf("label", "a label cannot be empty")
		}
	}
	p, err := prepare(&o.postOptions, &o.githubOptions)
	if err != nil {
		return err
	}
	owner, name, repo, l, note := p.owner, p.name, p.repo, p.loaded, p.note
	body := l.body(o.title, report.DefaultMaxChars, 0, "", note, nil)
	if o.dryRun {
		fmt.Fprintf(s.ErrOut, "dry run: would create or update the open issue %q labelled %s in %s at %s\n",
			o.title, strings.Join(o.labels, ","), repo, o.apiDisplay())
		_, err := s.Out.Write(body)
		return err
	}
	if err := o.record(s, l, note); err != nil {
		return err
	}
	c, err := o.client()
	if err != nil {
		return err
	}
	res, err := c.UpsertIssue(ctx, owner, name, o.title, string(body), o.labels)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "%s issue %s#%d\n", describe(res.Action), repo, res.ID)
	fmt.Fprintln(s.Out, res.URL)
	return o.writeOutputs("issue-url", res.URL)
}
