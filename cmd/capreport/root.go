package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/action"
	"github.com/capreport/capreport/cmd/capreport/internal/calibratecmd"
	"github.com/capreport/capreport/cmd/capreport/internal/checks"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/cmd/capreport/internal/diffcmd"
	"github.com/capreport/capreport/cmd/capreport/internal/explain"
	"github.com/capreport/capreport/cmd/capreport/internal/initcmd"
	"github.com/capreport/capreport/cmd/capreport/internal/list"
	"github.com/capreport/capreport/cmd/capreport/internal/mergecmd"
	"github.com/capreport/capreport/cmd/capreport/internal/simulate"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/pipeline"
)

// run builds the command tree, executes it and maps the outcome to an exit
// code; it never panics on user input.
func run(args []string, ios *cmdutil.IOStreams) int {
	return execute(args, newFactory(ios))
}

// newFactory is the process's factory on ios, of this build.
func newFactory(ios *cmdutil.IOStreams) *cmdutil.Factory {
	return cmdutil.NewFactory(ios, readBuildInfo(debug.ReadBuildInfo))
}

// execute is run on a factory of the caller's (tests pin its clock).
func execute(args []string, f *cmdutil.Factory) int {
	ios, prof := f.IOStreams, f.Prof
	root := newRootCmd(f, nil)
	root.SetArgs(args)
	// Ctrl-C cancels the pricing between workloads instead of killing the
	// process mid-write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	if perr := prof.Stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		var cf *cmdutil.ChecksFailedError
		if !errors.As(err, &cf) {
			fmt.Fprintf(ios.ErrOut, "capreport: %v\n", err)
		}
	}
	return cmdutil.ExitCode(err)
}

// newRootCmd builds the command tree; runF, when set, receives the parsed
// options of the main job instead of running it (flag-parsing tests).
func newRootCmd(f *cmdutil.Factory, runF func(*rootOptions) error) *cobra.Command {
	ios, prof := f.IOStreams, f.Prof
	o := &rootOptions{ios: ios, git: f.Git, version: f.Version}
	root := &cobra.Command{
		Use:   "capreport [PATH...]",
		Short: "Price the Kubernetes autoscalers of a repository before they ship",
		Long: "capreport renders the Helm charts, Kustomize overlays and manifests under each PATH (a\n" +
			"directory, a file, or - for standard input; default .),\n" +
			"finds every HorizontalPodAutoscaler and KEDA ScaledObject, simulates the v1.34 HPA controller\n" +
			"against a fluid model of each workload, and prints the ledger: the Size bill of a saturating\n" +
			"CPU metric, the Time bill of a backlog metric, and pass/fail against latency targets.\n\n" +
			"Exit codes: 0 nothing fails, 1 a check fails (see --fail-on), 2 usage or tool error.",
		Version: f.Build.String(),
		Example: "  capreport ./deploy\n" +
			"  capreport charts/web -f charts/web/values-prod.yaml -n shop\n" +
			"  capreport base/hpa.yaml base/deployment.yaml\n" +
			"  helm template charts/web | capreport -\n" +
			"  capreport . --out report --color never",
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.render.Stdin = ios.In
			o.ctx, o.paths = cmd.Context(), cmdutil.ArgPaths(args)
			if runF != nil {
				return runF(o)
			}
			return runRoot(o)
		},
	}
	addRunFlags(root, o)
	root.PersistentFlags().StringVar(&ios.ColorMode, "color", "auto", "colour the text output: auto (a terminal, unless NO_COLOR; FORCE_COLOR or CLICOLOR_FORCE force it), always or never")
	root.PersistentFlags().StringVar(&prof.Mode, "profile", "none", "record a Go profile of the command: none, cpu or heap (as kubectl's --profile); each render worker writes its own beside it (PROFILE-OUTPUT.worker.PID; go tool pprof merges them)")
	root.PersistentFlags().StringVar(&prof.Output, "profile-output", "capreport.pprof", "file --profile writes, for go tool pprof")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := cmdutil.CheckValue("color", ios.ColorMode, cmdutil.ColorModes...); err != nil {
			return err
		}
		return prof.Start()
	}
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &cmdutil.UsageError{Msg: err.Error()}
	})
	root.AddCommand(
		simulate.NewCmdSimulate(f),
		simulate.NewCmdPhi(f, nil),
		diffcmd.NewCmdDiff(f, nil),
		mergecmd.NewCmdMerge(f, nil),
		initcmd.NewCmdInit(f, nil),
		explain.NewCmdExplain(f, nil),
		checks.NewCmdChecks(f, nil),
		list.NewCmdList(f, nil),
		action.NewCmdComment(f),
		action.NewCmdIssue(f),
		action.NewCmdSummary(f, nil),
		calibratecmd.NewCmdCalibrate(f, nil),
	)
	return root
}

