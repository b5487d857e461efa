package simulate

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// The controller-manager flags simulate size and simulate time share, and
// how each prints a bound.

// addControllerFlags adds the controller's flags to cmd; a nil window or
// cip leaves that flag out.
func addControllerFlags(cmd *cobra.Command, sync, window, cip *string, tolerance *float64) {
	fl := cmd.Flags()
	fl.StringVar(sync, "sync-period", "15s", "controller sync period")
	fl.Float64Var(tolerance, "tolerance", 0.1, "controller tolerance, each way")
	if window != nil {
		fl.StringVar(window, "downscale-window", "300s", "downscale stabilization window")
	}
	if cip != nil {
		fl.StringVar(cip, "cpu-initialization-period", "5m", "CPU initialization period")
	}
}

// controllerConfig reads the controller-manager flags.
func controllerConfig(sync, window, cip string, tolerance float64) (hpa.Config, error) {
	cfg := hpa.DefaultConfig()
	s, err := cmdutil.ParseSeconds("sync-period", sync, false)
	if err != nil {
		return cfg, err
	}
	cfg.SyncPeriod = time.Duration(s) * time.Second
	if tolerance < 0 || tolerance >= 1 {
		return cfg, cmdutil.FlagErrorf("tolerance", "%v must be in [0, 1)", tolerance)
	}
	cfg.Tolerance = tolerance
	if window != "" {
		w, err := cmdutil.ParseSeconds("downscale-window", window, true)
		if err != nil {
			return cfg, err
		}
		cfg.DownscaleStabilizationWindow = time.Duration(w) * time.Second
	}
	if cip != "" {
		c, err := cmdutil.ParseSeconds("cpu-initialization-period", cip, true)
		if err != nil {
			return cfg, err
		}
		cfg.CPUInitializationPeriod = time.Duration(c) * time.Second
	}
	return cfg, nil
}

// boundString prints a round bound, or says there is none.
func boundString(b *int) string {
	if b == nil {
		return "none: the controller never scales on saturation"
	}
	return fmt.Sprint(*b)
}
