package hpa

import (
	"errors"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

func at(seconds int) time.Time { return testNow.Add(time.Duration(seconds) * time.Second) }

func proposal(n int32) []MetricProposal { return []MetricProposal{{Replicas: n}} }

// step is one reconcile of a scripted run and what it must decide.
type step struct {
	t          int // seconds after testNow
	current    int32
	proposals  []MetricProposal
	want       int32
	wantReason string
}

type reconcileCase struct {
	name     string
	a        *Autoscaler
	steps    []step
	wantUp   []int32 // scale-up event changes after the run; nil: none
	wantDown []int32
}

func (c reconcileCase) run(t *testing.T) {
	t.Helper()
	for _, s := range c.steps {
		d := c.a.Reconcile(at(s.t), s.current, s.proposals)
		if d.Desired != s.want || d.Rescale != (s.want != s.current) || (s.wantReason != "" && d.Reason != s.wantReason) {
			t.Fatalf("t=%d: got %+v, want %d (%s)", s.t, d, s.want, s.wantReason)
		}
	}
	if got := changes(c.a.ScaleUpEvents); !equal32(got, c.wantUp) {
		t.Errorf("up events %v, want %v", got, c.wantUp)
	}
	if got := changes(c.a.ScaleDownEvents); !equal32(got, c.wantDown) {
		t.Errorf("down events %v, want %v", got, c.wantDown)
	}
}

func changes(es []ScaleEvent) []int32 {
	var out []int32
	for _, e := range es {
		out = append(out, e.Change)
	}
	return out
}

func equal32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// holdThenDrop scripts: a sync at 0 recommending 10, then 3 every 15 s
// until the scale-down. hold is the last sync that must still hold.
func holdThenDrop(hold, drop int, current int32) []step {
	steps := []step{{t: 0, current: current, proposals: proposal(current), want: current}}
	for s := 15; s <= hold; s += 15 {
		steps = append(steps, step{t: s, current: current, proposals: proposal(3), want: current})
	}
	return append(steps, step{t: drop, current: current, proposals: proposal(3), want: 3, wantReason: ReasonWithinRange})
}

func TestReconcileLegacy(t *testing.T) {
	cfg := DefaultConfig()
	cases := []reconcileCase{
		{name: "ScaleUpLimitTwiceCurrent", a: NewAutoscaler(cfg, nil, 100, nil), steps: []step{
			{t: 0, current: 10, proposals: proposal(40), want: 20, wantReason: ReasonScaleUpLimit},
			// stabilization keeps the 40 of 15 s ago: it can push up too
			{t: 15, current: 20, proposals: proposal(5), want: 40, wantReason: ReasonWithinRange},
		}},
		{name: "ScaleUpLimitFloorOf4", a: NewAutoscaler(cfg, nil, 100, nil), steps: []step{
			{t: 0, current: 1, proposals: proposal(9), want: 4, wantReason: ReasonScaleUpLimit},
		}},
		// The sync exactly 300 s after the last 10 still holds (entry at
		// now−W counts); the next one drops.
		{name: "DownscaleStabilizationInclusive", a: NewAutoscaler(cfg, nil, 100, nil), steps: holdThenDrop(300, 315, 10)},
		// The initial recommendation alone blocks scale-down for a window.
		{name: "InitialRecommendationBlocks", a: NewAutoscaler(cfg, nil, 100, nil), steps: []step{
			{t: 0, current: 8, proposals: proposal(2), want: 8},
			{t: 300, current: 8, proposals: proposal(2), want: 8},
			{t: 315, current: 8, proposals: proposal(2), want: 2},
		}},
		{name: "AboveMax", a: NewAutoscaler(cfg, nil, 10, nil), steps: []step{{t: 0, current: 15, proposals: proposal(15), want: 10, wantReason: ReasonTooMany}}},
		{name: "BelowMin", a: NewAutoscaler(cfg, i32(3), 10, nil), steps: []step{{t: 0, current: 2, proposals: proposal(1), want: 3, wantReason: ReasonTooFew}}},
		{name: "ScalingDisabledAtZero", a: NewAutoscaler(cfg, nil, 10, nil), steps: []step{{t: 0, current: 0, proposals: proposal(5), want: 0, wantReason: ReasonScalingDisabled}}},
		{name: "MinZeroWakesFromZero", a: NewAutoscaler(cfg, i32(0), 10, nil), steps: []step{{t: 0, current: 0, proposals: proposal(3), want: 3, wantReason: ReasonWithinRange}}},
		{name: "ClampedToMin", a: NewAutoscaler(cfg, i32(2), 10, nil), steps: []step{
			{t: 0, current: 4, proposals: proposal(1), want: 4},
			{t: 315, current: 4, proposals: proposal(1), want: 2, wantReason: ReasonTooFew},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestReconcileBehavior(t *testing.T) {
	cfg := DefaultConfig()
	// Defaults: up Pods 4 / Percent 100 per 15 s, no up window; down 100 %
	// per 15 s with the flag's 300 s window (strict cutoff).
	growth := reconcileCase{name: "DefaultPoliciesAndScaleDownWindow", a: NewAutoscaler(cfg, nil, 100, &autoscalingv2.HorizontalPodAutoscalerBehavior{}), steps: []step{
		{t: 0, current: 10, proposals: proposal(50), want: 20, wantReason: ReasonScaleUpLimit},
		// the event at 0 sits on the 15 s period edge: not counted
		{t: 15, current: 20, proposals: proposal(50), want: 40, wantReason: ReasonScaleUpLimit},
		{t: 30, current: 40, proposals: proposal(50), want: 50, wantReason: ReasonWithinRange},
	}}
	for s := 45; s <= 315; s += 15 {
		growth.steps = append(growth.steps, step{t: s, current: 50, proposals: proposal(5), want: 50})
	}
	// the last 50 was recorded at 30: strictly after 330−300 fails, so
	// the behavior path drops one sync earlier than the legacy path
	growth.steps = append(growth.steps, step{t: 330, current: 50, proposals: proposal(5), want: 5, wantReason: ReasonWithinRange})
	// at 30 the event of 0 is outdated (older than the 15 s period) and
	// its slot takes the +10: [10@30, 20@15]
	growth.wantUp, growth.wantDown = []int32{10, 20}, []int32{45}

	five := int32(5)
	sel := autoscalingv2.MinChangePolicySelect
	cases := []reconcileCase{
		growth,
		{name: "UserPoliciesMinSelect", a: NewAutoscaler(cfg, nil, 100, &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{SelectPolicy: &sel},
		}), steps: []step{
			// default policies, Min select: min(10+4, 20) = 14
			{t: 0, current: 10, proposals: proposal(50), want: 14, wantReason: ReasonScaleUpLimit},
		}, wantUp: []int32{4}},
		{name: "ScaleUpWindow", a: NewAutoscaler(cfg, nil, 100, &autoscalingv2.HorizontalPodAutoscalerBehavior{
			ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &five},
		}), steps: []step{
			// the initial recommendation (10) is inside the up window
			{t: 0, current: 10, proposals: proposal(12), want: 10},
			{t: 15, current: 10, proposals: proposal(12), want: 12, wantReason: ReasonWithinRange},
		}, wantUp: []int32{2}},
		{name: "AboveMaxRecordsEvent", a: NewAutoscaler(cfg, nil, 10, &autoscalingv2.HorizontalPodAutoscalerBehavior{}), steps: []step{
			{t: 0, current: 15, proposals: proposal(15), want: 10, wantReason: ReasonTooMany},
		}, wantDown: []int32{5}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestReconcileInvalidMetrics(t *testing.T) {
	bad := errors.New("metrics API down")
	cases := []struct {
		name       string
		proposals  []MetricProposal
		want       int32
		wantRescue bool // scaling proceeds despite the error
	}{
		{name: "AllInvalid", proposals: []MetricProposal{{Err: bad}, {Err: bad}}, want: 10},
		{name: "InvalidAndLowerValid", proposals: []MetricProposal{{Err: bad}, {Replicas: 5}}, want: 10},
		{name: "InvalidAndHigherValid", proposals: []MetricProposal{{Replicas: 15}, {Err: bad}}, want: 15, wantRescue: true},
		{name: "NoMetrics", proposals: nil, want: 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewAutoscaler(DefaultConfig(), nil, 100, nil)
			d := a.Reconcile(testNow, 10, c.proposals)
			if d.Desired != c.want || d.Err == nil {
				t.Fatalf("got %+v, want %d with an error", d, c.want)
			}
			if c.wantRescue != (d.Reason != ReasonFailedMetrics) {
				t.Errorf("reason %s, rescue %v", d.Reason, c.wantRescue)
			}
			if c.proposals != nil && !errors.Is(d.Err, bad) {
				t.Errorf("err %v does not wrap the metric's error", d.Err)
			}
			// a failed cycle stores no recommendation beyond the initial one
			if wantRecs := map[bool]int{true: 2, false: 1}[c.wantRescue]; len(a.Recommendations) != wantRecs {
				t.Errorf("%d recommendations, want %d", len(a.Recommendations), wantRecs)
			}
		})
	}
}

func TestReconcileNegativeProposalFloorsAtZero(t *testing.T) {
	a := NewAutoscaler(DefaultConfig(), i32(0), 10, nil)
	d := a.Reconcile(testNow, 2, proposal(-7))
	if d.Proposed != 0 || a.Recommendations[1].Replicas != 0 {
		t.Errorf("proposed %d, stored %v; want 0", d.Proposed, a.Recommendations)
	}
}

func TestDefaultBehavior(t *testing.T) {
	one := int32(1)
	b := DefaultBehavior(&autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleDown: &autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60}}},
		ScaleUp:   &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &one},
	}, 300)
	up, down := b.ScaleUp, b.ScaleDown
	if *up.StabilizationWindowSeconds != 1 || *up.SelectPolicy != autoscalingv2.MaxChangePolicySelect || len(up.Policies) != 2 || up.Policies[0].Value != 4 || up.Policies[1].Value != 100 {
		t.Errorf("scaleUp %+v", up)
	}
	if *down.StabilizationWindowSeconds != 300 || *down.SelectPolicy != autoscalingv2.MaxChangePolicySelect || len(down.Policies) != 1 || down.Policies[0].Value != 1 {
		t.Errorf("scaleDown %+v", down)
	}
	if DefaultBehavior(nil, 300) != nil {
		t.Error("nil behavior must stay nil (legacy path)")
	}
}
