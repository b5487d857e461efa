package simulate

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/rules"
)

// simulateSizeOptions are the raw flags of `capreport simulate size`.
type simulateSizeOptions struct {
	ios                                 *cmdutil.IOStreams
	pods                                int32
	request, limit                      string
	target                              int
	podRate                             float64
	deadTime, metricWindow, overload    string
	minReplicas, maxReplicas            int32
	behavior                            string
	efficiency                          float64
	syncPeriod, downscaleWindow, cipStr string
	tolerance                           float64
	format                              string
}

// newSimulateSizeCmd builds the command; runF, when set, receives the
// parsed options instead of running (flag-parsing tests).
func newSimulateSizeCmd(f *cmdutil.Factory, runF func(*simulateSizeOptions) error) *cobra.Command {
	o := &simulateSizeOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "size",
		Short: "Price a k-fold overload on a saturating CPU metric (the Size row)",
		Example: "  capreport simulate size --pods 10 --request 1 --limit 1 --target 50 \\\n" +
			"    --pod-rate 100 --dead-time 90s --overload 10x",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return runSimulateSize(o)
		},
	}
	fl := cmd.Flags()
	fl.Int32Var(&o.pods, "pods", 10, "pods before the step, at rest at the target")
	fl.StringVar(&o.request, "request", "1", "CPU request of one pod (Kubernetes quantity, e.g. 250m)")
	fl.StringVar(&o.limit, "limit", "", "CPU limit of one pod (default: the request)")
	fl.IntVar(&o.target, "target", 50, "target CPU utilization, percent of the request")
	fl.Float64Var(&o.podRate, "pod-rate", 100, "requests/s one pod serves at 100% of its CPU request")
	fl.StringVar(&o.deadTime, "dead-time", "90s", "order of a pod to its first served request")
	fl.StringVar(&o.overload, "overload", "10x", "demand step, as a multiple of the demand before it")
	fl.StringVar(&o.metricWindow, "metric-window", "30s", "CPU metric window")
	fl.Int32Var(&o.minReplicas, "min-replicas", 1, "minReplicas of the HPA")
	fl.Int32Var(&o.maxReplicas, "max-replicas", 100000, "maxReplicas of the HPA")
	fl.StringVar(&o.behavior, "behavior", "", "the HPA's behavior block, a YAML file in the HPA's own shape (default: none, the legacy path)")
	fl.Float64Var(&o.efficiency, "efficiency", 1, "fraction of its full rate a saturated pod still serves")
	addControllerFlags(cmd, &o.syncPeriod, &o.downscaleWindow, &o.cipStr, &o.tolerance)
	fl.StringVarP(&o.format, "format", "o", "text", "output format: text or json")
	return cmd
}

// sizeOutput is one overload's Size bill, flat, with the product.md field
// names: the growth factor and dead band beside the overload's figures.
type sizeOutput struct {
	GrowthFactor float64 `json:"growthFactor"`
	DeadBand     bool    `json:"deadBand"`
	RoundSeconds int     `json:"roundSeconds"`
	contract.SizeOverload
}

func runSimulateSize(o *simulateSizeOptions) error {
	ios := o.ios
	if err := cmdutil.CheckFormat(o.format, "text", "json"); err != nil {
		return err
	}
	model, err := o.model()
	if err != nil {
		return err
	}
	bill, err := rules.PriceSize(model)
	if err != nil {
		return err
	}
	out := sizeOutput{GrowthFactor: bill.GrowthFactor, DeadBand: bill.DeadBand, RoundSeconds: bill.RoundSeconds, SizeOverload: bill.Overloads[0]}
	if o.format == "json" {
		return cmdutil.WriteJSON(ios.Out, out)
	}
	printSize(ios.Out, out)
	return nil
}

