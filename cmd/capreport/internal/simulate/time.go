package simulate

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/rules"
)

// simulateTimeOptions are the raw flags of `capreport simulate time`.
type simulateTimeOptions struct {
	ios                        *cmdutil.IOStreams
	podRate, threshold, demand float64
	deadTime, window, step     string
	minReplicas, maxReplicas   int32
	syncPeriod                 string
	tolerance                  float64
	format                     string
	behavior                   string
	events                     bool
}

// newSimulateTimeCmd builds the command; runF, when set, receives the
// parsed options instead of running (flag-parsing tests).
func newSimulateTimeCmd(f *cmdutil.Factory, runF func(*simulateTimeOptions) error) *cobra.Command {
	o := &simulateTimeOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "time",
		Short: "Run a backlog-driven loop for 20 hours after a demand step (the Time row)",
		Long: "Runs KEDA's AverageValue backlog metric through the v1.34 controller, by default with no\n" +
			"behavior block (the legacy path: the window is the downscale stabilization setting and the\n" +
			"scale-up limit is max(2x, 4); --behavior FILE gives one, whose scaleDown window then wins),\n" +
			"and reports the last hour and the law's verdict; --events adds every scale event and sync.",
		Example: "  capreport simulate time --pod-rate 10 --threshold 10 --dead-time 90s --window 300s \\\n" +
			"    --demand 500 --step 4x",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return runSimulateTime(o)
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&o.podRate, "pod-rate", 10, "messages/s one consuming pod removes")
	fl.Float64Var(&o.threshold, "threshold", 10, "backlog target, messages per pod (e.g. KEDA's lagThreshold)")
	fl.StringVar(&o.deadTime, "dead-time", "90s", "order of a pod to its first consumed message")
	fl.StringVar(&o.window, "window", "300s", "downscale stabilization window")
	fl.Float64Var(&o.demand, "demand", 500, "messages/s before the step")
	fl.StringVar(&o.step, "step", "4x", "demand step, as a multiple")
	fl.Int32Var(&o.minReplicas, "min-replicas", 1, "minReplicas")
	fl.Int32Var(&o.maxReplicas, "max-replicas", 2000, "maxReplicas")
	fl.StringVar(&o.behavior, "behavior", "", "the HPA's behavior block, a YAML file in the HPA's own shape (default: none, the legacy path)")
	fl.BoolVar(&o.events, "events", false, "also print every scale event and the sync log after the step")
	addControllerFlags(cmd, &o.syncPeriod, nil, nil, &o.tolerance)
	fl.StringVarP(&o.format, "format", "o", "text", "output format: text or json")
	return cmd
}

func runSimulateTime(o *simulateTimeOptions) error {
	ios := o.ios
	if err := cmdutil.CheckFormat(o.format, "text", "json"); err != nil {
		return err
	}
	model, err := o.model()
	if err != nil {
		return err
	}
	var syncs []sim.SyncRecord
	if o.events {
		model.OnSync = func(r sim.SyncRecord) { syncs = append(syncs, r) }
	}
	bill, err := rules.PriceTime(model)
	if err != nil {
		return err
	}
	if o.format == "json" {
		if o.events {
			return cmdutil.WriteJSON(ios.Out, timeOutput{TimeBill: bill, ScaleEvents: scaleEventsOf(syncs), Syncs: syncLog(syncs)})
		}
		return cmdutil.WriteJSON(ios.Out, bill)
	}
	printTime(ios.Out, bill)
	if o.events {
		printSyncs(ios.Out, syncs)
	}
	return nil
}

// model checks the flags and builds the Time run they describe.
func (o *simulateTimeOptions) model() (rules.TimeModel, error) {
	var m rules.TimeModel
	if err := o.checkCounts(); err != nil {
		return m, err
	}
	deadTime, err := cmdutil.ParseSeconds("dead-time", o.deadTime, false)
	if err != nil {
		return m, err
	}
	window, err := cmdutil.ParseSeconds("window", o.window, true)
	if err != nil {
		return m, err
	}
	step, err := cmdutil.ParseMultiple("step", o.step)
	if err != nil {
		return m, err
	}
	cfg, err := controllerConfig(o.syncPeriod, "", "", o.tolerance)
	if err != nil {
		return m, err
	}
	cfg.DownscaleStabilizationWindow = time.Duration(window) * time.Second
	behavior, err := readBehavior("behavior", o.behavior)
	if err != nil {
		return m, err
	}
	if b := behavior; b != nil && b.ScaleDown != nil && b.ScaleDown.StabilizationWindowSeconds != nil {
		window = int64(*b.ScaleDown.StabilizationWindowSeconds) // as the controller reads it
	}
	return rules.TimeModel{
		Controller: sim.Controller{Config: cfg, MinReplicas: o.minReplicas, MaxReplicas: o.maxReplicas, Behavior: behavior},
		PodRate:    o.podRate,
		Threshold:  o.threshold,
		DeadTime:   deadTime,
		Window:     window,
		Demand:     o.demand,
		Step:       step,
	}, nil
}

