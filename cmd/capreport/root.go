package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// run builds the command tree, executes it and maps the outcome to an exit
// code; it never panics on user input.
func run(args []string, ios *streams) int {
	return execute(args, newFactory(ios))
}

// execute is run on a factory of the caller's (tests pin its clock).
func execute(args []string, f *factory) int {
	ios, prof := f.ios, f.prof
	root := newRootCmd(f)
	root.SetArgs(args)
	// Ctrl-C cancels the pricing between workloads instead of killing the
	// process mid-write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		var cf *checksFailedError
		if !errors.As(err, &cf) {
			fmt.Fprintf(ios.ErrOut, "capreport: %v\n", err)
		}
	}
	return exitCode(err)
}

func newRootCmd(fac *factory) *cobra.Command {
	ios, prof := fac.ios, fac.prof
	f := &runFlags{}
	root := &cobra.Command{
		Use:   "capreport [PATH...]",
		Short: "Price the Kubernetes autoscalers of a repository before they ship",
		Long: "capreport renders the Helm charts, Kustomize overlays and manifests under each PATH (a\n" +
			"directory, a file, or - for standard input; default .),\n" +
			"finds every HorizontalPodAutoscaler and KEDA ScaledObject, simulates the v1.34 HPA controller\n" +
			"against a fluid model of each workload, and prints the ledger: the Size bill of a saturating\n" +
			"CPU metric, the Time bill of a backlog metric, and pass/fail against latency targets.\n\n" +
			"Exit codes: 0 nothing fails, 1 a check fails (see --fail-on), 2 usage or tool error.",
		Version: fac.version,
		Example: "  capreport ./deploy\n" +
			"  capreport charts/web -f charts/web/values-prod.yaml -n shop\n" +
			"  capreport base/hpa.yaml base/deployment.yaml\n" +
			"  helm template charts/web | capreport -\n" +
			"  capreport . --out report --color never",
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.render.stdin = ios.In
			return runReport(cmd.Context(), ios, fac.git, argPaths(args), f)
		},
	}
	addRunFlags(root, f)
	root.PersistentFlags().StringVar(&ios.colorMode, "color", "auto", "colour the text output: auto (a terminal, unless NO_COLOR; FORCE_COLOR or CLICOLOR_FORCE force it), always or never")
	root.PersistentFlags().StringVar(&prof.mode, "profile", "none", "record a Go profile of the command: none, cpu or heap (as kubectl's --profile); each render worker writes its own beside it (PROFILE-OUTPUT.worker.PID; go tool pprof merges them)")
	root.PersistentFlags().StringVar(&prof.output, "profile-output", "capreport.pprof", "file --profile writes, for go tool pprof")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if err := checkValue("color", ios.colorMode, colorModes...); err != nil {
			return err
		}
		return prof.start()
	}
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.AddCommand(
		newSimulateCmd(fac),
		newPhiCmd(fac),
		newDiffCmd(fac),
		newMergeCmd(fac),
		newInitCmd(fac),
		newExplainCmd(fac),
		newChecksCmd(fac),
		newListCmd(fac),
		newCommentCmd(fac),
		newIssueCmd(fac),
		newSummaryCmd(fac),
		newCalibrateCmd(fac, nil),
	)
	return root
}
