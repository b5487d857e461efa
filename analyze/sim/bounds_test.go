package sim

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// A demand that needs more pods than an int32 holds is an error naming it,
// never a wrapped-around count ("1472974804 pods vs -2147483648 needed")
// nor +Inf in the bill.
func TestSizeRefusesOverflowingDemand(t *testing.T) {
	for _, o := range []SizeOptions{
		func() SizeOptions { o := specimen(1e9); return o }(),
		func() SizeOptions { o := specimen(10); o.DemandBefore = 1e308; return o }(),
		func() SizeOptions { o := specimen(10); o.DemandBefore = math.MaxFloat64; o.Overload = 10; return o }(),
	} {
		r, err := SimulateSize(o)
		if err == nil {
			t.Errorf("overload %g, demand %g: priced %d needed", o.Overload, o.DemandBefore, r.NeededReplicas)
			continue
		}
		if !strings.Contains(err.Error(), "2147483647 pods") {
			t.Errorf("error %q does not name the replica bound", err)
		}
	}
	// The largest count that fits is still priced.
	o := specimen(2)
	o.Pods, o.Controller.MaxReplicas = 1_000_000, math.MaxInt32
	if r, err := SimulateSize(o); err != nil || r.NeededReplicas != 2_000_000 {
		t.Errorf("2 000 000 pods: %v, %v", r, err)
	}
}

func TestTimeRefusesOverflowingDemand(t *testing.T) {
	o := timeKit(10, 5*time.Minute)
	o.DemandAfter = 1e308
	if _, err := SimulateTime(o); err == nil || !strings.Contains(err.Error(), "2147483647 pods") {
		t.Errorf("demand 1e308: err %v", err)
	}
}

// MaxWork bounds a run whatever its inputs: an hour's dead time read every
// second by a controller that adds one pod a second keeps thousands of
// cohorts alive, millions of reads per run; the budget stops it early.
func TestSizeWorkBudget(t *testing.T) {
	testutil.SkipIfShort(t)
	zero := int32(0)
	o := specimen(1000)
	o.Pods, o.RequestMilli, o.LimitMilli, o.Target, o.PodRate = 3, 500, 1000, 1, 0.001
	o.DeadTime, o.MetricWindow = 3600, 900
	o.Controller.Config.SyncPeriod = time.Second
	o.Controller.MaxReplicas = math.MaxInt32
	o.Controller.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &zero,
		Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 1}},
	}}
	o.MaxWork = 1_000_000
	cpu0 := testutil.CPUTime() // CPU, not wall: other processes share the cores in CI
	_, err := SimulateSize(o)
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err %v, want ErrBudget", err)
	}
	if d := testutil.CPUTime() - cpu0; d > 5*time.Second {
		t.Errorf("a 1e6-unit budget took %v", d)
	}
	// The specimen fits a small budget and reports what it spent.
	s := specimen(10)
	s.MaxWork = 1_000_000
	r, err := SimulateSize(s)
	if err != nil || r.Work <= r.End || r.Work > s.MaxWork {
		t.Errorf("specimen: work %v, err %v", r, err)
	}
}

// MaxReads bounds what the controller reads of its own history, which
// MaxWork does not count: a 1-s sync under an hour's stabilization window
// holds 3,600 recommendations and reads them all every second.
func TestReadBudget(t *testing.T) {
	o := specimen(10)
	o.Controller.Config.SyncPeriod = time.Second
	o.Controller.Config.DownscaleStabilizationWindow = time.Hour
	o.MaxReads = 100_000
	if _, err := SimulateSize(o); !errors.Is(err, ErrReadBudget) {
		t.Errorf("Size: err %v, want ErrReadBudget", err)
	}
	to := timeKit(10, time.Hour)
	to.Controller.Config.SyncPeriod = time.Second
	to.MaxReads = 100_000
	if _, err := SimulateTime(to); !errors.Is(err, ErrReadBudget) {
		t.Errorf("Time: err %v, want ErrReadBudget", err)
	}
	// Runs within the budget report what they read.
	s := specimen(10)
	s.MaxReads = 1_000_000
	if r, err := SimulateSize(s); err != nil || r.Reads <= 0 || r.Reads > s.MaxReads {
		t.Errorf("specimen: reads %v, err %v", r, err)
	}
	k := timeKit(10, 5*time.Minute)
	k.MaxReads = 1_000_000
	if r, err := SimulateTime(k); err != nil || r.Reads <= 0 || r.Reads > k.MaxReads {
		t.Errorf("kit: reads %v, err %v", r, err)
	}
}
