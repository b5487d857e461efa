package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/capreport/capreport/check"
	"github.com/spf13/cobra"
)

// newChecksCmd prints the checks registry: the IDs to include, exclude or
// ignore, with their default severity and what each one means.
func newChecksCmd(ios *streams) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use: "checks",
		Example: "  capreport checks\n" +
			"  capreport checks -o json | jq '.[] | select(.severity == \"error\") | .id'",
		Short: "List every check with its ID, default severity and remedy",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			checks := check.All()
			if format == "json" {
				return writeJSON(ios.Out, checks)
			}
			tw := tabwriter.NewWriter(ios.Out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tTITLE")
			for _, c := range checks {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Severity, c.Title)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&format, "format", "o", "text", "output format: text or json (with descriptions and remedies)")
	return cmd
}
