package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/capreport/capreport/check"
	"github.com/spf13/cobra"
)

// newChecksCmd prints the checks registry: the IDs to include, exclude or
// ignore, with their default severity and what each one means.
func newChecksCmd(f *factory) *cobra.Command {
	ios := f.ios
	var format string
	cmd := &cobra.Command{
		Use: "checks",
		Example: "  capreport checks\n" +
			"  capreport checks -o json | jq '.[] | select(.severity == \"error\") | .id'\n" +
			"  capreport checks -o markdown   # the README's table",
		Short: "List every check with its ID, default severity and remedy",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(format, "text", "json", "markdown"); err != nil {
				return err
			}
			checks := check.All()
			switch format {
			case "json":
				return writeJSON(ios.Out, checks)
			case "markdown":
				_, err := ios.Out.Write([]byte(checksMarkdown(checks)))
				return err
			}
			tw := tabwriter.NewWriter(ios.Out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tTITLE")
			for _, c := range checks {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Severity, c.Title)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text, json (with descriptions and remedies) or markdown (the README's table)")
	return cmd
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
