package laws

import (
	"math"

	"github.com/capreport/capreport/analyze/phi"
)

// SamplingDelay is the deployed loop's correction, in seconds: a change in
// the backlog reaches a decision up to one sync later and a decision the
// scale target at the next, so the law is applied to τ + 10 s and W + 10 s.
// It is one value for every dead time and window, as in the essay (not
// fitted pair by pair).
const SamplingDelay = 10.0

// DefaultRestMargin is the margin ThresholdToRest puts over the law: the
// deployed boundaries sit within 6 % of the corrected curve on average and
// 14 % at worst, always on the low side of it for the large misses, so 15 %
// over the law clears every boundary the essay measured.
const DefaultRestMargin = 0.15

// StandingDelay is Definition 4, D = T/c: the seconds every message waits at
// rest with a threshold of T messages per pod and pods of rate c per second
// (Little's law). A zero rate gives +Inf.
func StandingDelay(threshold, rate float64) float64 {
	return threshold / rate
}

// EffectiveDeadTime is τ_eff = τ + SamplingDelay.
func EffectiveDeadTime(deadTime float64) float64 { return deadTime + SamplingDelay }

// EffectiveWindow is W_eff = W + SamplingDelay.
func EffectiveWindow(window float64) float64 { return window + SamplingDelay }

// RequiredStandingDelay is Proposition 4 with the deployed correction, the
// ledger's number: τ_eff·Φ(W_eff/τ_eff) seconds. At τ = 90 s and the default
// 300-s window it is 89.6 s; at τ = 60 s under a 120-s window, 52.6 s. It
// uses the tabulated Φ (sub-microsecond), never a bisection.
func RequiredStandingDelay(deadTime, window float64) float64 {
	te := EffectiveDeadTime(deadTime)
	return te * phi.Phi(EffectiveWindow(window)/te)
}

// LatencyFloor is Corollary 3: a threshold sized from an acceptable latency
// (acceptable latency over time per message) sets D to that latency, so the
// loop rests only if the latency is at least this many seconds, the same
// quantity as RequiredStandingDelay.
func LatencyFloor(deadTime, window float64) float64 {
	return RequiredStandingDelay(deadTime, window)
}

// ThresholdToRest is the threshold remedy: the smallest whole number of
// messages per pod T with T/c ≥ required·(1 + margin), for pods of rate c
// messages per second; margin 0 gives the bare law, DefaultRestMargin the
// ledger's remedy. Returns NaN unless the rate is positive and finite and
// the margin finite and non-negative (a pod that consumes nothing has no
// threshold at which it rests).
func ThresholdToRest(rate, deadTime, window, margin float64) float64 {
	if !(rate > 0) || math.IsInf(rate, 0) || !(margin >= 0) || math.IsInf(margin, 0) {
		return math.NaN()
	}
	need := RequiredStandingDelay(deadTime, window) * (1 + margin) * rate
	// ceilEps: a product that is a whole number up to rounding is that
	// number, not the next one.
	return math.Ceil(need - ceilEps*math.Max(1, need))
}

// WindowToRest is the window remedy: the longest downscale window W (whole
// seconds, ≥ 0) at which a loop of standing delay D and dead time τ rests,
// τ_eff·Φ((W+10)/τ_eff) ≤ D. ok is false if even W = 0 hunts (the sampling
// delay alone is window enough); W is +Inf if D ≥ e·τ_eff (Proposition 5:
// no window can make it hunt), and may be astronomically large just below.
func WindowToRest(standingDelay, deadTime float64) (window float64, ok bool) {
	te := EffectiveDeadTime(deadTime)
	if !(te > 0) || math.IsNaN(standingDelay) {
		return 0, false
	}
	if standingDelay >= phi.Ceiling*te {
		return math.Inf(1), true
	}
	// Φ rises to e only logarithmically: the answer can be very large.
	return longestResting(func(w float64) bool { return te*phi.Phi(EffectiveWindow(w)/te) <= standingDelay })
}

// DeadTimeToRest is the dead-time remedy: the longest dead time τ (whole
// seconds, ≥ 0) at which a loop of standing delay D under window W rests,
// (τ+10)·Φ((W+10)/(τ+10)) ≤ D. That quantity rises with τ because Φ grows
// slower than w (its log-slope stays below 1, about 0.8 at short windows),
// so the search is a bisection. ok is false if even τ = 0 hunts.
func DeadTimeToRest(standingDelay, window float64) (deadTime float64, ok bool) {
	if math.IsNaN(standingDelay) || !(window >= 0) {
		return 0, false
	}
	return longestResting(func(tau float64) bool { return RequiredStandingDelay(tau, window) <= standingDelay })
}

// longestResting returns the largest whole x ≥ 0 at which the monotone rests
// holds: false if it fails at 0, +Inf if it never fails. It searches on a
// doubling scale, then bisects between the last x that rests and the first
// that does not.
func longestResting(rests func(float64) bool) (float64, bool) {
	if !rests(0) {
		return 0, false
	}
	lo, hi := 0.0, 1.0
	for rests(hi) {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return math.Inf(1), true
		}
	}
	return longestWhole(lo, hi, rests), true
}

// longestWhole returns the largest whole x in [lo, hi) with ok(x), given a
// monotone ok that holds at lo (a whole number) and fails at hi.
func longestWhole(lo, hi float64, ok func(float64) bool) float64 {
	for hi-lo > 1 {
		mid := math.Floor((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break // no whole number strictly between at this magnitude
		}
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
