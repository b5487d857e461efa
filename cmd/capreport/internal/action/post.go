// Package action holds the commands of the GitHub Action, which publish a
// saved report: `capreport comment github` (a pull request's comment),
// `issue github` (an issue kept for a default branch) and `summary` (the
// job summary), with what they share: the reports they read and the
// bodies, outputs and gate they write (post.go), and the workflow event
// they answer (ghevent.go).
package action

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/diff"
)

// Limits of what GitHub shows, and of what capreport reads from an
// artifact that a pull request's code may have written.
const (
	// stepSummaryLimit is GitHub's limit on one step's job summary.
	stepSummaryLimit = 1 << 20
	// summaryMargin is kept free under that limit for other writers.
	summaryMargin = 8 << 10
	// summaryCharts is how many workloads get a Mermaid chart in a summary.
	summaryCharts = 10
)

// summaryLimitName names the job summary's budget in "cut" notices.
const summaryLimitName = "the job summary's 1 MiB limit"

// postOptions are the inputs shared by `comment github`, `issue github` and
// `summary`: the reports, and where the summary and outputs go.
type postOptions struct {
	report         string
	base           string
	maxReportBytes int64
	summary        string
	githubOutput   string
	title          string
	failOn         string
	// failOnScope is new (count only what fails in the head and did not
	// in the base) or all ("" too); new without a base counts all.
	failOnScope string
	// failOnWorse, when positive, also counts each autoscaler whose bill
	// grew by more than this percent (diff.BillsWorse) with --base.
	failOnWorse float64

	env cmdutil.LookupEnv
}

func (o *postOptions) register(cmd *cobra.Command, withBase bool, title string) {
	fl := cmd.Flags()
	fl.StringVar(&o.report, "report", "", "JSON report to post (capreport --format json, or report.json of --out); required")
	if withBase {
		fl.StringVar(&o.base, "base", "", "JSON report of the base: the body is then the diff, base → head")
		fl.StringVar(&o.failOnScope, "fail-on-scope", cmdutil.FailOnScopeNew, "which failing checks failed=N counts with --base: new (failing in the head and not in the base: what the pull request makes worse) or all")
		fl.Float64Var(&o.failOnWorse, "fail-on-worse", 0, "with --base, failed=N also counts each autoscaler whose bill (rounds, time to capacity, peak wait, peak pods, required standing delay, replica band) grew by more than this percent; 0 turns it off")
	}
	fl.Int64Var(&o.maxReportBytes, "max-report-bytes", cmdutil.DefaultMaxReportBytes, "refuse a report file larger than this, or a report and its --base larger together (either may come from an untrusted artifact)")
	fl.StringVar(&o.summary, "summary", "", "append the full report to this file (default $GITHUB_STEP_SUMMARY; - for stdout)")
	fl.StringVar(&o.githubOutput, "github-output", "", "append step outputs (verdict=, report=, …) to this file, e.g. \"$GITHUB_OUTPUT\"")
	fl.StringVar(&o.title, "title", title, "title heading the body")
	fl.StringVar(&o.failOn, "fail-on", "", "also write the output failed=N: the checks of the report failing at error, warning or never")
}

// loaded are the reports a posting command works from.
type loaded struct {
	head, base *contract.Report
	headPath   string
	// worsePercent is --fail-on-worse: the diff's lead names the bills
	// past it.
	worsePercent float64
}

// load reads --report (and --base): size-capped and checked against the
// JSON schema, because in the fork-safe workflow they come from an
// artifact the pull request's code produced.
func (o *postOptions) load() (*loaded, error) {
	if o.report == "" {
		return nil, cmdutil.FlagErrorf("report", "a JSON report is required (capreport PATH --format json > report.json)")
	}
	if o.maxReportBytes <= 0 {
		return nil, cmdutil.FlagErrorf("max-report-bytes", "must be positive")
	}
	if o.failOn != "" && !slices.Contains([]string{config.FailOnError, config.FailOnWarning, config.FailOnNever}, o.failOn) {
		return nil, cmdutil.FlagErrorf("fail-on", "%q is not one of error, warning, never", o.failOn)
	}
	if err := cmdutil.CheckGateFlags(o.failOnScope, o.failOnWorse); err != nil {
		return nil, err
	}
	v, err := report.NewValidator()
	if err != nil {
		return nil, err
	}
	// Head and base are held in memory together, about 1.5 bytes a byte
	// of report each: one bound for both.
	budget := cmdutil.NewReportBudget(o.maxReportBytes, fmt.Sprintf("--max-report-bytes (%d); raise it", o.maxReportBytes))
	cmdutil.TightenGCForReports(o.maxReportBytes)
	head, err := budget.Read(o.report, v)
	if err != nil {
		return nil, err
	}
	l := &loaded{head: head, headPath: o.report, worsePercent: o.failOnWorse}
	if o.base != "" {
		if l.base, err = budget.Read(o.base, v); err != nil {
			return nil, err
		}
	}
	if abs, err := filepath.Abs(o.report); err == nil {
		l.headPath = abs
	}
	return l, nil
}

