package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// run builds the command tree, executes it and maps the outcome to an exit
// code; it never panics on user input.
func run(args []string, io *streams) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		var cf *checksFailedError
		if !errors.As(err, &cf) {
			fmt.Fprintf(io.ErrOut, "capreport: %v\n", err)
		}
	}
	return exitCode(err)
}

func newRootCmd(io *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "capreport",
		Short:         "Price the Kubernetes autoscalers of a repository before they ship",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.AddCommand(
		newSimulateCmd(io),
		newPhiCmd(io),
	)
	return root
}
