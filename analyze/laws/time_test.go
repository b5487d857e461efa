package laws

import (
	"math"
	"testing"

	"github.com/capreport/capreport/analyze/phi"
)

func TestStandingDelay(t *testing.T) {
	// The Kafka default: 10 messages per pod at 10 per second is one second;
	// the AWS example: 100 per instance at 0.1 s per message is ten.
	if got := StandingDelay(10, 10); got != 1 {
		t.Errorf("Kafka default D = %v, want 1", got)
	}
	if got := StandingDelay(100, 10); got != 10 {
		t.Errorf("AWS example D = %v, want 10", got)
	}
	if got := StandingDelay(10, 0); !math.IsInf(got, 1) {
		t.Errorf("zero rate D = %v, want +Inf", got)
	}
	if EffectiveDeadTime(90) != 100 || EffectiveWindow(300) != 310 {
		t.Error("sampling correction is not 10 s on each branch")
	}
}

// timeCase is one essay figure for the corrected law, in seconds.
type timeCase struct {
	name             string
	deadTime, window float64
	want             float64 // published, to the essay's digits
	tol              float64 // absolute: half a unit of the last digit
}

func (c timeCase) run(t *testing.T) {
	t.Helper()
	if got := RequiredStandingDelay(c.deadTime, c.window); math.Abs(got-c.want) > c.tol {
		t.Errorf("%s: τ_eff·Φ(W_eff/τ_eff) = %.3f s, published %v", c.name, got, c.want)
	}
}

func TestRequiredStandingDelay(t *testing.T) {
	for _, c := range []timeCase{
		// "With the default window the prediction is 89.6 seconds."
		{"τ 90 s, W 300 s", 90, 300, 89.6, 0.05},
		// "the corrected curve predicts 52.6" (τ 60 s under a 120-s window).
		{"τ 60 s, W 120 s", 60, 120, 52.6, 0.05},
		// No window: sampling alone is a window of 0.1 effective dead times,
		// "about 11.9 seconds".
		{"τ 90 s, no window", 90, 0, 11.9, 0.05},
	} {
		c.run(t)
	}
	// The uncorrected default reads 0.916 off the curve (w = 3.33).
	if got := phi.Phi(300.0 / 90); math.Abs(got-0.916) > 0.0005 {
		t.Errorf("Φ(300/90) = %.4f, published 0.916", got)
	}
}

// The kit's deployed runs (τ 90 s, c = 10/s) against the law: F1 60 s hunts
// and 150 s rests under the default window; F2 60 s rests under a 60-s
// window; F3 the Kafka default (1 s) hunts with or without a window; the
// opening's 40 s rests without a window.
func TestRestsAtKitRuns(t *testing.T) {
	for _, c := range []struct {
		name                    string
		delay, deadTime, window float64
		want                    bool
	}{
		{"F1 D 60 s, W 300 s", 60, 90, 300, false},
		{"F1 D 150 s, W 300 s", 150, 90, 300, true},
		{"F2 D 60 s, W 60 s", 60, 90, 60, true},
		{"F3 D 1 s, W 300 s", 1, 90, 300, false},
		{"F3 D 1 s, no window", 1, 90, 0, false},
		{"opening D 40 s, no window", 40, 90, 0, true},
		{"opening D 40 s, W 300 s", 40, 90, 300, false},
	} {
		if got := RestsAt(c.delay, c.deadTime, c.window); got != c.want {
			t.Errorf("%s: rests = %v, want %v (required %.1f s)", c.name, got, c.want, RequiredStandingDelay(c.deadTime, c.window))
		}
	}
}

// Corollary 3's worked design: τ 60 s under a 120-s window. A one-minute
// promise holds with 14 % over the law; thirty seconds does not, nor with
// a one-minute window (law 40.1 s, deployed 41.1 s).
func TestLatencyFloor(t *testing.T) {
	if got := LatencyFloor(60, 120); got != RequiredStandingDelay(60, 120) {
		t.Errorf("latency floor %v differs from the required delay", got)
	}
	if margin := 60/LatencyFloor(60, 120) - 1; math.Abs(margin-0.14) > 0.005 {
		t.Errorf("margin of a 60-s promise = %.3f, published 14 %%", margin)
	}
	for _, c := range []struct {
		latency, window float64
		want            bool
	}{
		{60, 120, true},
		{30, 120, false},
		{30, 60, false},
	} {
		if got := MeetsLatencyFloor(c.latency, 60, c.window); got != c.want {
			t.Errorf("latency %v s, W %v s: meets = %v, want %v", c.latency, c.window, got, c.want)
		}
	}
	// Proposition 5: e·τ_eff rests under any window.
	for _, w := range []float64{0, 300, 3600, 1e6, 1e12} {
		if !MeetsLatencyFloor(WindowProofDelay(90), 90, w) {
			t.Errorf("e·τ_eff does not meet the floor at W = %g", w)
		}
	}
}

