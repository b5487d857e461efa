package rules

import (
	"errors"
	"fmt"
	"strconv"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/contract"
)

// sizeWorkBudget bounds one autoscaler's Size row, in sim.SizeOptions.MaxWork
// units shared by its design overloads and then the sweep (about a second
// of one core): the ranges of config.RangeOf bound each value, this bounds
// their product (a dead time of an hour read every second by a controller
// adding a pod at a time is millions of cohort reads per run).
const sizeWorkBudget = 3_000_000

// readBudget bounds what one autoscaler's controller reads of its own
// history, in sim.SizeOptions.MaxReads units, shared like sizeWorkBudget by
// the overloads and the sweep (and the Time row's one run): about a second
// of one core. The history holds a stabilization window over a sync period
// of recommendations, and the scale events of a policy period, read once
// per policy, which only a sync period shorter than the default or dozens
// of policies make large: at 15 s, the hour's window and half-hour periods
// the API allows, with two policies a direction and a scale event at
// every sync, twenty runs of six hours read about a third of it.
const readBudget = 100_000_000

// sizeBudget is what is left of one autoscaler's budgets.
type sizeBudget struct{ work, reads int64 }

// limit sets the run's budgets to what is left.
func (b sizeBudget) limit(o *sim.SizeOptions) { o.MaxWork, o.MaxReads = b.work, b.reads }

// charge takes a finished run's spending off what is left.
func (b *sizeBudget) charge(r *sim.SizeResult) { b.work, b.reads = b.work-r.Work, b.reads-r.Reads }

// roundsSweep is the overloads of the rounds-against-k plot.
var roundsSweep = []float64{1.5, 2, 3, 5, 7, 10, 20, 30, 50, 100, 200, 300}

// cpuShape is what the Size row needs of the pod: CPU request and limit
// (milli-cores) and the HPA's target, a utilization or an average value. limitAssumed is true when
// no container of the metric sets a CPU limit.
type cpuShape struct {
	request, limit int64
	target         int32 // utilization, percent; 0 with an AverageValue target
	averageMilli   int64 // AverageValue target, milli-cores per pod
	limitAssumed   bool
}

// cpuMetric finds the CPU utilization metric the Size row models and the
// pod's request and limit for it. A container without a limit can burst to
// what its node has free; the model cannot know that, so it takes the
// request as the limit, the saturating case the essays price, and the
// bill says so.
func cpuMetric(a *analyze.Autoscaler) (cpuShape, string) {
	for _, m := range a.Metrics {
		if m.Name != "cpu" || (m.Type != autoscalingv2.ResourceMetricSourceType && m.Type != autoscalingv2.ContainerResourceMetricSourceType) {
			continue
		}
		s := cpuShape{limitAssumed: true}
		switch {
		case m.TargetType == autoscalingv2.UtilizationMetricType:
			s.target = m.Utilization
		case m.TargetType == autoscalingv2.AverageValueMetricType && m.TargetKnown:
			s.averageMilli = m.TargetMilli
		default:
			return cpuShape{}, "the CPU metric's target is neither a utilization nor a known average value"
		}
		for _, c := range a.Target.Containers {
			if m.Type == autoscalingv2.ContainerResourceMetricSourceType && c.Name != m.Container {
				continue
			}
			s.request += c.CPURequestMilli
			s.limit += max(c.CPULimitMilli, c.CPURequestMilli)
			s.limitAssumed = s.limitAssumed && c.CPULimitMilli == 0
		}
		if len(a.Target.Containers) == 0 {
			s.request, s.limit = a.Target.CPURequestMilli, max(a.Target.CPULimitMilli, a.Target.CPURequestMilli)
			s.limitAssumed = a.Target.CPULimitMilli == 0
		}
		if s.request <= 0 {
			return cpuShape{}, "the target's pods set no CPU request, so the HPA cannot compute utilization (it reports an error and never scales on CPU)"
		}
		if s.target <= 0 && s.averageMilli <= 0 {
			return cpuShape{}, "the CPU target is not positive"
		}
		return s, ""
	}
	return cpuShape{}, "no CPU utilization metric: the Size row models CPU (a memory utilization does not drive a service's rate)"
}

