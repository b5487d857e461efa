// Package diffcmd is `capreport diff`: the autoscalers' bills of a base
// (a git revision, a directory or a saved report) and a head, built side by
// side and compared, gated as the Action's comment is. The name is diffcmd
// because the comparing is the report/diff package.
package diffcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/report/diff"
)

// diffOptions are the inputs of `capreport diff`.
type diffOptions struct {
	ios      *cmdutil.IOStreams
	ctx      context.Context // the command's, set before runF
	git      cmdutil.GitRunner
	version  string // the build's, which the reports name
	path     string
	render   cmdutil.RenderFlags
	baseRef  string
	baseDir  string
	baseJSON string
	headJSON string
	format   string
	// scope and worse are --fail-on-scope and --fail-on-worse: what
	// makes the exit code 1.
	scope string
	worse float64
	// saved bounds --base-json and --head-json together, as a posting
	// command's report and base are.
	saved *cmdutil.ReportBudget
}

var diffFormats = []string{"markdown", "json", "text"}

// NewCmdDiff builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func NewCmdDiff(f *cmdutil.Factory, runF func(*diffOptions) error) *cobra.Command {
	o := &diffOptions{ios: f.IOStreams, git: f.Git, version: f.Version}
	cmd := &cobra.Command{
		Use:   "diff [PATH] (--base-ref REF | --base-dir DIR | --base-json FILE)",
		Short: "Compare the autoscalers' bills of a base and a head: the pull-request comment",
		Long: "diff prices PATH (the head; or loads --head-json) and a base, and lists the autoscalers\n" +
			"that changed: added, removed, or with a bill figure, verdict, live finding, replica bound or\n" +
			"metric target that moved, each before → after. The base is PATH at a git revision\n" +
			"(--base-ref, checked out in a temporary worktree), another directory (--base-dir) or a\n" +
			"saved JSON report (--base-json); exactly one is required.\n\n" +
			"Exit codes: 0 nothing fails the gate, 1 something does: an autoscaler newly fails (fails\n" +
			"in head, did not in base; with --fail-on-scope all, any that fails in head) or, with\n" +
			"--fail-on-worse P, an autoscaler's bill grew by more than P percent; 2 usage or tool error.",
		Example: "  capreport diff deploy --base-ref origin/main --format markdown > comment.md\n" +
			"  capreport diff --base-json main.json --head-json pr.json --format json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.path = cmd.Context(), cmdutil.ArgPath(args)
			if runF != nil {
				return runF(o)
			}
			return runDiff(o)
		},
	}
	o.render.Register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.baseRef, "base-ref", "", "git revision of the base: PATH as it was at REF (e.g. origin/main, HEAD~1)")
	fl.StringVar(&o.baseDir, "base-dir", "", "directory holding the base (rendered with the same flags as PATH)")
	fl.StringVar(&o.baseJSON, "base-json", "", "saved JSON report of the base (capreport --format json)")
	fl.StringVar(&o.headJSON, "head-json", "", "saved JSON report of the head, instead of rendering PATH")
	fl.StringVarP(&o.format, "format", "o", "markdown", "output format: markdown, json or text")
	fl.StringVar(&o.scope, "fail-on-scope", cmdutil.FailOnScopeNew, "which failing autoscalers make the exit code 1: new (failing in the head and not in the base) or all (any failing in the head)")
	fl.Float64Var(&o.worse, "fail-on-worse", 0, "also exit 1 when an autoscaler's bill (rounds, time to capacity, peak wait, peak pods, required standing delay, replica band) grew by more than this percent; 0 turns it off")
	return cmd
}

func runDiff(o *diffOptions) error {
	ctx, ios := o.ctx, o.ios
	if err := cmdutil.CheckFormat(o.format, diffFormats...); err != nil {
		return err
	}
	if err := cmdutil.CheckGateFlags(o.scope, o.worse); err != nil {
		return err
	}
	n := 0
	for _, s := range []string{o.baseRef, o.baseDir, o.baseJSON} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return &cmdutil.UsageError{Msg: "exactly one of --base-ref, --base-dir or --base-json is required"}
	}

	// Only the JSON diff carries the workloads whole, rounds curve included.
	o.render.NoPlotCurves = o.format != "json"
	s := o.render.Settings(ios, cmdutil.ToolOf(o.version), o.git)
	head, base, err := o.buildBoth(ctx, s)
	if err != nil {
		return err
	}

	res := diff.Compare(*base, *head)
	var out []byte
	switch o.format {
	case "json":
		out, err = diff.JSON(res)
	case "text":
		out, err = diff.Text(res)
	default:
		out, err = diff.Markdown(res, diff.Options{WorsePercent: o.worse})
	}
	if err != nil {
		return err
	}
	if _, err := ios.Out.Write(out); err != nil {
		return err
	}
	if n := gateFailures(res, head, o.scope, o.worse); n > 0 {
		return &cmdutil.ChecksFailedError{Failed: n}
	}
	return nil
}

