package upstreamdiff

import (
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capreport/capreport/analyze/hpa"
)

// windowSeconds draws a stabilization window or policy period: the common
// ones, zero, and anything up to the API's 1800 s (3600 s for windows).
func (g gen) windowSeconds(maxSeconds int) int32 {
	return []int32{0, 15, 30, 60, 300, int32(g.between(1, maxSeconds))}[g.intn(6)]
}

// behavior draws a user-written behavior block (before defaulting): each
// field is set or left for the defaults, policies may be an empty list.
func (g gen) behavior() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: g.rules(), ScaleDown: g.rules()}
}

func (g gen) rules() *autoscalingv2.HPAScalingRules {
	if g.chance(0.25) {
		return nil
	}
	r := &autoscalingv2.HPAScalingRules{}
	if g.chance(0.5) {
		sel := []autoscalingv2.ScalingPolicySelect{autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect}[g.intn(3)]
		r.SelectPolicy = &sel
	}
	if g.chance(0.5) {
		w := g.windowSeconds(3600)
		r.StabilizationWindowSeconds = &w
	}
	if g.chance(0.6) {
		r.Policies = []autoscalingv2.HPAScalingPolicy{}
		for range g.between(0, 3) {
			r.Policies = append(r.Policies, g.policy())
		}
	}
	if g.chance(0.3) {
		q := resource.MustParse([]string{"0", "50m", "0.1", "250m", "1", "1500m"}[g.intn(6)])
		r.Tolerance = &q
	}
	return r
}

func (g gen) policy() autoscalingv2.HPAScalingPolicy {
	p := autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, PeriodSeconds: max(1, g.windowSeconds(1800))}
	if g.chance(0.5) {
		p.Type = autoscalingv2.PercentScalingPolicy
	}
	p.Value = []int32{int32(g.between(1, 10)), 50, 100, 200, 1000, int32(g.between(1, math.MaxInt32/4))}[g.intn(6)]
	return p
}

// defaulted draws a behavior and applies the port's defaulting (which the
// DefaultBehavior group checks against upstream's), for the functions that
// expect a defaulted block.
func (g gen) defaulted(downscaleWindowSeconds int32) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	return hpa.DefaultBehavior(g.behavior(), downscaleWindowSeconds)
}

// events draws a scale-event history: changes at or beside the policy
// periods' cutoffs or anywhere in the last half hour, some already marked
// outdated.
func (g gen) events() []hpa.ScaleEvent {
	out := make([]hpa.ScaleEvent, g.between(0, 5))
	for i := range out {
		at := g.secondsAgo(2000)
		if g.chance(0.5) {
			at = g.nudge(g.now.Add(-time.Duration([]int{15, 30, 60, 300}[g.intn(4)]) * time.Second))
		}
		out[i] = hpa.ScaleEvent{Change: int32(g.between(0, 10)), At: at, Outdated: g.chance(0.2)}
	}
	return out
}

// recommendations draws a recommendation history, timestamps at or beside
// the common windows' cutoffs or anywhere in the last 12 minutes.
func (g gen) recommendations() []hpa.Recommendation {
	out := make([]hpa.Recommendation, g.between(0, 8))
	for i := range out {
		at := g.secondsAgo(720)
		if g.chance(0.5) {
			at = g.nudge(g.now.Add(-time.Duration([]int{15, 30, 60, 300}[g.intn(4)]) * time.Second))
		}
		out[i] = hpa.Recommendation{Replicas: int32(g.between(0, 30)), At: at}
	}
	return out
}

// downscaleWindow draws the controller's --horizontal-pod-autoscaler-
// downscale-stabilization flag.
func (g gen) downscaleWindow() time.Duration {
	return []time.Duration{5 * time.Minute, 0, time.Minute, 3 * time.Minute}[g.intn(4)]
}
