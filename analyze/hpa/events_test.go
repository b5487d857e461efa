package hpa

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// storeCase is one TestStoreScaleEvents row (§14.8): a scale-up by 5.
type storeCase struct {
	name             string
	prev             []ScaleEvent
	rules            *autoscalingv2.HPAScalingRules // nil: no behavior
	wantChangeBefore int32                          // change in the last 60 s before storing
	want             []ScaleEvent
}

func (c storeCase) run(t *testing.T) {
	t.Helper()
	if got := ReplicasChangePerPeriod(60, c.prev, testNow); got != c.wantChangeBefore {
		t.Errorf("change in 60 s before = %d, want %d", got, c.wantChangeBefore)
	}
	var b *autoscalingv2.HorizontalPodAutoscalerBehavior
	if c.rules != nil {
		b = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: c.rules}
	}
	up, down := StoreScaleEvent(b, c.prev, nil, 5, 10, testNow)
	if len(down) != 0 {
		t.Errorf("down events %v, want none", down)
	}
	if len(up) != len(c.want) {
		t.Fatalf("up events %v, want %v", up, c.want)
	}
	for i := range up {
		if up[i] != c.want[i] {
			t.Errorf("event %d = %+v, want %+v", i, up[i], c.want[i])
		}
	}
}

func ev(change int32, ageSeconds int, outdated bool) ScaleEvent {
	return ScaleEvent{Change: change, At: testNow.Add(-time.Duration(ageSeconds) * time.Second), Outdated: outdated}
}

func TestStoreScaleEvents(t *testing.T) {
	stored := ev(5, 0, false)
	cases := []storeCase{
		{name: "EmptyNilBehavior", want: nil},
		{name: "EmptyWithBehavior", rules: rules(10, 60, 100, 60), want: []ScaleEvent{stored}},
		{name: "OldEventNilBehaviorUntouched", prev: []ScaleEvent{ev(7, 61, false)}, want: []ScaleEvent{ev(7, 61, false)}},
		{name: "OldEventReplaced", prev: []ScaleEvent{ev(7, 61, false)}, rules: rules(10, 60, 100, 60), want: []ScaleEvent{stored}},
		{name: "RecentEventKept", prev: []ScaleEvent{ev(7, 58, false)}, rules: rules(10, 60, 100, 60), wantChangeBefore: 7, want: []ScaleEvent{ev(7, 58, false), stored}},
		{name: "OnlyOldReplaced", prev: []ScaleEvent{ev(7, 61, false), ev(6, 59, false)}, rules: rules(10, 60, 0, 0), wantChangeBefore: 6, want: []ScaleEvent{stored, ev(6, 59, false)}},
		// the longest period (60 s) decides; the last outdated slot is reused
		{name: "LastOutdatedReplaced", prev: []ScaleEvent{ev(8, 29, false), ev(6, 59, false), ev(7, 61, false), ev(9, 61, false)}, rules: rules(10, 60, 100, 30),
			wantChangeBefore: 14, want: []ScaleEvent{ev(8, 29, false), ev(6, 59, false), ev(7, 61, true), stored}},
		{name: "LongPeriodKeepsAll", prev: []ScaleEvent{ev(7, 58, false), ev(6, 59, false)}, rules: rules(10, 120, 100, 30), wantChangeBefore: 13, want: []ScaleEvent{ev(7, 58, false), ev(6, 59, false), stored}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestStoreScaleEventDownLeavesUpAlone(t *testing.T) {
	b := DefaultBehavior(&autoscalingv2.HorizontalPodAutoscalerBehavior{}, 300)
	upIn := []ScaleEvent{ev(3, 1000, false)}
	up, down := StoreScaleEvent(b, upIn, nil, 10, 4, testNow)
	if len(up) != 1 || up[0].Outdated || len(down) != 1 || down[0] != ev(6, 0, false) {
		t.Errorf("up %v, down %v", up, down)
	}
}