// priceSize reads the Size row's model off an autoscaler and prices it.
func priceSize(a *analyze.Autoscaler, shape cpuShape, in inputs, opts Options) (*contract.SizeBill, string) {
	if !a.Target.Found {
		return nil, "the scale target is not in the rendered set"
	}
	bill, err := PriceSize(SizeModel{
		Run: sim.SizeOptions{
			Controller:         in.controller(a),
			Pods:               in.baseline,
			RequestMilli:       shape.request,
			LimitMilli:         shape.limit,
			Target:             shape.target,
			TargetAverageMilli: shape.averageMilli,
			PodRate:            in.podRate,
			DeadTime:           in.deadTime,
			MetricWindow:       in.metricWindow,
			Efficiency:         in.efficiency,
			DemandBefore:       in.demand,
			Series:             !opts.NoTimelines,
		},
		Overloads:     in.overloads,
		LatencyTarget: in.latencyTarget,
		RoundsCurve:   !opts.NoRoundsCurve,
	})
	if err != nil {
		return nil, "the Size model rejected its inputs: " + err.Error()
	}
	return bill, ""
}

// SizeModel is one workload's Size row however it was described: read off a
// manifest, or typed on the command line (capreport simulate size).
type SizeModel struct {
	// Run is every simulation input but the overload.
	Run       sim.SizeOptions
	Overloads []float64
	// LatencyTarget (seconds, 0 for none) sets the rounds the hottest
	// target must meet the largest overload in.
	LatencyTarget int64
	// RoundsCurve adds the rounds-against-k sweep for the plot.
	RoundsCurve bool
}

// PriceSize simulates each design overload on the CPU path and sets the
// laws beside the simulated figures.
func PriceSize(m SizeModel) (*contract.SizeBill, error) {
	run := m.Run
	lim, req, u := float64(run.LimitMilli), float64(run.RequestMilli), float64(run.Target)/100
	tol := run.Controller.Config.Tolerance
	deadBand := laws.DeadBand(run.LimitMilli, run.RequestMilli, run.Target, tol)
	if run.TargetAverageMilli > 0 {
		// The plain-average path compares milli-cores with no whole-percent
		// truncation: saturated pods read the limit.
		u = float64(run.TargetAverageMilli) / req
		deadBand = lim/float64(run.TargetAverageMilli) <= 1+tol
	}
	window := run.MetricWindow
	if window == 0 {
		window = 30
	}
	bill := &contract.SizeBill{
		GrowthFactor: laws.GrowthFactor(lim, req, u),
		DeadBand:     deadBand,
		RoundSeconds: int(run.DeadTime + window),
		Overloads:    []contract.SizeOverload{},
	}
	// Prop. 2 bounds the rounds only when the controller scales on a
	// saturated metric at all.
	bound := func(k float64) *int {
		b, ok := laws.RoundsBound(k, lim, req, u, int(run.Pods))
		if !ok || bill.DeadBand {
			return nil
		}
		return &b
	}
	budget := sizeBudget{work: sizeWorkBudget, reads: readBudget}
	// Every run shares the ten minutes before the step (any overload makes
	// the same trunk).
	warm := run
	warm.Overload = roundsSweep[0]
	trunk := sim.NewSizeTrunk(warm)
	for _, k := range m.Overloads {
		so, err := priceOverload(trunk, run, k, &budget, bound(k))
		if err != nil {
			return nil, err
		}
		bill.Overloads = append(bill.Overloads, so)
	}
	bill.HottestTarget = hottestTarget(m, bill.RoundSeconds)
	if m.RoundsCurve {
		bill.RoundsCurve = roundsCurve(trunk, run, budget, bound)
	}
	return bill, nil
}

