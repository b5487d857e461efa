// Package mergecmd is `capreport merge`: the JSON reports of a matrix of
// jobs, each read within a bound, merged into one report in any format.
// The name is mergecmd because the merging is the report/merge package.
package mergecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/merge"
)

// mergeOptions are the inputs of `capreport merge`.
type mergeOptions struct {
	ios    *cmdutil.IOStreams
	files  []string
	format string
	pretty bool
	prefer string
	failOn string
	// maxReportBytes bounds each input and all of them together.
	maxReportBytes int64
}

var mergeFormats = []string{"json", "text", "markdown"}

// NewCmdMerge builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func NewCmdMerge(f *cmdutil.Factory, runF func(*mergeOptions) error) *cobra.Command {
	o := &mergeOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Merge the JSON reports of a matrix of jobs into one",
		Long: "merge joins capreport JSON reports (one per job of a CI matrix, say) into one report.\n" +
			"Workloads are keyed by the root each report scanned and their id: one workload twice is\n" +
			"kept once; workloads of different roots that share an id are all kept, each id qualified\n" +
			"as ROOT:ID; two different workloads of one root and id are an error (exit 2) unless\n" +
			"--prefer names which report wins. Paths keep their root, sources and findings are\n" +
			"concatenated and the summary recomputed. Every input must be a regular file that matches\n" +
			"the report schema, " + contract.SchemaVersion + ", and the inputs together may hold at most\n" +
			"--max-report-bytes: what they merge into is read by comment, summary and diff under that bound.\n\n" +
			"Exit codes: 0 nothing fails, 1 a check of the merged report fails (see --fail-on), 2 usage\n" +
			"or tool error, or a conflict.",
		Example: "  capreport merge charts.json overlays.json --format markdown\n" +
			"  capreport merge reports/*/report.json --fail-on never > merged.json",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if runF != nil {
				return runF(o)
			}
			return runMerge(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.format, "format", "o", "json", "output format: json, text or markdown")
	fl.BoolVar(&o.pretty, "pretty", false, "indent JSON for people; by default it is compact")
	fl.StringVar(&o.prefer, "prefer", "", "settle a conflict (one root and id, two different workloads) by keeping the first or the last report's: first or last")
	fl.StringVar(&o.failOn, "fail-on", config.FailOnError, "exit 1 when a check of the merged report fails at this severity: error, warning or never")
	fl.Int64Var(&o.maxReportBytes, "max-report-bytes", cmdutil.DefaultMaxReportBytes, "refuse reports larger than this, each or together (a report may come from an untrusted artifact)")
	return cmd
}

func runMerge(o *mergeOptions) error {
	ios := o.ios
	if err := cmdutil.CheckFormat(o.format, mergeFormats...); err != nil {
		return err
	}
	if !slices.Contains([]string{merge.PreferNone, merge.PreferFirst, merge.PreferLast}, o.prefer) {
		return cmdutil.FlagErrorf("prefer", "%q is not one of first, last", o.prefer)
	}
	if !slices.Contains([]string{config.FailOnError, config.FailOnWarning, config.FailOnNever}, o.failOn) {
		return cmdutil.FlagErrorf("fail-on", "%q is not one of error, warning, never", o.failOn)
	}
	if o.maxReportBytes <= 0 {
		return cmdutil.FlagErrorf("max-report-bytes", "must be positive")
	}
	reports, err := readMergeInputs(o.files, o.maxReportBytes)
	if err != nil {
		return err
	}
	merged, warnings, err := merge.Reports(reports, o.files, o.prefer)
	if ce := (*merge.ConflictError)(nil); errors.As(err, &ce) {
		return &cmdutil.UsageError{Msg: ce.Error()}
	}
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(ios.ErrOut, "capreport: warning: %s\n", w)
	}
	if err := writeMerged(ios.Out, merged, o, ios.ColorEnabled()); err != nil {
		return err
	}
	// The merged report is written either way; its worst verdict decides
	// the exit code, as for one run.
	if n := cmdutil.Failing(&merged, o.failOn); n > 0 {
		return &cmdutil.ChecksFailedError{Failed: n}
	}
	return nil
}

// writeMerged writes the merged report in its format; JSON a workload at
// a time, since the merged report may be as large as all its inputs.
func writeMerged(w io.Writer, merged contract.Report, o *mergeOptions, color bool) error {
	if o.format == "json" {
		return report.WriteJSON(w, merged, report.Options{Pretty: o.pretty})
	}
	out, err := cmdutil.RenderFormat(merged, o.format, cmdutil.FormatOptions{Color: color, Pretty: o.pretty})
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// readMergeInputs reads merge's reports. Every one is a regular file
// (stat, before any is opened: a FIFO would block the open, a device never
// end), and their sizes together are within limit before a byte of them
// is read; each is then read within what the ones before it left of
// limit, and held to the report schema.
func readMergeInputs(files []string, limit int64) ([]contract.Report, error) {
	total := int64(0)
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, &cmdutil.UsageError{Msg: fmt.Sprintf("%s: %v", f, cmdutil.UnwrapPathError(err))}
		}
		if !fi.Mode().IsRegular() {
			return nil, &cmdutil.UsageError{Msg: (&safefile.NotRegularError{Path: f, Mode: fi.Mode()}).Error()}
		}
		if total += fi.Size(); total > limit {
			return nil, &cmdutil.UsageError{Msg: fmt.Sprintf("%s: the reports up to it hold %d bytes, more than --max-report-bytes (%d) allows together "+
				"(the merged report is read by comment, summary and diff under that bound); merge fewer, or raise it", f, total, limit)}
		}
	}
	cmdutil.TightenGCForReports(limit)
	v, err := report.NewValidator()
	if err != nil {
		return nil, err
	}
	var out []contract.Report
	left := limit
	for _, f := range files {
		r, n, err := cmdutil.ReadReportCounted(f, left, v)
		if err != nil {
			return nil, err
		}
		left -= n
		out = append(out, *r)
	}
	return out, nil
}
