package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/hpa"
)

// newSimulateCmd is the what-if calculator: one Size or Time run from flags,
// the way to check the core from outside.
func newSimulateCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use: "simulate",
		Example: "  capreport simulate size --pods 10 --request 1 --limit 1 --target 50 --overload 10\n" +
			"  capreport simulate time --pod-rate 10 --threshold 10 --dead-time 90s --window 300s",
		Short: "Run one what-if simulation of the HPA controller against a fluid model",
	}
	cmd.AddCommand(newSimulateSizeCmd(f, nil), newSimulateTimeCmd(f, nil))
	return cmd
}

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
	s, err := parseSeconds("sync-period", sync, false)
	if err != nil {
		return cfg, err
	}
	cfg.SyncPeriod = time.Duration(s) * time.Second
	if tolerance < 0 || tolerance >= 1 {
		return cfg, flagErrorf("tolerance", "%v must be in [0, 1)", tolerance)
	}
	cfg.Tolerance = tolerance
	if window != "" {
		w, err := parseSeconds("downscale-window", window, true)
		if err != nil {
			return cfg, err
		}
		cfg.DownscaleStabilizationWindow = time.Duration(w) * time.Second
	}
	if cip != "" {
		c, err := parseSeconds("cpu-initialization-period", cip, true)
		if err != nil {
			return cfg, err
		}
		cfg.CPUInitializationPeriod = time.Duration(c) * time.Second
	}
	return cfg, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func boundString(b *int) string {
	if b == nil {
		return "none: the controller never scales on saturation"
	}
	return fmt.Sprint(*b)
}