// gateFailures counts what fails diff's gate: the autoscalers newly
// failing (every one failing in the head with scope all, counted from its
// workloads rather than trusted from a saved summary) and those whose bill
// grew past worse percent.
func gateFailures(res diff.Result, head *contract.Report, scope string, worse float64) int {
	n := res.Counts.NewFailures
	if scope == cmdutil.FailOnScopeAll {
		n = 0
		for _, w := range head.Workloads {
			if w.Verdict == contract.VerdictFail {
				n++
			}
		}
	}
	if worse > 0 {
		n += len(diff.BillsWorse(res, worse))
	}
	return n
}

// buildBoth builds the head and the base at once: with a warm cache each
// is mostly stats, reads and a git checkout, which overlap. The progress
// bar follows the head alone (one bar, and its closure is not shared).
func (o *diffOptions) buildBoth(ctx context.Context, s pipeline.Settings) (head, base *contract.Report, err error) {
	baseS := s
	baseS.Progress = nil
	var rev *pipeline.Revision
	if o.baseRef != "" {
		rev = pipeline.NewRevision(s.Git, o.path, o.baseRef, "base-ref")
	}
	if rev != nil && o.headJSON == "" && o.render.Cache {
		// The head checks first the sources the commits since the base
		// changed: the ones it is likeliest to render.
		s.CheckFirst = pipeline.ChangedSince(ctx, rev)
	}
	if o.headJSON == "" || o.baseJSON == "" {
		// One worker for both builds, held until both are done: the
		// head's, then the base's, so that a one-chart change starts one.
		defer s.Prestart(1)()
	}
	o.saved = cmdutil.NewReportBudget(cmdutil.DefaultMaxReportBytes, fmt.Sprintf("the %d bytes capreport reads of two reports", int64(cmdutil.DefaultMaxReportBytes)))
	if o.headJSON != "" && o.baseJSON != "" { // nothing rendered: reports alone
		cmdutil.TightenGCForReports(cmdutil.DefaultMaxReportBytes)
	}
	// The base's bytes first: a head over the rest is the one refused,
	// and its error is the one reported (firstCause).
	o.saved.Reserve(o.baseJSON, o.headJSON)
	var headErr, baseErr error
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		head, headErr = o.headReport(gctx, s)
		return headErr
	})
	g.Go(func() error {
		base, baseErr = o.baseReport(gctx, baseS, rev)
		return baseErr
	})
	_ = g.Wait()
	if err := firstCause(ctx, headErr, baseErr); err != nil {
		return nil, nil, err
	}
	return head, base, nil
}

// firstCause is the error to report of builds run side by side, the
// head's first as when they ran in turn: one that fails cancels the
// others, whose "context canceled" then hides the cause (diff --base-ref
// no-such-branch said so in 2 runs of 15). It is the cancellation only
// when the caller's ctx itself ended (Ctrl-C) or nothing else failed.
func firstCause(ctx context.Context, errs ...error) error {
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case ctx.Err() == nil && errors.Is(err, context.Canceled):
			if canceled == nil {
				canceled = err
			}
		default:
			return err
		}
	}
	return canceled
}

// headReport is the diff's head: the report it is given, or a build of PATH.
func (o *diffOptions) headReport(ctx context.Context, s pipeline.Settings) (*contract.Report, error) {
	if o.headJSON != "" {
		return o.readJSON(o.headJSON)
	}
	head, _, err := pipeline.Build(ctx, []string{o.path}, s)
	return head, err
}

// readJSON loads a saved JSON report (--base-json, --head-json): a
// regular file within what the other left of the default bound, its
// schema version checked; unlike merge's inputs and the posting commands'
// it is not held to the whole schema.
func (o *diffOptions) readJSON(path string) (*contract.Report, error) {
	return o.saved.Read(path, nil)
}

// baseReport is the diff's base: a report, a directory or rev, the git
// revision --base-ref names.
func (o *diffOptions) baseReport(ctx context.Context, s pipeline.Settings, rev *pipeline.Revision) (*contract.Report, error) {
	var base *contract.Report
	var err error
	switch {
	case o.baseJSON != "":
		base, err = o.readJSON(o.baseJSON)
	case o.baseDir != "":
		base, _, err = pipeline.Build(ctx, []string{filepath.Clean(o.baseDir)}, s)
	default:
		base, _, err = pipeline.BuildAtRevision(ctx, rev, s)
	}
	return base, err
}
