package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/capreport/capreport/internal/testutil"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// decidedCase is a Size run with whether its outcome is decided before the
// horizon (SimulateSize then stops running the controller).
type decidedCase struct {
	name    string
	o       SizeOptions
	decided bool
}

func decidedCases() []decidedCase {
	ceiling := kit(30, 50, 250)
	ceiling.Controller.MaxReplicas = 10
	window := int32(120)
	behavior := ceiling
	behavior.Controller.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &window,
		Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 2, PeriodSeconds: 60}},
	}}
	average := ceiling
	average.TargetAverageMilli = 125
	inefficient := ceiling
	inefficient.Efficiency = 0.5
	// At the ceiling of 10 the pods serve 500/s saturated and 1,000/s at
	// full rate: 800/s never meets capacity, yet an idle second could
	// occur as far as the premise knows, so the run goes on.
	band := inefficient
	band.Overload = 4
	fast := ceiling
	fast.Controller.Config.SyncPeriod = time.Second
	fast.Controller.Config.CPUInitializationPeriod = 0
	fast.MetricWindow = 1
	// Above what a pod can use: saturated pods read below the target, so
	// the count falls to the minimum, where the proposal is the count.
	hot := kit(3, 150, 250)
	for _, o := range []*SizeOptions{&ceiling, &behavior, &average, &inefficient, &band, &fast, &hot} {
		o.Series = true
	}
	deadBand := kit(3, 93, 250)
	deadBand.Series = true
	met := specimen(10)
	met.Series = true
	return []decidedCase{
		{"ceiling, legacy path", ceiling, true},
		{"ceiling, behavior with a scale-up window", behavior, true},
		{"ceiling, AverageValue target", average, true},
		{"ceiling, saturated efficiency 0.5", inefficient, true},
		{"demand between saturated and full capacity", band, false},
		{"ceiling, 1-s sync and window, no CPU initialization", fast, true},
		{"dead band below the ceiling", deadBand, true},
		{"capacity met and drained", met, false},
		{"target above the limit, down to the minimum", hot, true},
	}
}

// Once a run's outcome is decided SimulateSize stops running the
// controller; every figure, series and unit of work is still the one the
// full run gives (see sizeRun.settled for why).
func TestSizeDecidedMatchesFullRun(t *testing.T) {
	for _, c := range decidedCases() {
		t.Run(c.name, func(t *testing.T) {
			got := mustSize(t, c.o)
			full := c.o
			full.exhaustive = true
			want := mustSize(t, full)
			if (got.decidedAt != nil) != c.decided {
				t.Errorf("decided at %d, want decided %v", intp(got.decidedAt), c.decided)
			}
			// Reads count what the controller did read: nothing once
			// decided.
			if got.Reads > want.Reads || c.decided && got.Reads == want.Reads {
				t.Errorf("read %d, the full run %d", got.Reads, want.Reads)
			}
			got.decidedAt, got.Reads, want.Reads = nil, 0, 0
			if !reflect.DeepEqual(got, want) {
				t.Errorf("differs from the full run:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// A budget that runs out after the decision stops the run at the same
// second with the same error as the full run, with or without RoundsOnly.
func TestSizeDecidedBudget(t *testing.T) {
	testutil.SkipIfShort(t)
	for _, c := range decidedCases() {
		full := c.o
		full.exhaustive = true
		w := mustSize(t, full).Work
		for _, budget := range []int64{w, w - 1, w - 100, w / 2} {
			for _, roundsOnly := range []bool{false, true} {
				o, ref := c.o, full
				o.MaxWork, ref.MaxWork, o.RoundsOnly = budget, budget, roundsOnly
				_, err := SimulateSize(o)
				_, wantErr := SimulateSize(ref)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s, budget %d, rounds only %v: %v, want %v", c.name, budget, roundsOnly, err, wantErr)
				}
			}
		}
	}
}

// RoundsOnly, for the rounds sweep, reads the same rounds and spends the
// same work as the full run, however early it returns.
func TestSizeRoundsOnly(t *testing.T) {
	for _, c := range decidedCases() {
		o := c.o
		o.Series, o.RoundsOnly = false, true
		got := mustSize(t, o)
		full := c.o
		full.exhaustive = true
		want := mustSize(t, full)
		g := [4]int64{intp(got.TimeToCapacity), roundsOf(got.Rounds), got.Work, got.End}
		w := [4]int64{intp(want.TimeToCapacity), roundsOf(want.Rounds), want.Work, want.End}
		if g != w {
			t.Errorf("%s: capacity, rounds, work, end %v; full run %v", c.name, g, w)
		}
	}
}

func roundsOf(p *int) int64 {
	if p == nil {
		return -1
	}
	return int64(*p)
}
