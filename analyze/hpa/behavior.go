package hpa

import autoscalingv2 "k8s.io/api/autoscaling/v2"

// DefaultBehavior applies the autoscaling/v2 API defaults (§12.1) to a copy
// of b, field by field per direction, and fills an unset scale-down window
// from the controller flag as maybeInitScaleDownStabilizationWindow does.
// A nil b stays nil: without a behavior block the legacy path applies.
func DefaultBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior, downscaleStabilization int32) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	if b == nil {
		return nil
	}
	out := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp:   mergeRules(b.ScaleUp, defaultScaleUpRules()),
		ScaleDown: mergeRules(b.ScaleDown, defaultScaleDownRules()),
	}
	if out.ScaleDown.StabilizationWindowSeconds == nil {
		out.ScaleDown.StabilizationWindowSeconds = &downscaleStabilization
	}
	return out
}

func defaultScaleUpRules() *autoscalingv2.HPAScalingRules {
	window := int32(0)
	sel := autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &window,
		SelectPolicy:               &sel,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// defaultScaleDownRules leaves the window unset on purpose: the API does,
// and the controller substitutes its flag.
func defaultScaleDownRules() *autoscalingv2.HPAScalingRules {
	sel := autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HPAScalingRules{
		SelectPolicy: &sel,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// mergeRules lets every field the user set replace the default; a policies
// list replaces the default list whole (even an empty, non-nil one).
func mergeRules(user, def *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if user == nil {
		return def
	}
	if user.SelectPolicy != nil {
		p := *user.SelectPolicy
		def.SelectPolicy = &p
	}
	if user.StabilizationWindowSeconds != nil {
		w := *user.StabilizationWindowSeconds
		def.StabilizationWindowSeconds = &w
	}
	if user.Policies != nil {
		def.Policies = append([]autoscalingv2.HPAScalingPolicy{}, user.Policies...)
	}
	if user.Tolerance != nil {
		t := user.Tolerance.DeepCopy()
		def.Tolerance = &t
	}
	return def
}

// isDefaulted reports whether b already carries every field the behavior
// path dereferences.
func isDefaulted(b *autoscalingv2.HorizontalPodAutoscalerBehavior) bool {
	ok := func(r *autoscalingv2.HPAScalingRules) bool {
		return r != nil && r.SelectPolicy != nil && r.StabilizationWindowSeconds != nil && r.Policies != nil
	}
	return ok(b.ScaleUp) && ok(b.ScaleDown)
}
