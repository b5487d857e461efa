package hpa

import (
	"math"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Condition reasons of ScalingLimited, as upstream.
const (
	ReasonWithinRange     = "DesiredWithinRange"
	ReasonScaleUpLimit    = "ScaleUpLimit"
	ReasonScaleDownLimit  = "ScaleDownLimit"
	ReasonTooMany         = "TooManyReplicas"
	ReasonTooFew          = "TooFewReplicas"
	ReasonScalingDisabled = "ScalingDisabled"
	ReasonFailedMetrics   = "FailedComputeMetricsReplicas"
)

// ConvertDesiredReplicasWithRules is the legacy clamp (§11): at most
// max(2×current, 4) per reconcile, then [min, max]. The scale-up limit
// guards against a bogus usage spike doubling a large fleet at once.
func ConvertDesiredReplicasWithRules(current, desired, minReplicas, maxReplicas int32) (int32, string) {
	scaleUpLimit := int32(math.Max(2*float64(current), 4))
	maxAllowed, reason := maxReplicas, ReasonTooMany
	if maxReplicas > scaleUpLimit {
		maxAllowed, reason = scaleUpLimit, ReasonScaleUpLimit
	}
	switch {
	case desired < minReplicas:
		return minReplicas, ReasonTooFew
	case desired > maxAllowed:
		return maxAllowed, reason
	}
	return desired, ReasonWithinRange
}

// ConvertDesiredReplicasWithBehaviorRate is §12.3: the stabilized value is
// limited by the policies, counting scale events of both directions within
// each policy's period, then by [min, max]. current inside [min, max] is
// assumed (reconcile handles the rest).
func ConvertDesiredReplicasWithBehaviorRate(current, desired, minReplicas, maxReplicas int32, scaleUp, scaleDown *autoscalingv2.HPAScalingRules, upEvents, downEvents []ScaleEvent, now time.Time) (int32, string) {
	switch {
	case desired > current:
		limit := CalculateScaleUpLimitWithScalingRules(current, upEvents, downEvents, scaleUp, now)
		// Events still in their period may put the limit below current;
		// never turn a scale-up into a scale-down.
		limit = max(limit, current)
		maxAllowed, reason := maxReplicas, ReasonTooMany
		if maxReplicas > limit {
			maxAllowed, reason = limit, ReasonScaleUpLimit
		}
		if desired > maxAllowed {
			return maxAllowed, reason
		}
	case desired < current:
		limit := CalculateScaleDownLimitWithBehaviors(current, upEvents, downEvents, scaleDown, now)
		limit = min(limit, current)
		minAllowed, reason := minReplicas, ReasonTooFew
		if minReplicas < limit {
			minAllowed, reason = limit, ReasonScaleDownLimit
		}
		if desired < minAllowed {
			return minAllowed, reason
		}
	}
	return desired, ReasonWithinRange
}

// CalculateScaleUpLimitWithScalingRules is the highest count the scale-up
// policies allow now. Select Max takes the most permissive policy, Min the
// least, Disabled freezes at current. Percent rounds up so that a small
// fleet can always grow.
func CalculateScaleUpLimitWithScalingRules(current int32, upEvents, downEvents []ScaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	pick, result := maxOf, int32(math.MinInt32)
	switch selectPolicy(rules) {
	case autoscalingv2.DisabledPolicySelect:
		return current
	case autoscalingv2.MinChangePolicySelect:
		pick, result = minOf, math.MaxInt32
	}
	for _, p := range rules.Policies {
		start := periodStart(current, p.PeriodSeconds, upEvents, downEvents, now)
		var proposed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = start + p.Value
		case autoscalingv2.PercentScalingPolicy:
			proposed = int32(math.Ceil(float64(start) * (1 + float64(p.Value)/100)))
		}
		result = pick(result, proposed)
	}
	return result
}

// CalculateScaleDownLimitWithBehaviors is the lowest count the scale-down
// policies allow now. Select Max means the largest change, i.e. the lowest
// proposal. Percent truncates (and may go negative).
func CalculateScaleDownLimitWithBehaviors(current int32, upEvents, downEvents []ScaleEvent, rules *autoscalingv2.HPAScalingRules, now time.Time) int32 {
	pick, result := minOf, int32(math.MaxInt32)
	switch selectPolicy(rules) {
	case autoscalingv2.DisabledPolicySelect:
		return current
	case autoscalingv2.MinChangePolicySelect:
		pick, result = maxOf, math.MinInt32
	}
	for _, p := range rules.Policies {
		start := periodStart(current, p.PeriodSeconds, upEvents, downEvents, now)
		var proposed int32
		switch p.Type {
		case autoscalingv2.PodsScalingPolicy:
			proposed = start - p.Value
		case autoscalingv2.PercentScalingPolicy:
			proposed = int32(float64(start) * (1 - float64(p.Value)/100))
		}
		result = pick(result, proposed)
	}
	return result
}

// periodStart reconstructs the count at the start of a policy's period by
// undoing the changes made within it.
func periodStart(current, periodSeconds int32, upEvents, downEvents []ScaleEvent, now time.Time) int32 {
	return current - ReplicasChangePerPeriod(periodSeconds, upEvents, now) + ReplicasChangePerPeriod(periodSeconds, downEvents, now)
}

// ReplicasChangePerPeriod is getReplicasChangePerPeriod: the sum of changes
// strictly after now−period. The Outdated flag is not consulted.
func ReplicasChangePerPeriod(periodSeconds int32, events []ScaleEvent, now time.Time) int32 {
	cutoff := now.Add(-time.Duration(periodSeconds) * time.Second)
	var sum int32
	for _, e := range events {
		if e.At.After(cutoff) {
			sum += e.Change
		}
	}
	return sum
}

// selectPolicy reads a defaulted rule's policy; nil means the default, Max.
func selectPolicy(r *autoscalingv2.HPAScalingRules) autoscalingv2.ScalingPolicySelect {
	if r == nil || r.SelectPolicy == nil {
		return autoscalingv2.MaxChangePolicySelect
	}
	return *r.SelectPolicy
}

func minOf(a, b int32) int32 { return min(a, b) }
func maxOf(a, b int32) int32 { return max(a, b) }