// verdict is the report's worst workload verdict, "none" without any.
func verdict(r *contract.Report) string {
	if len(r.Workloads) == 0 {
		return "none"
	}
	return report.WorstFirst(r.Workloads)[0].Verdict
}

// body renders the Markdown for a budget: the diff when there is a base,
// else the report.
func (l *loaded) body(title string, maxChars, maxCharts int, limitName, note string, images map[string][]report.Image) []byte {
	if l.base != nil {
		out, _ := diff.Markdown(diff.Compare(*l.base, *l.head), diff.Options{
			Title: title, MaxChars: maxChars, Images: images, Note: note, LimitName: limitName, WorsePercent: l.worsePercent,
		})
		return out
	}
	out, _ := report.Markdown(*l.head, report.Options{
		Title: title, MaxChars: maxChars, MaxCharts: maxCharts, Images: images, Note: note, LimitName: limitName,
	})
	return out
}

// summaryBody is what the job summary gets within budget bytes: the
// comment's content with room for every detail, and after a diff the full
// head report, so a reader sees every autoscaler, not only the changed.
func (l *loaded) summaryBody(title string, budget int, note string) []byte {
	if l.base == nil {
		return l.body(title, budget, summaryCharts, summaryLimitName, note, nil)
	}
	d := l.body(title, budget/4, summaryCharts, summaryLimitName, note, nil)
	rest := budget - len(d) - 2
	if rest < 4<<10 {
		return d
	}
	full, _ := report.Markdown(*l.head, report.Options{
		Title: title + ": every autoscaler of the head", MaxChars: rest, MaxCharts: summaryCharts,
		LimitName: summaryLimitName,
	})
	return append(append(d, '\n'), full...)
}

// writeSummary appends the report to the job summary (--summary, else
// $GITHUB_STEP_SUMMARY; "-" is stdout). It runs before anything is posted,
// so a failed comment still leaves the report where the run shows it.
func (o *postOptions) writeSummary(s *cmdutil.IOStreams, l *loaded, note string) error {
	path := o.summary
	if path == "" {
		path, _ = o.env("GITHUB_STEP_SUMMARY")
	}
	if path == "" {
		return nil
	}
	if path == "-" {
		_, err := s.Out.Write(l.summaryBody(o.title, stepSummaryLimit-summaryMargin, note))
		return err
	}
	used := int64(0)
	if fi, err := os.Stat(path); err == nil {
		used = fi.Size()
	}
	budget := stepSummaryLimit - summaryMargin - int(used)
	var body []byte
	if budget < 16<<10 {
		body = []byte("\n> capreport: the job summary is nearly full; the report is in the run's artifacts.\n")
	} else {
		body = l.summaryBody(o.title, budget, note)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--summary %s: %w", path, cmdutil.UnwrapPathError(err))
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return fmt.Errorf("--summary %s: %w", path, err)
	}
	return f.Close()
}

// record writes what a run keeps whatever happens next: the job summary
// (a failure to write it is a warning, the post matters more) and the step
// outputs verdict, report and, with --fail-on, failed.
func (o *postOptions) record(s *cmdutil.IOStreams, l *loaded, note string) error {
	if err := o.writeSummary(s, l, note); err != nil {
		fmt.Fprintf(s.ErrOut, "capreport: warning: job summary not written: %v\n", err)
	}
	return o.writeOutputs(o.outputs(l)...)
}

// outputs are the step outputs every posting command writes.
func (o *postOptions) outputs(l *loaded) []string {
	kv := []string{"verdict", verdict(l.head), "report", l.headPath}
	if o.failOn != "" {
		n := cmdutil.Failing(l.head, o.failOn)
		if o.failOnScope == cmdutil.FailOnScopeNew && l.base != nil {
			n = cmdutil.NewlyFailing(l.base, l.head, o.failOn)
		}
		worse := 0
		if l.base != nil {
			worse = cmdutil.WorseBills(l.base, l.head, o.failOnWorse)
		}
		kv = append(kv, "failed", strconv.Itoa(n+worse), "worse", strconv.Itoa(worse))
	}
	return kv
}

// writeOutputs appends key=value step outputs to --github-output in the
// format GitHub reads (a value with a newline gets a random delimiter).
func (o *postOptions) writeOutputs(kv ...string) error {
	if o.githubOutput == "" {
		return nil
	}
	var b bytes.Buffer
	for i := 0; i+1 < len(kv); i += 2 {
		k, v := kv[i], kv[i+1]
		if !strings.ContainsAny(v, "\r\n") {
			fmt.Fprintf(&b, "%s=%s\n", k, v)
			continue
		}
		var r [12]byte
		_, _ = rand.Read(r[:])
		delim := "capreport_" + hex.EncodeToString(r[:])
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", k, delim, v, delim)
	}
	f, err := os.OpenFile(o.githubOutput, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("--github-output %s: %w", o.githubOutput, cmdutil.UnwrapPathError(err))
	}
	if _, err := io.Copy(f, &b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