func TestThresholdToRest(t *testing.T) {
	for _, c := range []struct {
		rate, deadTime, window, margin float64
	}{
		{10, 90, 300, DefaultRestMargin},
		{10, 90, 300, 0},
		{0.1, 90, 300, DefaultRestMargin},
		{1000, 60, 120, DefaultRestMargin},
		{10, 90, 0, DefaultRestMargin},
	} {
		got := ThresholdToRest(c.rate, c.deadTime, c.window, c.margin)
		need := RequiredStandingDelay(c.deadTime, c.window) * (1 + c.margin)
		if got != math.Trunc(got) || !(got/c.rate >= need) || !((got-1)/c.rate < need) {
			t.Errorf("ThresholdToRest(%v/s, τ %v, W %v, %v) = %v: not the smallest whole T with T/c ≥ %.3f s",
				c.rate, c.deadTime, c.window, c.margin, got, need)
		}
	}
	// The kit: 10 msg/s pods, τ 90 s, default window: 89.6 s × 1.15 ≈ 103 s
	// of work per pod, 1,031 messages, against KEDA's default of 10.
	if got := ThresholdToRest(10, 90, 300, DefaultRestMargin); got != 1031 {
		t.Errorf("kit threshold = %v, want 1031", got)
	}
	for _, bad := range [][2]float64{{0, 0.15}, {-1, 0.15}, {10, -0.1}, {math.NaN(), 0.15}, {10, math.Inf(1)}} {
		if got := ThresholdToRest(bad[0], 90, 300, bad[1]); !math.IsNaN(got) {
			t.Errorf("ThresholdToRest(rate %v, margin %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
}

func TestWindowToRest(t *testing.T) {
	// F2: at D 60 s and τ 90 s a one-minute window rests and the default
	// five minutes hunts, so the longest window lies in between.
	w, ok := WindowToRest(60, 90)
	if !ok || !(w >= 60 && w < 300) {
		t.Fatalf("WindowToRest(60, 90) = %v, %v; want a window in [60, 300)", w, ok)
	}
	if !RestsAt(60, 90, w) || RestsAt(60, 90, w+1) {
		t.Errorf("W = %v s is not the longest resting window (required %.3f at W, %.3f at W+1)",
			w, RequiredStandingDelay(90, w), RequiredStandingDelay(90, w+1))
	}
	// F3: one second of standing delay hunts even with no window at all.
	if w, ok := WindowToRest(1, 90); ok {
		t.Errorf("WindowToRest(1, 90) = %v, true; want none", w)
	}
	// Proposition 5: at e·τ_eff no window can make it hunt.
	if w, ok := WindowToRest(WindowProofDelay(90), 90); !ok || !math.IsInf(w, 1) {
		t.Errorf("WindowToRest(e·τ_eff) = %v, %v; want +Inf", w, ok)
	}
	// Just below e·τ_eff the window is finite and, Φ creeping towards e
	// logarithmically, enormous.
	if w, ok := WindowToRest(0.95*WindowProofDelay(90), 90); !ok || math.IsInf(w, 1) || w < 1e6 {
		t.Errorf("WindowToRest(0.95·e·τ_eff) = %v, %v; want a finite, very long window", w, ok)
	}
	// Exactly at the no-window requirement, W = 0 is the answer.
	if w, ok := WindowToRest(RequiredStandingDelay(90, 0), 90); !ok || w != 0 {
		t.Errorf("WindowToRest(required at W=0) = %v, %v; want 0, true", w, ok)
	}
}

func TestDeadTimeToRest(t *testing.T) {
	// Corollary 3's design: 52.6 s is the law at τ 60 s, W 120 s, so a
	// standing delay of 60 s under that window rests up to a longer dead
	// time, and thirty seconds needs a shorter one.
	for _, c := range []struct {
		delay, window float64
		lo, hi        float64 // the answer's range
	}{
		{60, 120, 60, 90},
		{30, 120, 0, 60},
		{89.6, 300, 85, 95}, // the default's 89.6 s ↔ τ ≈ 90 s
	} {
		tau, ok := DeadTimeToRest(c.delay, c.window)
		if !ok || !(tau >= c.lo && tau < c.hi) {
			t.Errorf("DeadTimeToRest(%v, %v) = %v, %v; want in [%v, %v)", c.delay, c.window, tau, ok, c.lo, c.hi)
			continue
		}
		if !RestsAt(c.delay, tau, c.window) || RestsAt(c.delay, tau+1, c.window) {
			t.Errorf("τ = %v s is not the longest resting dead time for D %v, W %v", tau, c.delay, c.window)
		}
	}
	// Even a zero dead time needs 10·Φ((W+10)/10) seconds: 1 s fails under
	// the default window.
	if tau, ok := DeadTimeToRest(1, 300); ok {
		t.Errorf("DeadTimeToRest(1, 300) = %v, true; want none", tau)
	}
}

// The dead-time remedy bisects on τ_eff·Φ(W_eff/τ_eff), which must rise
// with τ: Φ's log-slope stays below 1 along the whole curve.
func TestRequiredRisesWithDeadTime(t *testing.T) {
	for _, w := range []float64{0, 60, 300, 3600} {
		prev := 0.0
		for tau := 0.0; tau <= 1e7; tau = tau*1.05 + 1 {
			got := RequiredStandingDelay(tau, w)
			if !(got > prev) {
				t.Fatalf("W %v: required %v at τ %v not above %v", w, got, tau, prev)
			}
			prev = got
		}
	}
}
