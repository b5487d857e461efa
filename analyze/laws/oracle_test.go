package laws

import (
	"math"

	"github.com/capreport/capreport/analyze/phi"
)

// The essay's statements that the ledger never prints but the tests hold
// its laws to: the continuous rounds beside RoundsBound and HottestTarget,
// and the resting predicates beside the remedies.

// Rounds is Proposition 2 in its continuous form, R(k) = ⌈log_g(k·u*·r/ℓ)⌉:
// the fewest rounds before capacity meets a k-fold step, with whole-pod
// rounding neglected (the limit of many starting pods). It is the form of
// the essay's ledger figures: 4 rounds for 30× at a 50 % target, 15 at 80 %.
//
// ok is false when the loop can never get there: g ≤ 1 (the saturated
// reading is at or below the target, so nothing is ever ordered). A load
// the current pods can carry at their limit (k·u*·r/ℓ ≤ 1) needs 0 rounds.
// This is a lower bound; Corollary 1's dead band (see DeadBand) can stop the
// controller even when g > 1.
func Rounds(k, limit, request, target float64) (rounds int, ok bool) {
	g := GrowthFactor(limit, request, target)
	need := k * target * request / limit // N*/N0
	switch {
	case math.IsNaN(g) || math.IsNaN(need):
		return 0, false
	case need <= 1:
		return 0, true
	case !(g > 1):
		return 0, false
	}
	return ceilLog(need, g), true
}

// RestsAt reports Proposition 4 for the deployed loop: a standing delay D
// rests iff D ≥ τ_eff·Φ(W_eff/τ_eff).
func RestsAt(standingDelay, deadTime, window float64) bool {
	return standingDelay >= RequiredStandingDelay(deadTime, window)
}

// MeetsLatencyFloor reports whether a latency target (seconds) can be held
// at rest: latency ≥ LatencyFloor(deadTime, window).
func MeetsLatencyFloor(latency, deadTime, window float64) bool {
	return latency >= LatencyFloor(deadTime, window)
}

// WindowProofDelay is Proposition 5 for the deployed loop: a standing delay
// of e·τ_eff seconds rests whatever the window.
func WindowProofDelay(deadTime float64) float64 {
	return phi.Ceiling * EffectiveDeadTime(deadTime)
}