// model checks the flags and builds the Size run they describe.
func (o *simulateSizeOptions) model() (rules.SizeModel, error) {
	var m rules.SizeModel
	request, limit, err := o.cpu()
	if err != nil {
		return m, err
	}
	if err := o.checkCounts(); err != nil {
		return m, err
	}
	deadTime, err := cmdutil.ParseSeconds("dead-time", o.deadTime, false)
	if err != nil {
		return m, err
	}
	window, err := cmdutil.ParseSeconds("metric-window", o.metricWindow, false)
	if err != nil {
		return m, err
	}
	k, err := cmdutil.ParseMultiple("overload", o.overload)
	if err != nil {
		return m, err
	}
	cfg, err := controllerConfig(o.syncPeriod, o.downscaleWindow, o.cipStr, o.tolerance)
	if err != nil {
		return m, err
	}
	behavior, err := readBehavior("behavior", o.behavior)
	if err != nil {
		return m, err
	}
	return rules.SizeModel{
		Run: sim.SizeOptions{
			Controller:   sim.Controller{Config: cfg, MinReplicas: o.minReplicas, MaxReplicas: o.maxReplicas, Behavior: behavior},
			Pods:         o.pods,
			RequestMilli: request,
			LimitMilli:   limit,
			Target:       int32(o.target),
			PodRate:      o.podRate,
			DeadTime:     deadTime,
			MetricWindow: window,
			Efficiency:   o.efficiency,
		},
		Overloads: []float64{k},
	}, nil
}

// cpu reads --request and --limit, in millicores.
func (o *simulateSizeOptions) cpu() (request, limit int64, err error) {
	if request, err = cmdutil.ParseCPU("request", o.request); err != nil {
		return 0, 0, err
	}
	limit = request
	if o.limit != "" {
		if limit, err = cmdutil.ParseCPU("limit", o.limit); err != nil {
			return 0, 0, err
		}
	}
	if limit < request {
		return 0, 0, cmdutil.FlagErrorf("limit", "%s is below the request %s", o.limit, o.request)
	}
	return request, limit, nil
}

// checkCounts refuses pods, replica bounds, target, rate and efficiency no
// HPA could have.
func (o *simulateSizeOptions) checkCounts() error {
	switch {
	case o.target <= 0 || o.target > 100:
		return cmdutil.FlagErrorf("target", "%d must be a percentage in 1..100", o.target)
	case o.pods <= 0:
		return cmdutil.FlagErrorf("pods", "%d must be positive", o.pods)
	case o.minReplicas < 1:
		return cmdutil.FlagErrorf("min-replicas", "%d must be at least 1", o.minReplicas)
	case o.maxReplicas < o.pods:
		return cmdutil.FlagErrorf("max-replicas", "%d is below --pods %d", o.maxReplicas, o.pods)
	case o.maxReplicas < o.minReplicas:
		return cmdutil.FlagErrorf("max-replicas", "%d is below --min-replicas %d", o.maxReplicas, o.minReplicas)
	case !(o.efficiency > 0 && o.efficiency <= 1):
		return cmdutil.FlagErrorf("efficiency", "%v must be in (0, 1]", o.efficiency)
	}
	return cmdutil.Positive("pod-rate", o.podRate)
}

func printSize(w io.Writer, o sizeOutput) {
	fmt.Fprintf(w, "Size bill of a %gx overload\n", o.K)
	fmt.Fprintf(w, "  growth factor g     %.3g%s\n", o.GrowthFactor, map[bool]string{true: "  (dead band: never scales on saturation)", false: ""}[o.DeadBand])
	if o.TimeToCapacitySeconds == nil {
		fmt.Fprintf(w, "  time to capacity    never (status reads %d%%)\n", o.StatusUtilization)
	} else {
		fmt.Fprintf(w, "  time to capacity    %s\n", units.Seconds(*o.TimeToCapacitySeconds))
		fmt.Fprintf(w, "  rounds              %d of %s (Prop. 2 bound: %s)\n", *o.Rounds, units.Seconds(o.RoundSeconds), boundString(o.RoundsBound))
	}
	fmt.Fprintf(w, "  peak replicas       %d for %d needed (overshoot %.2fx)\n", o.PeakReplicas, o.NeededReplicas, o.Overshoot)
	fmt.Fprintf(w, "  peak backlog        %.0f requests\n", o.PeakBacklog)
	fmt.Fprintf(w, "  peak wait           %s\n", units.Duration(o.PeakWaitSeconds))
	if o.DrainedAtSeconds != nil {
		fmt.Fprintf(w, "  backlog drained at  %s\n", units.Seconds(*o.DrainedAtSeconds))
	}
	fmt.Fprintf(w, "  orders             ")
	for i, e := range o.ScaleEvents {
		if i == 12 {
			fmt.Fprintf(w, " … (%d more)", len(o.ScaleEvents)-i)
			break
		}
		fmt.Fprintf(w, " %d@%ds", e.To, e.T)
	}
	fmt.Fprintln(w)
}
