package hpa

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// ScaleEvent is one recorded rescale: Change is always positive; the list
// it sits in gives the direction.
type ScaleEvent struct {
	Change   int32
	At       time.Time
	Outdated bool
}

// StoreScaleEvent is storeScaleEvent (§12.4), called after a successful
// rescale from prev to next. Only the moving direction's list changes:
// events older than that direction's longest policy period are marked
// outdated and the last outdated slot is reused, else the event is appended.
// With a nil behavior nothing is stored (the legacy path never reads events).
// The slices may be modified in place; the updated ones are returned.
func StoreScaleEvent(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, upEvents, downEvents []ScaleEvent, prev, next int32, now time.Time) (up, down []ScaleEvent) {
	if behavior == nil {
		return upEvents, downEvents
	}
	if next > prev {
		return storeEvent(upEvents, longestPeriod(behavior.ScaleUp), next-prev, now), downEvents
	}
	return upEvents, storeEvent(downEvents, longestPeriod(behavior.ScaleDown), prev-next, now)
}

func storeEvent(events []ScaleEvent, longestSeconds int32, change int32, now time.Time) []ScaleEvent {
	cutoff := now.Add(-time.Duration(longestSeconds) * time.Second)
	old := -1
	for i := range events {
		if events[i].At.Before(cutoff) {
			events[i].Outdated = true
		}
		if events[i].Outdated {
			old = i
		}
	}
	e := ScaleEvent{Change: change, At: now}
	if old >= 0 {
		events[old] = e
		return events
	}
	return append(events, e)
}

func longestPeriod(r *autoscalingv2.HPAScalingRules) int32 {
	var longest int32
	if r == nil {
		return 0
	}
	for _, p := range r.Policies {
		longest = max(longest, p.PeriodSeconds)
	}
	return longest
}
