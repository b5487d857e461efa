package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/rules"
)

// mergeOptions are the inputs of `capreport merge`.
type mergeOptions struct {
	files  []string
	format string
}

var mergeFormats = []string{"json", "text", "markdown"}

func newMergeCmd(ios *streams) *cobra.Command { return newMergeCmdF(ios, nil) }

// newMergeCmdF builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func newMergeCmdF(ios *streams, runF func(*mergeOptions) error) *cobra.Command {
	o := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Merge the JSON reports of a matrix of jobs into one",
		Long: "merge joins capreport JSON reports (one per job of a CI matrix, say) into one report:\n" +
			"workloads deduplicated by id (a conflicting duplicate keeps the first and is reported on\n" +
			"stderr), sources and findings concatenated, the summary recomputed. Every input must carry\n" +
			"the schema version " + rules.SchemaVersion + ".",
		Example: "  capreport merge charts.json overlays.json --format markdown",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.files = args
			if runF != nil {
				return runF(o)
			}
			return runMerge(ios, o)
		},
	}
	cmd.Flags().StringVarP(&o.format, "format", "o", "json", "output format: json, text or markdown")
	return cmd
}

func runMerge(ios *streams, o *mergeOptions) error {
	if err := checkFormat(o.format, mergeFormats...); err != nil {
		return err
	}
	var reports []rules.Report
	for _, f := range o.files {
		r, err := readReport(f)
		if err != nil {
			return err
		}
		reports = append(reports, *r)
	}
	merged, conflicts := mergeReports(reports, o.files)
	for _, c := range conflicts {
		fmt.Fprintf(ios.ErrOut, "capreport: warning: %s\n", c)
	}
	out, err := renderFormat(merged, o.format, formatOptions{color: ios.ColorEnabled()})
	if err != nil {
		return err
	}
	_, err = ios.Out.Write(out)
	return err
}

// readReport loads a saved JSON report; a file that is not one, or carries
// another schema version, is a usage error naming the file, because the fix
// is on the command line (another file, or a capreport of the same version).
// The posting commands, which may read an untrusted artifact, also check
// the schema (readReportLimited).
func readReport(path string) (*rules.Report, error) {
	return readReportLimited(path, defaultMaxReportBytes, false)
}

// readReportLimited reads at most limit bytes of a report and, with
// validate, checks it against the JSON schema before decoding: a report
// from an artifact may have been written by anyone.
func readReportLimited(path string, limit int64, validate bool) (*rules.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: %v", path, unwrapPathError(err))}
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, &usageError{msg: fmt.Sprintf("%s: not a regular file", path)}
	}
	b, err := readAtMost(f, limit+1)
	if err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: larger than %d bytes (--max-report-bytes)", path, limit)}
	}
	var v *report.Validator
	if validate {
		if v, err = report.NewValidator(); err != nil {
			return nil, err
		}
	}
	return decodeReport(path, b, v)
}

// decodeReport decodes a report read from path: its schemaVersion must be
// this capreport's, v (when not nil) validates it first, and the summary
// is recomputed from the workloads, never taken from the file: an artifact
// can claim "3 pass" over failing rows, and the headline is the one line
// every body keeps.
func decodeReport(path string, b []byte, v *report.Validator) (*rules.Report, error) {
	var probe struct {
		SchemaVersion *string `json:"schemaVersion"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: not a capreport JSON report: %v", path, err)}
	}
	if probe.SchemaVersion == nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: not a capreport JSON report: no schemaVersion", path)}
	}
	if *probe.SchemaVersion != rules.SchemaVersion {
		return nil, &usageError{msg: fmt.Sprintf("%s: schemaVersion %q, this capreport reads %q; re-run the capreport that matches it",
			path, report.TerminalSafe(*probe.SchemaVersion), rules.SchemaVersion)}
	}
	if v != nil {
		if err := v.Validate(b); err != nil {
			return nil, &usageError{msg: fmt.Sprintf("%s: does not match the capreport report schema: %v", path, err)}
		}
	}
	var r rules.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &usageError{msg: fmt.Sprintf("%s: not a capreport JSON report: %v", path, err)}
	}
	r.Summary = rules.Summarize(&r)
	return &r, nil
}

// unwrapPathError drops the path os.ReadFile repeats, since the message
// already starts with it.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// mergeReports joins reports (names are their files, for messages). The
// first report's tool is kept; roots are joined when they differ; the latest
// generatedAt wins. A duplicate workload id that is byte-for-byte the same
// (two jobs that scanned the same overlay) merges silently; one that differs
// keeps the first and yields a conflict message.
func mergeReports(rs []rules.Report, names []string) (rules.Report, []string) {
	out := rules.Report{
		SchemaVersion: rules.SchemaVersion,
		Workloads:     []rules.Workload{},
		Sources:       []rules.Source{},
		Findings:      []rules.Finding{},
	}
	var roots []string
	first := map[string]int{} // id → index of the report that gave it
	kept := map[string][]byte{}
	var conflicts []string
	for i, r := range rs {
		if i == 0 {
			out.Tool = r.Tool
		}
		if r.GeneratedAt > out.GeneratedAt {
			out.GeneratedAt = r.GeneratedAt
		}
		if r.Root != "" && !slices.Contains(roots, r.Root) {
			roots = append(roots, r.Root)
		}
		for _, w := range r.Workloads {
			b, _ := json.Marshal(w) // a decoded Workload always marshals
			if j, dup := first[w.ID]; dup {
				if !bytes.Equal(b, kept[w.ID]) {
					conflicts = append(conflicts, fmt.Sprintf("workload %s is in %s and, different, in %s; keeping %s",
						w.ID, names[j], names[i], names[j]))
				}
				continue
			}
			first[w.ID], kept[w.ID] = i, b
			out.Workloads = append(out.Workloads, w)
		}
		out.Sources = append(out.Sources, r.Sources...)
		out.Findings = append(out.Findings, r.Findings...)
	}
	out.Root = strings.Join(roots, ", ")
	rules.SortByID(out.Workloads)
	out.Summary = rules.Summarize(&out)
	return out, conflicts
}