// checkCounts refuses rates, thresholds and replica bounds no loop could
// have, and a demand the bounds cannot serve before the step.
func (o *simulateTimeOptions) checkCounts() error {
	for _, p := range []struct {
		flag string
		v    float64
	}{{"pod-rate", o.podRate}, {"threshold", o.threshold}, {"demand", o.demand}} {
		if err := cmdutil.Positive(p.flag, p.v); err != nil {
			return err
		}
	}
	if o.minReplicas < 1 {
		return cmdutil.FlagErrorf("min-replicas", "%d must be at least 1", o.minReplicas)
	}
	if o.maxReplicas < o.minReplicas {
		return cmdutil.FlagErrorf("max-replicas", "%d is below --min-replicas %d", o.maxReplicas, o.minReplicas)
	}
	if need := o.demand / o.podRate; need > float64(o.maxReplicas) {
		return cmdutil.FlagErrorf("demand", "%v/s needs %.0f pods at --pod-rate %v before the step, above --max-replicas %d", o.demand, need, o.podRate, o.maxReplicas)
	}
	return nil
}

// timeOutput is the Time bill with --events' scale events and sync log.
type timeOutput struct {
	*contract.TimeBill
	ScaleEvents []contract.ScaleEvent `json:"scaleEvents"`
	Syncs       []syncEntry           `json:"syncs"`
}

// syncEntry is one sync in the JSON sync log.
type syncEntry struct {
	T        int64   `json:"t"`
	Backlog  float64 `json:"backlog"`
	Replicas int32   `json:"replicas"`
	Proposal int32   `json:"proposal"`
	Desired  int32   `json:"desired"`
}

func syncLog(rs []sim.SyncRecord) []syncEntry {
	out := make([]syncEntry, len(rs))
	for i, r := range rs {
		out[i] = syncEntry(r)
	}
	return out
}

func scaleEventsOf(rs []sim.SyncRecord) []contract.ScaleEvent {
	out := []contract.ScaleEvent{}
	for _, r := range rs {
		if r.Desired != r.Replicas {
			out = append(out, contract.ScaleEvent{T: int(r.T), From: r.Replicas, To: r.Desired})
		}
	}
	return out
}

// printSyncs prints the scale events, then one line per sync.
func printSyncs(w io.Writer, rs []sim.SyncRecord) {
	events := scaleEventsOf(rs)
	fmt.Fprintf(w, "\nScale events after the step (%d)\n", len(events))
	for _, e := range events {
		fmt.Fprintf(w, "  %7d s  %d → %d\n", e.T, e.From, e.To)
	}
	fmt.Fprintf(w, "\nSync log (%d syncs)\n        t   backlog  replicas  proposal  desired\n", len(rs))
	for _, r := range rs {
		fmt.Fprintf(w, "  %7d s  %8.0f  %8d  %8d  %7d\n", r.T, r.Backlog, r.Replicas, r.Proposal, r.Desired)
	}
}

func printTime(w io.Writer, o *contract.TimeBill) {
	verdict := "rests"
	if o.Hunts {
		verdict = "HUNTS"
	}
	fmt.Fprintf(w, "Time bill of a backlog-driven loop\n")
	fmt.Fprintf(w, "  standing delay D       %s (threshold / pod rate)\n", units.Duration(o.StandingDelaySeconds))
	fmt.Fprintf(w, "  required delay         %s (τ_eff·Φ(%.2f) with Φ = %.3f)\n", units.Duration(o.RequiredStandingDelaySeconds), o.WindowInDeadTimes, o.Phi)
	fmt.Fprintf(w, "  last %-5s of 20 h     %s: %d..%d pods for %d needed (p5 %.0f, p95 %.0f, mean %.0f)\n",
		fmtHours(o.StatsWindowSeconds), verdict, o.ReplicasMin, o.ReplicasMax, o.NeededReplicas, o.ReplicasP5, o.ReplicasP95, o.ReplicasMean)
	fmt.Fprintf(w, "  peak backlog           %.0f messages, peak wait %s\n", o.PeakBacklog, units.Duration(o.PeakWaitSeconds))
	if !o.Hunts && o.MarginSeconds >= 0 {
		return // at rest and above the law: no remedy to offer
	}
	if o.ThresholdToRest != nil {
		fmt.Fprintf(w, "  threshold that rests   %.0f messages per pod (15%% over the law)\n", *o.ThresholdToRest)
	}
	switch {
	case o.WindowToRest == nil:
		fmt.Fprintf(w, "  longest window         none: even no window hunts at this threshold\n")
	case *o.WindowToRest == math.MaxInt32:
		fmt.Fprintf(w, "  longest window         any (D ≥ e·τ_eff rests whatever the window)\n")
	default:
		fmt.Fprintf(w, "  longest window         %s rests at this threshold\n", units.Seconds(*o.WindowToRest))
	}
	if o.DeadTimeToRest != nil {
		fmt.Fprintf(w, "  longest dead time      %s rests at this threshold and window\n", units.Seconds(*o.DeadTimeToRest))
	}
}

// fmtHours prints a statistics window: "hour" for the usual one.
func fmtHours(s int) string {
	if s == 3600 {
		return "hour"
	}
	return fmt.Sprintf("%.1fh", float64(s)/3600)
}
