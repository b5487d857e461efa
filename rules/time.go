package rules

import (
	"errors"
	"fmt"
	"math"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/contract"
)

// backlogMetric finds the backlog metric the Time row models: an External
// (or Object) metric with a known AverageValue threshold.
func backlogMetric(a *analyze.Autoscaler) (m analyze.Metric, why string) {
	for _, m := range a.Metrics {
		if m.Signal != analyze.SignalBacklog {
			continue
		}
		if m.TargetType != autoscalingv2.AverageValueMetricType {
			return m, "the backlog metric has a Value target; the Time row models KEDA's default AverageValue (threshold per pod)"
		}
		if !m.TargetKnown || m.TargetMilli <= 0 {
			return m, "the backlog metric's threshold is unknown"
		}
		return m, ""
	}
	return analyze.Metric{}, "no backlog metric with a per-pod threshold"
}

// downscaleWindow is the stabilization window the controller applies to the
// way down: the behavior block's when it sets one, else the cluster's flag.
func downscaleWindow(a *analyze.Autoscaler, in inputs) int64 {
	if b := a.HPA.Behavior; b != nil && b.ScaleDown != nil && b.ScaleDown.StabilizationWindowSeconds != nil {
		return int64(*b.ScaleDown.StabilizationWindowSeconds)
	}
	return seconds(in.cfg.DownscaleStabilizationWindow)
}

// priceTime reads the Time row's model off an autoscaler and prices it.
func priceTime(a *analyze.Autoscaler, in inputs, opts Options) (*contract.TimeBill, string) {
	m, why := backlogMetric(a)
	if why != "" {
		return nil, why
	}
	demand := in.demand
	if demand <= 0 {
		demand = float64(in.baseline) * in.podRate
	}
	ctl := in.controller(a)
	if m.ReplicaCap != nil && *m.ReplicaCap < ctl.MaxReplicas {
		// The Kafka scaler caps the lag at partitions × threshold, so the
		// metric never asks for more consumers than partitions.
		ctl.MaxReplicas = max(*m.ReplicaCap, minReplicas(a.HPA))
	}
	bill, err := PriceTime(TimeModel{
		Controller: ctl,
		PodRate:    in.podRate,
		Threshold:  float64(m.TargetMilli) / 1000,
		DeadTime:   in.deadTime,
		Window:     downscaleWindow(a, in),
		Demand:     demand,
		Step:       in.step,
		Timeline:   !opts.NoTimelines,
		PhiCurve:   !opts.NoPhiCurve,
	})
	if err != nil {
		return nil, "the Time model rejected its inputs: " + err.Error()
	}
	bill.ScaleFromZero = scaleFromZeroOf(a, m, in, demand)
	return bill, ""
}

// TimeModel is one workload's Time row however it was described: read off
// a manifest, or typed on the command line (capreport simulate time).
type TimeModel struct {
	Controller sim.Controller
	PodRate    float64 // c, messages/s per consuming pod
	Threshold  float64 // T, messages per pod
	DeadTime   int64   // τ, seconds
	// Window is the downscale stabilization the loop runs with, seconds
	// (the law's W; the simulation reads it from Controller).
	Window int64
	Demand float64 // messages/s before the step
	Step   float64 // demand multiple after it
	// Timeline keeps the last two hours of the run for plots.
	Timeline bool
	// PhiCurve samples Φ for the Φ plot (TimeBill.PhiCurve).
	PhiCurve bool
	// OnSync sees every sync after the step (see sim.TimeOptions.OnSync).
	OnSync func(sim.SyncRecord)
}

// PriceTime runs the 20-hour backlog simulation and applies the laws.
func PriceTime(m TimeModel) (*contract.TimeBill, error) {
	const runSeconds = 20 * 3600
	// Definition 5 judges the last hour; a cycle longer than that (a window
	// of an hour or more) could sit on one plateau for the whole hour and
	// pass for rest, so the statistics cover at least three cycles of about
	// a window plus two dead times.
	stats := min(max(int64(3600), 3*(m.Window+2*m.DeadTime)), runSeconds/2)
	r, err := sim.SimulateTime(sim.TimeOptions{
		Controller:   m.Controller,
		PodRate:      m.PodRate,
		Threshold:    m.Threshold,
		DeadTime:     m.DeadTime,
		DemandBefore: m.Demand,
		DemandAfter:  m.Demand * m.Step,
		Duration:     runSeconds,
		StatsWindow:  stats,
		Series:       m.Timeline,
		SeriesFrom:   runSeconds - 2*3600,
		OnSync:       m.OnSync,
		MaxReads:     readBudget,
	})
	if errors.Is(err, sim.ErrReadBudget) {
		return nil, fmt.Errorf("%w (%d per autoscaler); %s", err, readBudget, readRemedy)
	}
	if err != nil {
		return nil, err
	}
	tau, W := float64(m.DeadTime), float64(m.Window)
	D := laws.StandingDelay(m.Threshold, m.PodRate)
	required := laws.RequiredStandingDelay(tau, W)
	w := laws.EffectiveWindow(W) / laws.EffectiveDeadTime(tau)
	bill := &contract.TimeBill{
		StandingDelaySeconds:         D,
		RequiredStandingDelaySeconds: required,
		MarginSeconds:                D - required,
		Phi:                          phi.Phi(w),
		WindowInDeadTimes:            w,
		Hunts:                        r.Hunts,
		StatsWindowSeconds:           int(stats),
		ReplicasMin:                  r.Min,
		ReplicasMax:                  r.Max,
		ReplicasMean:                 r.Mean,
		ReplicasP5:                   r.P5,
		ReplicasP95:                  r.P95,
		NeededReplicas:               int(math.Ceil(r.NeededReplicas - 1e-9)),
		PeakBacklog:                  r.PeakBacklog,
		PeakWaitSeconds:              r.PeakWait,
		LatencyFloorSeconds:          laws.LatencyFloor(tau, W),
	}
	if m.PhiCurve {
		bill.PhiCurve = PhiCurve(bill)
	}
	if r.NeededReplicas > 0 {
		bill.SwingFraction = float64(r.Max-r.Min) / r.NeededReplicas
		bill.MeanOverNeed = r.Mean/r.NeededReplicas - 1
	}
	if t := laws.ThresholdToRest(m.PodRate, tau, W, laws.DefaultRestMargin); !math.IsNaN(t) {
		bill.ThresholdToRest = &t
	}
	if wr, ok := laws.WindowToRest(D, tau); ok {
		v := math.MaxInt32
		if !math.IsInf(wr, 1) && wr < math.MaxInt32 {
			v = int(wr)
		}
		bill.WindowToRest = &v
	}
	if dt, ok := laws.DeadTimeToRest(D, W); ok && dt < math.MaxInt32 {
		v := int(dt)
		bill.DeadTimeToRest = &v
	}
	if r.Series != nil {
		bill.Timeline = timeTimeline(r)
	}
	return bill, nil
}
