package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/gcpace"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/artifact"
	"github.com/capreport/capreport/report/merge"
)

// mergeOptions are the inputs of `capreport merge`.
type mergeOptions struct {
	ios    *streams
	files  []string
	format string
	pretty bool
	prefer string
	failOn string
	// maxReportBytes bounds each input and all of them together.
	maxReportBytes int64
}

var mergeFormats = []string{"json", "text", "markdown"}

// newMergeCmd builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func newMergeCmd(f *factory, runF func(*mergeOptions) error) *cobra.Command {
	o := &mergeOptions{ios: f.ios}
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
	fl.Int64Var(&o.maxReportBytes, "max-report-bytes", defaultMaxReportBytes, "refuse reports larger than this, each or together (a report may come from an untrusted artifact)")
	return cmd
}

func runMerge(o *mergeOptions) error {
	ios := o.ios
	if err := checkFormat(o.format, mergeFormats...); err != nil {
		return err
	}
	if !slices.Contains([]string{merge.PreferNone, merge.PreferFirst, merge.PreferLast}, o.prefer) {
		return flagErrorf("prefer", "%q is not one of first, last", o.prefer)
	}
	if !slices.Contains([]string{config.FailOnError, config.FailOnWarning, config.FailOnNever}, o.failOn) {
		return flagErrorf("fail-on", "%q is not one of error, warning, never", o.failOn)
	}
	if o.maxReportBytes <= 0 {
		return flagErrorf("max-report-bytes", "must be positive")
	}
	reports, err := readMergeInputs(o.files, o.maxReportBytes)
	if err != nil {
		return err
	}
	merged, warnings, err := merge.Reports(reports, o.files, o.prefer)
	if ce := (*merge.ConflictError)(nil); errors.As(err, &ce) {
		return &usageError{msg: ce.Error()}
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
	if n := failing(&merged, o.failOn); n > 0 {
		return &checksFailedError{failed: n}
	}
	return nil
}

// writeMerged writes the merged report in its format; JSON a workload at
// a time, since the merged report may be as large as all its inputs.
func writeMerged(w io.Writer, merged contract.Report, o *mergeOptions, color bool) error {
	if o.format == "json" {
		return report.WriteJSON(w, merged, report.Options{Pretty: o.pretty})
	}
	out, err := renderFormat(merged, o.format, formatOptions{color: color, pretty: o.pretty})
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
			return nil, &usageError{msg: fmt.Sprintf("%s: %v", f, unwrapPathError(err))}
		}
		if !fi.Mode().IsRegular() {
			return nil, &usageError{msg: (&safefile.NotRegularError{Path: f, Mode: fi.Mode()}).Error()}
		}
		if total += fi.Size(); total > limit {
			return nil, &usageError{msg: fmt.Sprintf("%s: the reports up to it hold %d bytes, more than --max-report-bytes (%d) allows together "+
				"(the merged report is read by comment, summary and diff under that bound); merge fewer, or raise it", f, total, limit)}
		}
	}
	tightenGCForReports()
	v, err := report.NewValidator()
	if err != nil {
		return nil, err
	}
	var out []contract.Report
	left := limit
	for _, f := range files {
		r, n, err := readReportCounted(f, left, v)
		if err != nil {
			return nil, err
		}
		left -= n
		out = append(out, *r)
	}
	return out, nil
}

// tightenGCForReports lets the heap grow by half of what is live between
// collections, not by all of it, in a command that reads reports and
// little else: reading one, the live heap grows steadily (the decoded
// workloads) under much short-lived garbage (the schema's walk), and the
// default lets the heap reach twice the decoded report. merge of a
// 256 MiB report: 1.06 GB resident and 25 s by default, 0.82 GB and 30 s
// this way. A GOGC of the runner's wins (gcpace.SetPercent).
func tightenGCForReports() { gcpace.SetPercent(50) }

// reportBudget bounds the reports one command reads together (a report
// and its base, read side by side by diff): each file's size is taken
// from what is left before a byte of it is read, so that a second report
// over the rest is refused unread. Files read side by side are reserved
// first, in a fixed order, so that which one is refused does not depend
// on which goroutine ran first.
type reportBudget struct {
	mu       sync.Mutex
	left     int64
	limit    int64
	bound    string           // names the bound and the way out, for messages
	reserved map[string]int64 // sizes taken by reserve, not yet read
	refused  map[string]error // what reserve refused, returned by read
}

