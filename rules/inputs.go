package rules

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
)

// inputs are the model's inputs read off one autoscaler and its target.
type inputs struct {
	cfg           hpa.Config
	deadTime      int64 // s
	metricWindow  int64 // s
	latencyTarget int64 // s, 0 when none
	podRate       float64
	efficiency    float64
	overloads     []float64
	demand        float64 // 0: derive from the baseline pods
	step          float64
	baseline      int32 // pods before the step
}

func inputsOf(a *analyze.Autoscaler) inputs {
	as := a.Assumptions
	in := inputs{
		cfg: hpa.Config{
			SyncPeriod:                   as.SyncPeriod.Value,
			Tolerance:                    as.Tolerance.Value,
			CPUInitializationPeriod:      as.CPUInitializationPeriod.Value,
			InitialReadinessDelay:        as.InitialReadinessDelay.Value,
			DownscaleStabilizationWindow: as.DownscaleStabilization.Value,
		},
		deadTime:      seconds(as.DeadTime.Value),
		metricWindow:  seconds(as.MetricWindow.Value),
		latencyTarget: seconds(as.LatencyTarget.Value),
		podRate:       as.PodRate.Value,
		efficiency:    as.SaturatedEfficiency.Value,
		overloads:     as.Overload.Value,
		demand:        as.Demand.Value,
		step:          as.Step.Value,
	}
	minR, maxR := minReplicas(a.HPA), a.HPA.MaxReplicas
	base := minR
	if a.Target.Replicas != nil {
		base = *a.Target.Replicas
	}
	in.baseline = min(max(base, minR), max(maxR, minR))
	return in
}

func seconds(d time.Duration) int64 { return int64((d + time.Second/2) / time.Second) }

func minReplicas(spec autoscalingv2.HorizontalPodAutoscalerSpec) int32 {
	if spec.MinReplicas == nil {
		return 1
	}
	return *spec.MinReplicas
}

func (in inputs) controller(a *analyze.Autoscaler) sim.Controller {
	return sim.Controller{Config: in.cfg, MinReplicas: minReplicas(a.HPA), MaxReplicas: a.HPA.MaxReplicas, Behavior: a.HPA.Behavior}
}
