package hpa

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// rules is upstream's generateScalingRules: a Pods and a Percent policy
// (a zero value omits it), select Max.
func rules(pods, podsPeriod, percent, percentPeriod int32) *autoscalingv2.HPAScalingRules {
	sel := autoscalingv2.MaxChangePolicySelect
	r := &autoscalingv2.HPAScalingRules{SelectPolicy: &sel}
	if pods != 0 {
		r.Policies = append(r.Policies, autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PodsScalingPolicy, Value: pods, PeriodSeconds: podsPeriod})
	}
	if percent != 0 {
		r.Policies = append(r.Policies, autoscalingv2.HPAScalingPolicy{Type: autoscalingv2.PercentScalingPolicy, Value: percent, PeriodSeconds: percentPeriod})
	}
	return r
}

// spread places events uniformly over the last 120 s, as upstream's
// generateEventsUniformDistribution: [1,5,9] → −100 s, −60 s, −20 s.
func spread(changes ...int32) []ScaleEvent {
	const interval = 120 * time.Second
	step := interval / time.Duration(len(changes))
	out := make([]ScaleEvent, len(changes))
	for i, c := range changes {
		out[i] = ScaleEvent{Change: c, At: testNow.Add(-interval + step/2 + step*time.Duration(i))}
	}
	return out
}

// rateCase is one TestScalingWithRules row (§14.7); nil rules take the API
// defaults.
type rateCase struct {
	name                       string
	current, desired, min, max int32
	up, down                   *autoscalingv2.HPAScalingRules
	upEvents, downEvents       []ScaleEvent
	want                       int32
	wantReason                 string
}

func (c rateCase) run(t *testing.T) {
	t.Helper()
	b := DefaultBehavior(&autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: c.up, ScaleDown: c.down}, 300)
	got, reason := ConvertDesiredReplicasWithBehaviorRate(c.current, c.desired, c.min, c.max, b.ScaleUp, b.ScaleDown, c.upEvents, c.downEvents, testNow)
	if got != c.want || reason != c.wantReason {
		t.Errorf("got (%d, %s), want (%d, %s)", got, reason, c.want, c.wantReason)
	}
}

