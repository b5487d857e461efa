package rules

import (
	"math"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/analyze/sim"
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

// priceTime runs the 20-hour backlog simulation and applies the laws.
func priceTime(a *analyze.Autoscaler, in inputs, opts Options) (*TimeBill, string) {
	m, why := backlogMetric(a)
	if why != "" {
		return nil, why
	}
	threshold := float64(m.TargetMilli) / 1000
	c := in.podRate
	window := downscaleWindow(a, in)
	demand := in.demand
	if demand <= 0 {
		demand = float64(in.baseline) * c
	}
	ctl := in.controller(a)
	if m.ReplicaCap != nil && *m.ReplicaCap < ctl.MaxReplicas {
		// The Kafka scaler caps the lag at partitions × threshold, so the
		// metric never asks for more consumers than partitions.
		ctl.MaxReplicas = max(*m.ReplicaCap, minReplicas(a.HPA))
	}
	r, err := sim.SimulateTime(sim.TimeOptions{
		Controller:   ctl,
		PodRate:      c,
		Threshold:    threshold,
		DeadTime:     in.deadTime,
		DemandBefore: demand,
		DemandAfter:  demand * in.step,
		Series:       !opts.NoTimelines,
		SeriesFrom:   20*3600 - 2*3600,
	})
	if err != nil {
		return nil, "the Time model rejected its inputs: " + err.Error()
	}
	tau, W := float64(in.deadTime), float64(window)
	D := laws.StandingDelay(threshold, c)
	required := laws.RequiredStandingDelay(tau, W)
	w := laws.EffectiveWindow(W) / laws.EffectiveDeadTime(tau)
	bill := &TimeBill{
		StandingDelaySeconds:         D,
		RequiredStandingDelaySeconds: required,
		MarginSeconds:                D - required,
		Phi:                          phi.Phi(w),
		WindowInDeadTimes:            w,
		Hunts:                        r.Hunts,
		ReplicasMin:                  r.Min,
		ReplicasMax:                  r.Max,
		ReplicasMean:                 r.Mean,
		ReplicasP5:                   r.P5,
		ReplicasP95:                  r.P95,
		NeededReplicas:               int(math.Ceil(r.NeededReplicas - 1e-9)),
		LatencyFloorSeconds:          laws.LatencyFloor(tau, W),
	}
	if r.NeededReplicas > 0 {
		bill.SwingFraction = float64(r.Max-r.Min) / r.NeededReplicas
		bill.MeanOverNeed = r.Mean/r.NeededReplicas - 1
	}
	if t := laws.ThresholdToRest(c, tau, W, laws.DefaultRestMargin); !math.IsNaN(t) {
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
	return bill, ""
}
