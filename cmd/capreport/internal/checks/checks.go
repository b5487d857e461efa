// Package checks is `capreport checks`: every check of the registry with
// its ID, default severity and remedy.
package checks

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// checksOptions are the inputs of `capreport checks`.
type checksOptions struct {
	ios    *cmdutil.IOStreams
	format string
}

// NewCmdChecks prints the checks registry: the IDs to include, exclude or
// ignore, with their default severity and what each one means. runF, when
// set, receives the parsed options instead of running (flag-parsing tests).
func NewCmdChecks(f *cmdutil.Factory, runF func(*checksOptions) error) *cobra.Command {
	o := &checksOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use: "checks",
		Example: "  capreport checks\n" +
			"  capreport checks -o json | jq '.[] | select(.severity == \"error\") | .id'\n" +
			"  capreport checks -o markdown   # the README's table",
		Short: "List every check with its ID, default severity and remedy",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(o)
			}
			return runChecks(o)
		},
	}
	cmd.Flags().StringVarP(&o.format, "format", "o", "text", "output format: text, json (with descriptions and remedies) or markdown (the README's table)")
	return cmd
}

func runChecks(o *checksOptions) error {
	if err := cmdutil.CheckFormat(o.format, "text", "json", "markdown"); err != nil {
		return err
	}
	checks := check.All()
	switch o.format {
	case "json":
		return cmdutil.WriteJSON(o.ios.Out, checks)
	case "markdown":
		_, err := o.ios.Out.Write([]byte(checksMarkdown(checks)))
		return err
	}
	tw := tabwriter.NewWriter(o.ios.Out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tTITLE")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Severity, c.Title)
	}
	return tw.Flush()
}

// checksMarkdown is the registry as the README's table of checks: one row
// per check, in the registry's order. The README holds exactly this text
// (TestREADMEChecksTable), so the table cannot drift from the registry.
func checksMarkdown(checks []check.Info) string {
	var b strings.Builder
	b.WriteString("| ID | severity | what it means |\n|---|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.ID, c.Severity, strings.ReplaceAll(c.Title, "|", "\\|"))
	}
	return b.String()
}