func newReportBudget(limit int64, bound string) *reportBudget {
	return &reportBudget{left: limit, limit: limit, bound: bound,
		reserved: map[string]int64{}, refused: map[string]error{}}
}

// reserve takes the sizes of the reports at paths, in order, from what
// is left; read then reads each within its reservation, or returns why
// it was refused. An empty path is skipped.
func (b *reportBudget) reserve(paths ...string) {
	for _, path := range paths {
		if path == "" {
			continue
		}
		size, err := b.take(path)
		b.mu.Lock()
		if err != nil {
			b.refused[path] = err
		} else {
			b.reserved[path] = size
		}
		b.mu.Unlock()
	}
}

// read reads the report at path within what is left, or within what
// reserve took for it.
func (b *reportBudget) read(path string, v *report.Validator) (*contract.Report, error) {
	b.mu.Lock()
	size, ok := b.reserved[path]
	err := b.refused[path]
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if !ok {
		if size, err = b.take(path); err != nil {
			return nil, err
		}
	}
	return readReportLimited(path, size, v)
}

// take takes the size of the file at path from what is left: the bound
// a reader holds it to. A path that is not a regular file takes nothing
// (the reader's error names what it is) and is held to the whole bound.
func (b *reportBudget) take(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return b.limit, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if fi.Size() > b.left {
		used := b.limit - b.left
		if used == 0 {
			return 0, reportFileError(path, b.limit, &safefile.TooLargeError{Path: path, Limit: b.limit})
		}
		return 0, &usageError{msg: fmt.Sprintf("%s: with the other report's %d bytes, more than %s allows together", path, used, b.bound)}
	}
	b.left -= fi.Size()
	return fi.Size(), nil
}

// readReportLimited reads a report of at most limit bytes and, given a
// validator, checks it against the JSON schema as it decodes: a report
// may come from an artifact anyone wrote, and one without workloads or
// sources would be merged or posted as if it had none. A file that is not one, or
// carries another schema version, is a usage error naming the file,
// because the fix is on the command line (another file, or a capreport of
// the same version).
func readReportLimited(path string, limit int64, v *report.Validator) (*contract.Report, error) {
	r, _, err := readReportCounted(path, limit, v)
	return r, err
}

// readReportCounted is readReportLimited that also says how many bytes
// it read. The file is a regular file (a symlink to one is followed, the
// user named it), checked before it is opened and on the open file,
// opened without waiting, and decoded as it is read (artifact.Read):
// memory holds the decoded report, never the file's text.
func readReportCounted(path string, limit int64, v *report.Validator) (*contract.Report, int64, error) {
	f, err := safefile.OpenLimited(path, limit, true)
	if err != nil {
		return nil, 0, reportFileError(path, limit, err)
	}
	defer f.Close()
	r, err := artifact.ReadWithin(path, f, v, maxDecodedFor(limit))
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) || f.N() > limit { // grew while read
		return nil, 0, reportFileError(path, limit, &safefile.TooLargeError{Path: path, Limit: limit})
	}
	if err != nil {
		return nil, 0, &usageError{msg: err.Error()}
	}
	return r, f.N(), nil
}

// maxDecodedFor bounds the decoded workloads of a report read within
// limit bytes: twice the text (capreport's own take 1.5 times it), and
// room for a small report's fixed costs. A report written to inflate
// (timelines of one-digit numbers) is refused, not held at 4 times.
func maxDecodedFor(limit int64) int64 { return 2*limit + 16<<20 }

// reportFileError is the usage error of a report file that cannot be
// read: not a regular file, too large, or missing.
func reportFileError(path string, limit int64, err error) error {
	var nr *safefile.NotRegularError
	var tl *safefile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return &usageError{msg: nr.Error()}
	case errors.As(err, &tl):
		return &usageError{msg: fmt.Sprintf("%s: larger than %d bytes (--max-report-bytes)", path, limit), err: tl}
	default:
		return &usageError{msg: fmt.Sprintf("%s: %v", path, unwrapPathError(err))}
	}
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
