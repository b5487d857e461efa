package sim

import (
	"testing"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// specimen is the Size row's running example of "One Bit per Dead Time":
// ten pods requesting and limited to one core, a 50 % target, a hundred
// requests a second per pod, a 90-second dead time and a 30-second window.
func specimen(k float64) SizeOptions {
	return SizeOptions{
		Controller:   Controller{Config: hpa.DefaultConfig(), MaxReplicas: 100_000},
		Pods:         10,
		RequestMilli: 1000,
		LimitMilli:   1000,
		Target:       50,
		PodRate:      100,
		DeadTime:     90,
		Overload:     k,
	}
}

// kit is the falsification kit of the same essay: four pods at 250m, a 50 %
// target and a ceiling of 50.
func kit(k float64, target int32, limit int64) SizeOptions {
	o := specimen(k)
	o.Pods, o.RequestMilli, o.LimitMilli, o.Target = 4, 250, limit, target
	o.Controller.MaxReplicas = 50
	return o
}

func mustSize(t *testing.T, o SizeOptions) *SizeResult {
	t.Helper()
	r, err := SimulateSize(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func intp(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func TestSizeSpecimenTenfold(t *testing.T) {
	r := mustSize(t, specimen(10))
	if got := intp(r.TimeToCapacity); got != 345 {
		t.Errorf("capacity met at %d s, essay: 345 s", got)
	}
	if r.PeakReplicas != 317 {
		t.Errorf("peak %d pods, essay: 317", r.PeakReplicas)
	}
	if r.NeededReplicas != 100 {
		t.Errorf("needed %d, want 100", r.NeededReplicas)
	}
	if r.Rounds == nil || *r.Rounds != 3 {
		t.Errorf("rounds %v, want 3 (345 s / 120 s per round)", r.Rounds)
	}
	want := []ScaleEvent{{15, 10, 16}, {30, 16, 20}, {135, 20, 32}, {150, 32, 40}}
	if len(r.ScaleEvents) < len(want) {
		t.Fatalf("only %d scale events: %v", len(r.ScaleEvents), r.ScaleEvents)
	}
	for i, w := range want {
		if r.ScaleEvents[i] != w {
			t.Errorf("scale event %d = %+v, essay: %+v", i, r.ScaleEvents[i], w)
		}
	}
	// "capacity meets the load at 345 seconds, when the 64 pods ordered at
	// 255 seconds begin serving".
	found := false
	for _, e := range r.ScaleEvents {
		if e.T == 255 && e.To == 64 {
			found = true
		}
	}
	if !found {
		t.Errorf("no order to 64 pods at 255 s: %v", r.ScaleEvents)
	}
	if r.DrainedAt == nil || *r.DrainedAt <= 345 {
		t.Errorf("backlog drained at %v, want after capacity", r.DrainedAt)
	}
	if r.PeakWait <= 0 || r.PeakBacklog <= 0 {
		t.Errorf("peak wait %v, peak backlog %v: a 10x step must queue work", r.PeakWait, r.PeakBacklog)
	}
}

func TestSizeSpecimenPeaks(t *testing.T) {
	for _, c := range []struct {
		k    float64
		peak int32
	}{{3, 40}, {5, 80}, {10, 317}, {30, 1250}, {300, 19373}} {
		r := mustSize(t, specimen(c.k))
		if r.PeakReplicas != c.peak {
			t.Errorf("%vx: peak %d pods, essay: %d", c.k, r.PeakReplicas, c.peak)
		}
	}
}

// The three runs share one trunk until the smaller overload stops: the
// first requests carry no information about the overload's size.
func TestSizeSharedTrunk(t *testing.T) {
	r3 := mustSize(t, specimen(3))
	r30 := mustSize(t, specimen(30))
	for i := 0; i < 2; i++ {
		if r3.ScaleEvents[i] != r30.ScaleEvents[i] {
			t.Errorf("order %d differs: 3x %+v, 30x %+v", i, r3.ScaleEvents[i], r30.ScaleEvents[i])
		}
	}
}

func TestSizeHotTargetLosesARound(t *testing.T) {
	o := specimen(10)
	o.Target = 63
	r := mustSize(t, o)
	if got := intp(r.TimeToCapacity); got != 585 {
		t.Errorf("63%% target: capacity at %d s, essay: 585 s", got)
	}
	if r.Rounds == nil || *r.Rounds != 5 {
		t.Errorf("63%% target: rounds %v, essay: 5", r.Rounds)
	}
}

// The dead band (Corollary 1): ten saturated ready pods draw a first
// recommendation of 13 at 80 %, 12 from 85 % to 90 %, and 10 from 91 %.
func TestDeadBandFirstRecommendation(t *testing.T) {
	now := at(0)
	old := at(-100_000)
	pods := []hpa.Pod{{
		Name: "p", Count: 10, Phase: hpa.PodRunning, StartTime: &old,
		Ready:      &hpa.ReadyCondition{Status: true, LastTransitionTime: old},
		Containers: []hpa.Container{{Name: "app", Requests: map[string]int64{"cpu": 1000}}},
	}}
	metrics := hpa.PodMetrics{"p": {Value: 1000, Timestamp: now, Window: 30 * time.Second}}
	calc := hpa.Calculator{Tolerances: hpa.Tolerances{ScaleDown: 0.1, ScaleUp: 0.1}, CPUInitializationPeriod: 5 * time.Minute, DelayOfInitialReadinessStatus: 30 * time.Second}
	for target, want := range map[int32]int32{80: 13, 85: 12, 88: 12, 90: 12, 91: 10, 93: 10, 95: 10} {
		got, util, _, err := calc.ResourceReplicas(10, target, "cpu", "", pods, metrics, now)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || util != 100 {
			t.Errorf("target %d%%: recommendation %d (status %d%%), essay: %d", target, got, util, want)
		}
	}
}

func TestKitFalsification(t *testing.T) {
	t.Run("F1 F2 3x", func(t *testing.T) {
		r := mustSize(t, kit(3, 50, 250))
		checkOrders(t, r, []int32{7, 8, 14, 16})
		if got := intp(r.TimeToCapacity); got != 105 {
			t.Errorf("capacity at %d s, essay: 105 s", got)
		}
		if r.PeakReplicas != 16 || r.NeededReplicas != 12 {
			t.Errorf("peak %d vs need %d, essay: 16 vs 12", r.PeakReplicas, r.NeededReplicas)
		}
	})
	t.Run("F1 F2 5x", func(t *testing.T) {
		r := mustSize(t, kit(5, 50, 250))
		checkOrders(t, r, []int32{7, 8, 14, 16})
		if got := intp(r.TimeToCapacity); got != 225 {
			t.Errorf("capacity at %d s, essay: 225 s", got)
		}
		if r.PeakReplicas != 32 || r.NeededReplicas != 20 {
			t.Errorf("peak %d vs need %d, essay: 32 vs 20", r.PeakReplicas, r.NeededReplicas)
		}
	})
	t.Run("F3 unsaturated limit", func(t *testing.T) {
		r := mustSize(t, kit(5, 50, 1000))
		if got := intp(r.TimeToCapacity); got != 0 {
			t.Errorf("capacity at %d s, essay: at the step", got)
		}
		if r.PeakReplicas != 20 {
			t.Errorf("peak %d, essay: rises to 20 and no further", r.PeakReplicas)
		}
	})
	t.Run("F4 dead band", func(t *testing.T) {
		o := kit(3, 93, 250)
		o.Horizon = 3600
		r := mustSize(t, o)
		if len(r.ScaleEvents) != 0 || r.TimeToCapacity != nil {
			t.Errorf("93%% target scaled: %v, capacity %v", r.ScaleEvents, r.TimeToCapacity)
		}
		if r.StatusUtilization != 100 {
			t.Errorf("status %d%%, essay: 100%%", r.StatusUtilization)
		}
	})
}

func checkOrders(t *testing.T, r *SizeResult, want []int32) {
	t.Helper()
	if len(r.ScaleEvents) < len(want) {
		t.Fatalf("scale events %v, want orders %v first", r.ScaleEvents, want)
	}
	for i, w := range want {
		if r.ScaleEvents[i].To != w {
			t.Errorf("order %d to %d pods, essay: %d (events %v)", i, r.ScaleEvents[i].To, w, r.ScaleEvents[:len(want)])
		}
	}
}

// A limit far above the request keeps the metric unsaturated: the
// controller sizes the overload in one step and the peak is the need.
func TestSizeUnsaturatedPeakIsNeed(t *testing.T) {
	for _, k := range []float64{2, 10, 30} {
		o := specimen(k)
		o.LimitMilli = 100_000
		r := mustSize(t, o)
		if r.PeakReplicas != r.NeededReplicas {
			t.Errorf("%vx with limit 100x request: peak %d, need %d", k, r.PeakReplicas, r.NeededReplicas)
		}
	}
}

// Degraded saturated pods slow recovery and raise the peak.
func TestSizeEfficiencyCosts(t *testing.T) {
	full := mustSize(t, specimen(10))
	o := specimen(10)
	o.Efficiency = 0.4
	low := mustSize(t, o)
	if intp(low.TimeToCapacity) <= intp(full.TimeToCapacity) || low.PeakReplicas <= full.PeakReplicas {
		t.Errorf("efficiency 0.4: capacity %d s / peak %d, full: %d s / %d",
			intp(low.TimeToCapacity), low.PeakReplicas, intp(full.TimeToCapacity), full.PeakReplicas)
	}
}

func TestSizeSeriesAndWait(t *testing.T) {
	o := specimen(10)
	o.Series = true
	r := mustSize(t, o)
	s := r.Series
	if s.Start != -60 || len(s.Replicas) != int(r.End-s.Start+1) {
		t.Fatalf("series from %d with %d samples, run ends at %d", s.Start, len(s.Replicas), r.End)
	}
	var peak float64
	for i, w := range s.Wait {
		peak = max(peak, w)
		if s.Start+int64(i) < 0 && w != 0 {
			t.Fatalf("wait %v before the step", w)
		}
	}
	if peak != r.PeakWait {
		t.Errorf("series peak wait %v, result %v", peak, r.PeakWait)
	}
	if got := s.Replicas[60]; got != 10 {
		t.Errorf("replicas at the step %d, want 10", got)
	}
}

func TestSizeRejectsBadInput(t *testing.T) {
	for name, mutate := range map[string]func(*SizeOptions){
		"no pods":           func(o *SizeOptions) { o.Pods = 0 },
		"limit below req":   func(o *SizeOptions) { o.LimitMilli = 500 },
		"zero target":       func(o *SizeOptions) { o.Target = 0 },
		"zero dead time":    func(o *SizeOptions) { o.DeadTime = 0 },
		"negative rate":     func(o *SizeOptions) { o.PodRate = -1 },
		"efficiency over 1": func(o *SizeOptions) { o.Efficiency = 2 },
		"no overload":       func(o *SizeOptions) { o.Overload = 0 },
	} {
		o := specimen(10)
		mutate(&o)
		if _, err := SimulateSize(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkSizeSpecimen(b *testing.B) {
	o := specimen(10)
	for b.Loop() {
		if _, err := SimulateSize(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSizeSpecimen300x(b *testing.B) {
	o := specimen(300)
	for b.Loop() {
		if _, err := SimulateSize(o); err != nil {
			b.Fatal(err)
		}
	}
}

// An AverageValue target of half the request runs the specimen through the
// plain-average path: the same rounds, and a peak no lower, since that path
// does not truncate to a whole percent (the utilization path's 317 comes
// from rounding each ratio down).
func TestSizeAverageValueTarget(t *testing.T) {
	o := specimen(10)
	o.Target, o.TargetAverageMilli = 0, 500
	r := mustSize(t, o)
	checkOrders(t, r, []int32{16, 20, 32, 40})
	if got := intp(r.TimeToCapacity); got != 345 || r.NeededReplicas != 100 || r.PeakReplicas < 317 {
		t.Errorf("averageValue 500m: capacity %d s, peak %d, need %d; want 345 s, at least 317, 100", got, r.PeakReplicas, r.NeededReplicas)
	}
	// 950m of a 1-core limit is inside the tolerance band: never scales.
	o.TargetAverageMilli = 950
	o.Horizon = 1800
	if r := mustSize(t, o); len(r.ScaleEvents) != 0 {
		t.Errorf("averageValue 950m at a 1-core limit scaled: %v", r.ScaleEvents)
	}
}