// rootOptions are the inputs of `capreport [PATH...]`, the main job.
type rootOptions struct {
	ios     *cmdutil.IOStreams
	ctx     context.Context // the command's, set before runF
	git     cmdutil.GitRunner
	version string // the build's, which the report names
	paths   []string
	render  cmdutil.RenderFlags
	format  string
	out     string
	failOn  string
	ref     string
	pretty  bool
}

var reportFormats = []string{"text", "json", "markdown", "html", "sarif"}

// showsPlotCurves reports whether a run's output reads the curves the
// plots draw (the rounds sweep, the Φ samples): the JSON report carries
// them, the Markdown details list the rounds, the HTML page and --out draw
// them; text and SARIF do not, and are not made to wait for the sweep.
func showsPlotCurves(format, out string) bool {
	return out != "" || format == "json" || format == "markdown" || format == "html"
}

// addRunFlags registers the main job's flags on the root command.
func addRunFlags(cmd *cobra.Command, f *rootOptions) {
	f.render.Register(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.format, "format", "o", "text", "output format: text, json, markdown, html or sarif")
	fl.StringVar(&f.out, "out", "", "also write report.json, report.md, report.html, report.sarif and plots to this directory")
	fl.StringVar(&f.ref, "ref", "", "price PATH as it was at this git revision (checked out in a temporary worktree; yours is untouched)")
	fl.BoolVar(&f.pretty, "pretty", false, "indent JSON (--format json and report.json of --out) for people; by default it is compact, for programs and artifacts")
	fl.StringVar(&f.failOn, "fail-on", "", "exit 1 when a check fails at this severity: error, warning or never (default: the config's failOn, else error)")
}

// runRoot is the main job: discover, render, analyze, simulate, report.
func runRoot(o *rootOptions) error {
	ctx, ios, paths := o.ctx, o.ios, o.paths
	if err := cmdutil.CheckFormat(o.format, reportFormats...); err != nil {
		return err
	}
	if o.failOn != "" && !slices.Contains([]string{config.FailOnError, config.FailOnWarning, config.FailOnNever}, o.failOn) {
		return cmdutil.FlagErrorf("fail-on", "%q is not one of error, warning, never", o.failOn)
	}
	var r *contract.Report
	var cfg *config.Config
	var err error
	o.render.NoPlotCurves = !showsPlotCurves(o.format, o.out)
	switch {
	case o.ref != "" && len(paths) > 1:
		return cmdutil.FlagErrorf("ref", "takes one PATH, not %d", len(paths))
	case o.ref != "":
		r, cfg, err = pipeline.BuildAtRef(ctx, paths[0], o.ref, "ref", o.render.Settings(ios, cmdutil.ToolOf(o.version), o.git))
	default:
		r, cfg, err = pipeline.Build(ctx, paths, o.render.Settings(ios, cmdutil.ToolOf(o.version), o.git))
	}
	if err != nil {
		return err
	}
	out, err := cmdutil.RenderFormat(*r, o.format, cmdutil.FormatOptions{Color: ios.ColorEnabled(), Pretty: o.pretty})
	if err != nil {
		return err
	}
	if _, err := ios.Out.Write(out); err != nil {
		return err
	}
	if o.out != "" {
		if err := cmdutil.WriteOutDir(o.out, *r, o.pretty, o.render.Progress); err != nil {
			return err
		}
		fmt.Fprintf(ios.ErrOut, "wrote %s\n", o.out)
	}
	failOn := o.failOn
	if failOn == "" && cfg != nil {
		failOn = cfg.FailOn
	}
	if failOn == "" {
		failOn = config.FailOnError
	}
	if n := cmdutil.Failing(r, failOn); n > 0 {
		return &cmdutil.ChecksFailedError{Failed: n}
	}
	return nil
}
