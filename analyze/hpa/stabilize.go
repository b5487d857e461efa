package hpa

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Recommendation is one stored, un-stabilized metric proposal.
type Recommendation struct {
	Replicas int32
	At       time.Time
}

// StabilizeRecommendation is the legacy stabilizeRecommendation (§11): the
// highest proposal of the last window wins. An entry exactly at now−window
// still counts (upstream tests Before(cutoff)); the new proposal overwrites
// the last expired slot, or is appended, so the slice stays about
// window/sync long. It returns the stabilized value and the updated slice.
func StabilizeRecommendation(recs []Recommendation, prenormalized int32, window time.Duration, now time.Time) (int32, []Recommendation) {
	best := prenormalized
	cutoff := now.Add(-window)
	old := -1
	for i, r := range recs {
		if r.At.Before(cutoff) {
			old = i
		} else if r.Replicas > best {
			best = r.Replicas
		}
	}
	return best, storeRecommendation(recs, old, Recommendation{prenormalized, now})
}

// StabilizeRecommendationWithBehaviors is §12.2: the count moves up only to
// the lowest proposal of the up-window and down only to the highest of the
// down-window; both windows exclude an entry exactly at their cutoff. The
// un-stabilized desired value is stored, overwriting the last entry that is
// older than both cutoffs. reason is ScaleUpStabilized or ScaleDownStabilized
// (upstream reports it only when the result differs from desired).
func StabilizeRecommendationWithBehaviors(recs []Recommendation, current, desired int32, scaleUp, scaleDown *autoscalingv2.HPAScalingRules, now time.Time) (stabilized int32, reason string, updated []Recommendation) {
	upCut := now.Add(-windowOf(scaleUp))
	downCut := now.Add(-windowOf(scaleDown))
	upRec, downRec := desired, desired
	old := -1
	for i, r := range recs {
		if r.At.After(upCut) {
			upRec = min(upRec, r.Replicas)
		}
		if r.At.After(downCut) {
			downRec = max(downRec, r.Replicas)
		}
		if r.At.Before(upCut) && r.At.Before(downCut) {
			old = i
		}
	}
	stabilized = current
	if stabilized < upRec {
		stabilized = upRec
	}
	if stabilized > downRec {
		stabilized = downRec
	}
	reason = "ScaleDownStabilized"
	if desired >= current {
		reason = "ScaleUpStabilized"
	}
	return stabilized, reason, storeRecommendation(recs, old, Recommendation{desired, now})
}

func storeRecommendation(recs []Recommendation, old int, r Recommendation) []Recommendation {
	if old >= 0 {
		recs[old] = r
		return recs
	}
	return append(recs, r)
}

// windowOf reads a defaulted rule's window; nil counts as 0 so that the
// helper is usable on hand-built rules in tests.
func windowOf(r *autoscalingv2.HPAScalingRules) time.Duration {
	if r == nil || r.StabilizationWindowSeconds == nil {
		return 0
	}
	return time.Duration(*r.StabilizationWindowSeconds) * time.Second
}
