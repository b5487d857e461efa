package rules

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/analyze/sim"
)

// roundsSweep is the overloads of the rounds-against-k plot.
var roundsSweep = []float64{1.5, 2, 3, 5, 7, 10, 20, 30, 50, 100, 200, 300}

// cpuShape is what the Size row needs of the pod: CPU request and limit
// (milli-cores) and the HPA's utilization target.
type cpuShape struct {
	request, limit int64
	target         int32
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
		if m.TargetType != autoscalingv2.UtilizationMetricType {
			return cpuShape{}, "the CPU metric has an AverageValue target; the Size row models Utilization targets only"
		}
		var s cpuShape
		s.target = m.Utilization
		for _, c := range a.Target.Containers {
			if m.Type == autoscalingv2.ContainerResourceMetricSourceType && c.Name != m.Container {
				continue
			}
			s.request += c.CPURequestMilli
			s.limit += max(c.CPULimitMilli, c.CPURequestMilli)
		}
		if len(a.Target.Containers) == 0 {
			s.request, s.limit = a.Target.CPURequestMilli, max(a.Target.CPULimitMilli, a.Target.CPURequestMilli)
		}
		if s.request <= 0 {
			return cpuShape{}, "the target's pods set no CPU request, so the HPA cannot compute utilization (it reports an error and never scales on CPU)"
		}
		if s.target <= 0 {
			return cpuShape{}, "the CPU utilization target is not positive"
		}
		return s, ""
	}
	return cpuShape{}, "no CPU utilization metric: the Size row models CPU (a memory utilization does not drive a service's rate)"
}

// priceSize simulates each design overload on the CPU path.
func priceSize(a *analyze.Autoscaler, in inputs, opts Options) (*SizeBill, string) {
	shape, why := cpuMetric(a)
	if why != "" {
		return nil, why
	}
	if !a.Target.Found {
		return nil, "the scale target is not in the rendered set"
	}
	lim, req, u := float64(shape.limit), float64(shape.request), float64(shape.target)/100
	bill := &SizeBill{
		GrowthFactor: laws.GrowthFactor(lim, req, u),
		DeadBand:     laws.DeadBand(shape.limit, shape.request, shape.target, in.cfg.Tolerance),
		RoundSeconds: int(in.deadTime + in.metricWindow),
		Overloads:    []SizeOverload{},
	}
	base := sim.SizeOptions{
		Controller:   in.controller(a),
		Pods:         in.baseline,
		RequestMilli: shape.request,
		LimitMilli:   shape.limit,
		Target:       shape.target,
		PodRate:      in.podRate,
		DeadTime:     in.deadTime,
		MetricWindow: in.metricWindow,
		Efficiency:   in.efficiency,
		DemandBefore: in.demand,
		Series:       !opts.NoTimelines,
	}
	for _, k := range in.overloads {
		o := base
		o.Overload = k
		r, err := sim.SimulateSize(o)
		if err != nil {
			return nil, "the Size model rejected its inputs: " + err.Error()
		}
		so := SizeOverload{
			K:                     k,
			Rounds:                r.Rounds,
			TimeToCapacitySeconds: intPtr(r.TimeToCapacity),
			PeakReplicas:          int(r.PeakReplicas),
			NeededReplicas:        int(r.NeededReplicas),
			Overshoot:             r.Overshoot,
			PeakBacklog:           r.PeakBacklog,
			PeakWaitSeconds:       r.PeakWait,
			DrainedAtSeconds:      intPtr(r.DrainedAt),
			ScaleEvents:           []ScaleEvent{},
		}
		so.RoundsBound, _ = laws.RoundsBound(k, lim, req, u, int(in.baseline))
		for _, e := range r.ScaleEvents {
			so.ScaleEvents = append(so.ScaleEvents, ScaleEvent{T: int(e.T), From: e.From, To: e.To})
		}
		if r.Series != nil {
			so.Timeline = sizeTimeline(r, in)
		}
		bill.Overloads = append(bill.Overloads, so)
	}
	if in.latencyTarget > 0 && bill.RoundSeconds > 0 && len(in.overloads) > 0 {
		rounds := int(in.latencyTarget) / bill.RoundSeconds
		if rounds >= 1 {
			h := int(laws.HottestTarget(maxOf(in.overloads), rounds, lim, req))
			bill.HottestTarget = &h
		}
	}
	for _, k := range roundsSweep {
		o := base
		o.Overload, o.Series = k, false
		if r, err := sim.SimulateSize(o); err == nil {
			p := RoundsPoint{K: k, Rounds: r.Rounds}
			p.Bound, _ = laws.RoundsBound(k, lim, req, u, int(in.baseline))
			bill.RoundsCurve = append(bill.RoundsCurve, p)
		}
	}
	return bill, ""
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