// priceOverload simulates one design overload within what is left of the
// budget, which it charges, and returns its bill.
func priceOverload(trunk *sim.SizeTrunk, run sim.SizeOptions, k float64, budget *sizeBudget, bound *int) (contract.SizeOverload, error) {
	o := run
	o.Overload = k
	budget.limit(&o)
	r, err := trunk.Simulate(o)
	switch {
	case errors.Is(err, sim.ErrBudget):
		return contract.SizeOverload{}, fmt.Errorf("the design overload %gx: %w (%d units per autoscaler); shorten the dead time, list fewer overloads or lengthen the sync period", k, err, sizeWorkBudget)
	case errors.Is(err, sim.ErrReadBudget):
		return contract.SizeOverload{}, fmt.Errorf("the design overload %gx: %w (%d per autoscaler); %s", k, err, readBudget, readRemedy)
	case err != nil:
		return contract.SizeOverload{}, err
	}
	budget.charge(r)
	so := contract.SizeOverload{
		K:                     k,
		RoundsBound:           bound,
		Rounds:                r.Rounds,
		TimeToCapacitySeconds: intPtr(r.TimeToCapacity),
		PeakReplicas:          int(r.PeakReplicas),
		NeededReplicas:        int(r.NeededReplicas),
		Overshoot:             r.Overshoot,
		PeakBacklog:           r.PeakBacklog,
		PeakWaitSeconds:       r.PeakWait,
		DrainedAtSeconds:      intPtr(r.DrainedAt),
		StatusUtilization:     r.StatusUtilization,
		ScaleEvents:           []contract.ScaleEvent{},
	}
	for _, e := range r.ScaleEvents {
		so.ScaleEvents = append(so.ScaleEvents, contract.ScaleEvent{T: int(e.T), From: e.From, To: e.To})
	}
	if r.Series != nil {
		so.Timeline = sizeTimeline(r, run.Pods)
	}
	return so, nil
}

// readRemedy is what shrinks the controller's reads.
const readRemedy = "lengthen the sync period, or shorten the stabilization windows, the scaling policies' periods or the metric window"

// hottestTarget is Cor. 2's advice: a utilization target, so an
// AverageValue target gets none rather than a percentage it does not use.
func hottestTarget(m SizeModel, roundSeconds int) *int {
	run := m.Run
	if m.LatencyTarget <= 0 || roundSeconds <= 0 || len(m.Overloads) == 0 || run.TargetAverageMilli != 0 {
		return nil
	}
	rounds := int(m.LatencyTarget) / roundSeconds
	if rounds < 1 {
		return nil
	}
	h := laws.HottestTarget(maxOf(m.Overloads), rounds, float64(run.LimitMilli), float64(run.RequestMilli))
	// Cor. 2 is necessary only: a target in the dead band never scales at
	// all, so the advice stops below it.
	for h > 0 && laws.DeadBand(run.LimitMilli, run.RequestMilli, h, run.Controller.Config.Tolerance) {
		h--
	}
	hi := int(h)
	return &hi
}

// roundsCurve simulates the sweep of the rounds plot within what the design
// overloads left of the budget. It reads the rounds alone, so its runs
// keep no series and no waits, and a run whose outcome is decided (the
// ceiling reached, the backlog growing) costs little past that point.
func roundsCurve(trunk *sim.SizeTrunk, run sim.SizeOptions, budget sizeBudget, bound func(float64) *int) []contract.RoundsPoint {
	var curve []contract.RoundsPoint
	for _, k := range roundsSweep {
		o := run
		o.Overload, o.Series, o.RoundsOnly = k, false, true
		budget.limit(&o)
		r, err := trunk.Simulate(o)
		if errors.Is(err, sim.ErrBudget) || errors.Is(err, sim.ErrReadBudget) {
			break // the curve stops where the budget does
		}
		if err == nil {
			budget.charge(r)
			curve = append(curve, contract.RoundsPoint{K: k, Rounds: r.Rounds, Bound: bound(k)})
		}
	}
	return curve
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = max(m, x)
	}
	return m
}

func intPtr(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// cpuLimitAssumption says what limit the Size row used. Without a limit a
// pod can burst to what its node has free, which the model cannot know; it
// takes the request, the saturating case, and says so.
func cpuLimitAssumption(s cpuShape) contract.Assumption {
	if s.limitAssumed {
		return contract.Assumption{Value: milliCPU(s.limit) + " (the request: no CPU limit is set)", From: "default"}
	}
	return contract.Assumption{Value: milliCPU(s.limit), From: "manifest"}
}

func milliCPU(m int64) string {
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10)
	}
	return strconv.FormatInt(m, 10) + "m"
}
