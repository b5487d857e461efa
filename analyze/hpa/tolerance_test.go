package hpa

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestTolerancesFor(t *testing.T) {
	up, down := resource.MustParse("0.01"), resource.MustParse("0.3")
	b := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp:   &autoscalingv2.HPAScalingRules{Tolerance: &up},
		ScaleDown: &autoscalingv2.HPAScalingRules{Tolerance: &down},
	}
	gateOn := DefaultConfig()
	gateOn.ConfigurableToleranceFeatureOn = true
	cases := []struct {
		name     string
		cfg      Config
		behavior *autoscalingv2.HorizontalPodAutoscalerBehavior
		want     Tolerances
	}{
		// v1.34 default: the gate is off and behavior tolerances are ignored
		{"GateOff", DefaultConfig(), b, Tolerances{0.1, 0.1}},
		{"GateOnNoBehavior", gateOn, nil, Tolerances{0.1, 0.1}},
		// Quantity.AsApproximateFloat64 reads "0.3" as 3×0.1, as upstream
		{"GateOn", gateOn, b, Tolerances{ScaleDown: 0.30000000000000004, ScaleUp: 0.01}},
		{"GateOnOneSide", gateOn, &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{Tolerance: &up}}, Tolerances{ScaleDown: 0.1, ScaleUp: 0.01}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TolerancesFor(c.cfg, c.behavior); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
			// the defaulted copy NewAutoscaler keeps must carry them too
			a := NewAutoscaler(c.cfg, nil, 10, c.behavior)
			if got := a.Calculator().Tolerances; got != c.want {
				t.Errorf("via Autoscaler: got %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestCalculatorLeavesInputsAlone: the simulator reuses its metric map.
func TestCalculatorLeavesInputsAlone(t *testing.T) {
	pods, metrics := testPods("URRR", rep(2000, 4), []int64{200, 4000, 4000, noMetric})
	before := len(metrics)
	if _, _, _, err := testCalc.ResourceReplicas(4, 50, "cpu", "", pods, metrics, testNow); err != nil {
		t.Fatal(err)
	}
	if _, _, err := testCalc.MetricReplicas(4, 500, pods, metrics, testNow); err != nil {
		t.Fatal(err)
	}
	if len(metrics) != before || metrics[podName(0)].Value != 200 {
		t.Errorf("metrics modified: %v", metrics)
	}
}
