package action

import (
	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// summaryOptions are the inputs of `capreport summary`.
type summaryOptions struct {
	ios *cmdutil.IOStreams
	postOptions
}

// NewCmdSummary builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func NewCmdSummary(f *cmdutil.Factory, runF func(*summaryOptions) error) *cobra.Command {
	o := &summaryOptions{ios: f.IOStreams, postOptions: postOptions{env: f.Env}}
	cmd := &cobra.Command{
		Use:   "summary --report REPORT.json [--base BASE.json]",
		Short: "Write the report to the GitHub Actions job summary",
		Long: "summary renders a JSON report (the diff base → head with --base, followed by every\n" +
			"autoscaler of the head) and appends it to the job summary ($GITHUB_STEP_SUMMARY, or\n" +
			"--summary FILE), kept under GitHub's 1 MiB per step. Without either it prints to stdout.\n" +
			"It needs no token: this is what a pull request from a fork can show.",
		Example: "  capreport deploy --format json > report.json\n" +
			"  capreport summary --report report.json --github-output \"$GITHUB_OUTPUT\"",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return runSummary(o)
		},
	}
	o.postOptions.register(cmd, true, "capreport")
	return cmd
}

func runSummary(o *summaryOptions) error {
	s := o.ios
	l, err := o.load()
	if err != nil {
		return err
	}
	if o.summary == "" {
		if v, _ := o.env("GITHUB_STEP_SUMMARY"); v == "" {
			o.summary = "-"
		}
	}
	ev, err := readEvent(o.env)
	if err != nil {
		return err
	}
	repo, _ := o.env("GITHUB_REPOSITORY")
	gh := githubOptions{GHDeps: cmdutil.GHDeps{Env: o.env}}
	note := artifactsNote(ev.runURL(o.env, gh.serverURL(), repo))
	// The summary is this command's whole job: failing to write it fails.
	if err := o.writeSummary(s, l, note); err != nil {
		return err
	}
	return o.writeOutputs(o.outputs(l)...)
}
