package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/analyze/sim"
)

type timeFlags struct {
	podRate, threshold, demand float64
	deadTime, window, step     string
	minReplicas, maxReplicas   int32
	syncPeriod                 string
	tolerance                  float64
	format                     string
}

func newSimulateTimeCmd(io *streams, runF func(*timeFlags) error) *cobra.Command {
	f := &timeFlags{}
	cmd := &cobra.Command{
		Use:   "time",
		Short: "Run a backlog-driven loop for 20 hours after a demand step (the Time row)",
		Long: "Runs KEDA's AverageValue backlog metric through the v1.34 controller with no behavior\n" +
			"block (the legacy path: the window is the downscale stabilization setting and the\n" +
			"scale-up limit is max(2x, 4)), and reports the last hour and the law's verdict.",
		Example: "  capreport simulate time --pod-rate 10 --threshold 10 --dead-time 90s --window 300s \\\n" +
			"    --demand 500 --step 4x",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(f)
			}
			return runSimulateTime(io, f)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&f.podRate, "pod-rate", 10, "messages/s one consuming pod removes")
	fl.Float64Var(&f.threshold, "threshold", 10, "backlog target, messages per pod (e.g. KEDA's lagThreshold)")
	fl.StringVar(&f.deadTime, "dead-time", "90s", "order of a pod to its first consumed message")
	fl.StringVar(&f.window, "window", "300s", "downscale stabilization window")
	fl.Float64Var(&f.demand, "demand", 500, "messages/s before the step")
	fl.StringVar(&f.step, "step", "4x", "demand step, as a multiple")
	fl.Int32Var(&f.minReplicas, "min-replicas", 1, "minReplicas")
	fl.Int32Var(&f.maxReplicas, "max-replicas", 2000, "maxReplicas")
	addControllerFlags(cmd, &f.syncPeriod, nil, nil, &f.tolerance)
	fl.StringVarP(&f.format, "format", "o", "text", "output format: text or json")
	return cmd
}

// timeOutput carries the product.md field names.
type timeOutput struct {
	StandingDelaySeconds         float64 `json:"standingDelaySeconds"`
	RequiredStandingDelaySeconds float64 `json:"requiredStandingDelaySeconds"`
	Phi                          float64 `json:"phi"`
	WindowInDeadTimes            float64 `json:"windowInDeadTimes"`
	Hunts                        bool    `json:"hunts"`
	ReplicasMin                  int32   `json:"replicasMin"`
	ReplicasMax                  int32   `json:"replicasMax"`
	ReplicasMean                 float64 `json:"replicasMean"`
	ReplicasP5                   float64 `json:"replicasP5"`
	ReplicasP95                  float64 `json:"replicasP95"`
	NeededReplicas               float64 `json:"neededReplicas"`
	PeakBacklog                  float64 `json:"peakBacklog"`
	PeakWaitSeconds              float64 `json:"peakWaitSeconds"`
}

func runSimulateTime(io *streams, f *timeFlags) error {
	if err := checkFormat(f.format, "text", "json"); err != nil {
		return err
	}
	for _, p := range []struct {
		flag string
		v    float64
	}{{"pod-rate", f.podRate}, {"threshold", f.threshold}, {"demand", f.demand}} {
		if err := positive(p.flag, p.v); err != nil {
			return err
		}
	}
	deadTime, err := parseSeconds("dead-time", f.deadTime, false)
	if err != nil {
		return err
	}
	window, err := parseSeconds("window", f.window, true)
	if err != nil {
		return err
	}
	step, err := parseMultiple("step", f.step)
	if err != nil {
		return err
	}
	if f.minReplicas < 1 {
		return flagErrorf("min-replicas", "%d must be at least 1", f.minReplicas)
	}
	if f.maxReplicas < f.minReplicas {
		return flagErrorf("max-replicas", "%d is below --min-replicas %d", f.maxReplicas, f.minReplicas)
	}
	cfg, err := controllerConfig(f.syncPeriod, "", "", f.tolerance)
	if err != nil {
		return err
	}
	cfg.DownscaleStabilizationWindow = time.Duration(window) * time.Second
	r, err := sim.SimulateTime(sim.TimeOptions{
		Controller:   sim.Controller{Config: cfg, MinReplicas: f.minReplicas, MaxReplicas: f.maxReplicas},
		PodRate:      f.podRate,
		Threshold:    f.threshold,
		DeadTime:     deadTime,
		DemandBefore: f.demand,
		DemandAfter:  f.demand * step,
	})
	if err != nil {
		return err
	}
	w := laws.EffectiveWindow(float64(window)) / laws.EffectiveDeadTime(float64(deadTime))
	out := timeOutput{
		StandingDelaySeconds:         laws.StandingDelay(f.threshold, f.podRate),
		RequiredStandingDelaySeconds: laws.RequiredStandingDelay(float64(deadTime), float64(window)),
		Phi:                          phi.Phi(w),
		WindowInDeadTimes:            w,
		Hunts:                        r.Hunts,
		ReplicasMin:                  r.Min,
		ReplicasMax:                  r.Max,
		ReplicasMean:                 r.Mean,
		ReplicasP5:                   r.P5,
		ReplicasP95:                  r.P95,
		NeededReplicas:               r.NeededReplicas,
		PeakBacklog:                  r.PeakBacklog,
		PeakWaitSeconds:              r.PeakWait,
	}
	if f.format == "json" {
		return writeJSON(io.Out, out)
	}
	printTime(io.Out, out)
	return nil
}

func printTime(w io.Writer, o timeOutput) {
	verdict := "rests"
	if o.Hunts {
		verdict = "HUNTS"
	}
	fmt.Fprintf(w, "Time bill of a backlog-driven loop\n")
	fmt.Fprintf(w, "  standing delay D       %.1f s (threshold / pod rate)\n", o.StandingDelaySeconds)
	fmt.Fprintf(w, "  required delay         %.1f s (τ_eff·Φ(%.2f) with Φ = %.3f)\n", o.RequiredStandingDelaySeconds, o.WindowInDeadTimes, o.Phi)
	fmt.Fprintf(w, "  last hour of 20 h      %s: %d..%d pods for %.0f needed (p5 %.0f, p95 %.0f, mean %.0f)\n",
		verdict, o.ReplicasMin, o.ReplicasMax, o.NeededReplicas, o.ReplicasP5, o.ReplicasP95, o.ReplicasMean)
	fmt.Fprintf(w, "  peak backlog           %.0f messages, peak wait %.1f s\n", o.PeakBacklog, o.PeakWaitSeconds)
}