func TestScalingWithRules(t *testing.T) {
	cases := []rateCase{
		{name: "WithinRange", current: 5, desired: 7, min: 3, max: 8, want: 7, wantReason: ReasonWithinRange},
		{name: "TooFew", current: 3, desired: 1, min: 2, max: 8, want: 2, wantReason: ReasonTooFew},
		{name: "TooMany", current: 20, desired: 1000, min: 1, max: 10, want: 10, wantReason: ReasonTooMany},
		{name: "TooManyAboveDefaultLimit", current: 100, desired: 1000, min: 100, max: 150, want: 150, wantReason: ReasonTooMany},
		{name: "ScaleUpPercentRoundsUp", current: 3, desired: 1000, min: 1, max: 2000, up: rules(0, 0, 1, 60), want: 4, wantReason: ReasonScaleUpLimit},
		{name: "DefaultScaleUpLimit", current: 10, desired: 50, min: 1, max: 1000, want: 20, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpPodsPolicyWins", current: 10, desired: 500, min: 1, max: 1000, up: rules(100, 60, 100, 60), want: 110, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpPercentPolicyWins", current: 10, desired: 500, min: 1, max: 1000, up: rules(2, 60, 100, 60), want: 20, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpPodsOnly", current: 10, desired: 50, min: 1, max: 1000, up: rules(30, 60, 0, 0), want: 40, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpPercentOnly", current: 10, desired: 50, min: 1, max: 1000, up: rules(0, 0, 200, 60), want: 30, wantReason: ReasonScaleUpLimit},
		{name: "ScaleDownPodsPolicyWins", current: 100, desired: 2, min: 1, max: 1000, down: rules(20, 60, 1, 60), want: 80, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownPercentPolicyWins", current: 100, desired: 2, min: 1, max: 1000, down: rules(2, 60, 1, 60), want: 98, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownToMin", current: 10, desired: 0, min: 1, max: 1000, down: rules(100, 60, 0, 0), want: 1, wantReason: ReasonTooFew},
		{name: "ScaleDownPercentToMin", current: 10, desired: 2, min: 5, max: 1000, down: rules(0, 0, 100, 60), want: 5, wantReason: ReasonTooFew},
		{name: "ScaleDownPodsOnly", current: 10, desired: 2, min: 1, max: 1000, down: rules(5, 60, 0, 0), want: 5, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownExactlyAtLimit", current: 10, desired: 5, min: 1, max: 1000, down: rules(0, 0, 50, 60), want: 5, wantReason: ReasonWithinRange},
		// [1,5,9] at −100/−60/−20 s: with a 60 s period only the 9 counts
		// (the 5 sits exactly on the period edge)
		{name: "ScaleUpWithEventsTooMany", current: 100, desired: 500, min: 1, max: 200, up: rules(300, 60, 0, 0), upEvents: spread(1, 5, 9), want: 200, wantReason: ReasonTooMany},
		{name: "ScaleUpEventsExhaustPods", current: 100, desired: 500, min: 1, max: 1000, up: rules(5, 120, 0, 0), upEvents: spread(1, 5, 9), want: 100, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpEventsPods", current: 100, desired: 500, min: 1, max: 1000, up: rules(150, 120, 0, 0), upEvents: spread(1, 5, 9), want: 235, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpEventsPercent", current: 100, desired: 500, min: 1, max: 1000, up: rules(0, 0, 200, 120), upEvents: spread(1, 5, 9), want: 255, wantReason: ReasonScaleUpLimit},
		{name: "ScaleUpCountsDownEvents", current: 6, desired: 24, min: 1, max: 1000, up: rules(0, 0, 300, 300), upEvents: spread(4), downEvents: spread(2), want: 16, wantReason: ReasonScaleUpLimit},
		{name: "ScaleDownDefaultOldEvents", current: 10, desired: 5, min: 1, max: 1000, downEvents: spread(1, 5, 9), want: 5, wantReason: ReasonWithinRange},
		{name: "ScaleDownEventsToMin", current: 100, desired: 0, min: 5, max: 1000, down: rules(130, 120, 0, 0), downEvents: spread(1, 5, 9), want: 5, wantReason: ReasonTooFew},
		{name: "ScaleDownEventsExhaustPods", current: 100, desired: 2, min: 1, max: 1000, down: rules(5, 120, 0, 0), downEvents: spread(1, 5, 9), want: 100, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownEventsPercent", current: 100, desired: 0, min: 1, max: 1000, down: rules(0, 0, 50, 120), downEvents: spread(2, 4, 6), want: 56, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownCountsUpEvents", current: 10, desired: 1, min: 1, max: 1000, down: rules(0, 0, 50, 180), upEvents: spread(2), downEvents: spread(4), want: 6, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownEventsPercentHold", current: 100, desired: 0, min: 1, max: 1000, down: rules(0, 0, 10, 120), downEvents: spread(10, 10, 10), want: 100, wantReason: ReasonScaleDownLimit},
		{name: "ScaleDownEventsPercentOver100", current: 10, desired: 5, min: 1, max: 1000, down: rules(0, 0, 1000, 120), downEvents: spread(10, 10, 10), want: 5, wantReason: ReasonWithinRange},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestCalculateLimitsWithMinSelect(t *testing.T) {
	r := rules(2, 60, 50, 60)
	sel := autoscalingv2.MinChangePolicySelect
	r.SelectPolicy = &sel
	if got := CalculateScaleUpLimitWithScalingRules(1, nil, nil, r, testNow); got != 2 {
		t.Errorf("CalculateScaleUpLimitWithScalingRules = %d, want 2", got)
	}
	if got := CalculateScaleDownLimitWithBehaviors(5, nil, nil, r, testNow); got != 3 {
		t.Errorf("CalculateScaleDownLimitWithBehaviors = %d, want 3", got)
	}
	dis := autoscalingv2.DisabledPolicySelect
	r.SelectPolicy = &dis
	if got, reason := ConvertDesiredReplicasWithBehaviorRate(5, 9, 1, 10, r, r, nil, nil, testNow); got != 5 || reason != ReasonScaleUpLimit {
		t.Errorf("Disabled up: got (%d, %s), want (5, ScaleUpLimit)", got, reason)
	}
	if got, reason := ConvertDesiredReplicasWithBehaviorRate(5, 1, 1, 10, r, r, nil, nil, testNow); got != 5 || reason != ReasonScaleDownLimit {
		t.Errorf("Disabled down: got (%d, %s), want (5, ScaleDownLimit)", got, reason)
	}
}
