package hpa

import autoscalingv2 "k8s.io/api/autoscaling/v2"

// isWithin reports whether a usage ratio is close enough to 1 to leave the
// replica count alone. Both bounds are inclusive (KEP-4951 form), so a ratio
// of exactly 1.1 against 0.1 holds.
func (t Tolerances) isWithin(ratio float64) bool {
	return (1-t.ScaleDown) <= ratio && ratio <= (1+t.ScaleUp)
}

// TolerancesFor is tolerancesForHpa: the global flag in both directions,
// replaced per direction by behavior.scale{Up,Down}.tolerance only when the
// HPAConfigurableTolerance gate is on (alpha, off in v1.34).
func TolerancesFor(cfg Config, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior) Tolerances {
	t := Tolerances{ScaleDown: cfg.Tolerance, ScaleUp: cfg.Tolerance}
	if behavior == nil || !cfg.ConfigurableToleranceFeatureOn {
		return t
	}
	if r := behavior.ScaleDown; r != nil && r.Tolerance != nil {
		t.ScaleDown = r.Tolerance.AsApproximateFloat64()
	}
	if r := behavior.ScaleUp; r != nil && r.Tolerance != nil {
		t.ScaleUp = r.Tolerance.AsApproximateFloat64()
	}
	return t
}
