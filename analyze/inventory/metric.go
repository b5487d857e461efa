package inventory

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// MetricFor is the Metric of an HPA target, its target fields filled
// (the signal is the caller's to judge).
func MetricFor(t autoscalingv2.MetricSourceType, name, container string, target autoscalingv2.MetricTarget) Metric {
	m := Metric{Type: t, Name: name, Container: container, TargetType: target.Type}
	switch target.Type {
	case autoscalingv2.UtilizationMetricType:
		if target.AverageUtilization != nil {
			m.Utilization, m.TargetKnown = *target.AverageUtilization, true
			m.Target = fmt.Sprintf("%d%%", m.Utilization)
		}
	case autoscalingv2.AverageValueMetricType:
		if target.AverageValue != nil {
			m.TargetMilli, m.TargetKnown, m.Target = target.AverageValue.MilliValue(), true, target.AverageValue.String()
		}
	case autoscalingv2.ValueMetricType:
		if target.Value != nil {
			m.TargetMilli, m.TargetKnown, m.Target = target.Value.MilliValue(), true, target.Value.String()
		}
	}
	return m
}
