// Package simulate holds the what-if calculators, whose inputs are flags
// instead of a repository: `capreport simulate size` and `simulate time`
// (one run of the v1.34 HPA controller against a fluid model) and
// `capreport phi` (the Φ bound of a window and dead time); they check the
// core from outside.
package simulate

import (
	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// NewCmdSimulate is the what-if calculator: one Size or Time run from flags,
// the way to check the core from outside.
func NewCmdSimulate(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use: "simulate",
		Example: "  capreport simulate size --pods 10 --request 1 --limit 1 --target 50 --overload 10\n" +
			"  capreport simulate time --pod-rate 10 --threshold 10 --dead-time 90s --window 300s",
		Short: "Run one what-if simulation of the HPA controller against a fluid model",
	}
	cmd.AddCommand(newSimulateSizeCmd(f, nil), newSimulateTimeCmd(f, nil))
	return cmd
}
