package rules

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
)

// One autoscaler's Size row costs at most sizeWorkBudget whatever its
// values: at the corner of every range (an hour's dead time, a 15-minute
// window, a 1-second sync, one pod added a second, eight overloads) it is
// refused with the budget named, in about a second, not priced in minutes.
func TestPriceSizeBudget(t *testing.T) {
	testutil.SkipIfShort(t)
	zero := int32(0)
	cfg := hpa.DefaultConfig()
	cfg.SyncPeriod = time.Second
	m := SizeModel{
		Run: sim.SizeOptions{
			Controller: sim.Controller{Config: cfg, MaxReplicas: math.MaxInt32, Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{
				ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &zero,
					Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 1}}},
			}},
			Pods: 3, RequestMilli: 500, LimitMilli: 1000, Target: 1, PodRate: 0.001,
			DeadTime: 3600, MetricWindow: 900, Series: true,
		},
		Overloads:   []float64{2, 3, 5, 10, 30, 100, 300, 1000},
		RoundsCurve: true,
	}
	cpu0 := testutil.CPUTime() // CPU, not wall: other processes share the cores in CI
	_, err := PriceSize(m)
	if err == nil || !strings.Contains(err.Error(), "work budget") {
		t.Fatalf("err %v, want the work budget", err)
	}
	if d := testutil.CPUTime() - cpu0; d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	// An ordinary autoscaler is far inside the budget: every overload and
	// the whole sweep are priced.
	m.Run.Controller = sim.Controller{Config: hpa.DefaultConfig(), MaxReplicas: 1000}
	m.Run.DeadTime, m.Run.MetricWindow, m.Run.Target, m.Run.PodRate = 90, 30, 50, 100
	b, err := PriceSize(m)
	if err != nil || len(b.Overloads) != 8 || len(b.RoundsCurve) != len(roundsSweep) {
		t.Fatalf("ordinary: %v, %+v", err, b)
	}
}

func TestNonFinite(t *testing.T) {
	b := &contract.SizeBill{Overloads: []contract.SizeOverload{{K: 2}, {K: 3, PeakBacklog: math.Inf(1)}}}
	if got := nonFinite(b); got != "overloads[1].peakBacklog = +Inf" {
		t.Errorf("nonFinite = %q", got)
	}
	if got := nonFinite(&contract.TimeBill{PeakWaitSeconds: 3}); got != "" {
		t.Errorf("finite bill: %q", got)
	}
	if got := nonFinite((*contract.TimeBill)(nil)); got != "" {
		t.Errorf("nil bill: %q", got)
	}
}

// The controller's history is bounded too (readBudget): a 1-s sync under
// an hour's stabilization window is refused with the budget and the remedy
// named, in a second or two, not priced in ten (Size, behind a scale-up
// policy so slow the ceiling is never reached) or refused mid-run (Time).
// At the default 15-s sync the longest windows and periods the API accepts,
// with the longest metric window, stay well inside it.
func TestReadBudgetPerAutoscaler(t *testing.T) {
	testutil.SkipIfShort(t)
	hour, period := int32(3600), int32(1800)
	slow := &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleUp: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &hour,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: period}}},
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &hour,
			Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: period}}},
	}
	cfg := hpa.DefaultConfig()
	cfg.SyncPeriod = time.Second
	size := SizeModel{
		Run: sim.SizeOptions{
			Controller: sim.Controller{Config: cfg, MaxReplicas: math.MaxInt32, Behavior: slow},
			Pods:       10, RequestMilli: 500, LimitMilli: 1000, Target: 50, PodRate: 100,
			DeadTime: 90, MetricWindow: 900, Series: true,
		},
		Overloads:   []float64{2, 3, 5, 10, 30, 100, 300, 1000},
		RoundsCurve: true,
	}
	tm := TimeModel{Controller: sim.Controller{Config: cfg, MaxReplicas: 1000, Behavior: slow},
		PodRate: 10, Threshold: 10, DeadTime: 90, Window: 3600, Demand: 50, Step: 4, Timeline: true}
	cpu0 := testutil.CPUTime() // CPU, not wall: other processes share the cores in CI
	if _, err := PriceSize(size); err == nil || !strings.Contains(err.Error(), "reads exceed") || !strings.Contains(err.Error(), "lengthen the sync period") {
		t.Errorf("Size: err %v, want the read budget and its remedy", err)
	}
	if _, err := PriceTime(tm); err == nil || !strings.Contains(err.Error(), "reads exceed") {
		t.Errorf("Time: err %v, want the read budget", err)
	}
	if d := testutil.CPUTime() - cpu0; d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	size.Run.Controller.Config, tm.Controller.Config = hpa.DefaultConfig(), hpa.DefaultConfig()
	if b, err := PriceSize(size); err != nil || len(b.RoundsCurve) != len(roundsSweep) {
		t.Errorf("15-s sync: %v, %+v", err, b)
	}
	if _, err := PriceTime(tm); err != nil {
		t.Errorf("15-s sync, Time: %v", err)
	}
}
