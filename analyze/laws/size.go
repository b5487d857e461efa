package laws

import "math"

// ceilEps absorbs float noise in a logarithm that is mathematically a whole
// number: log_2(4) may come out as 2.0000000000000004, and a ceiling would
// then add a round that the law does not.
const ceilEps = 1e-9

// GrowthFactor is g = ℓ/(r·u*): the most a saturated utilization metric can
// multiply the ready pods by in one round (ordered pods count at zero).
func GrowthFactor(limit, request, target float64) float64 {
	return limit / (request * target)
}

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

// RoundsBound is Proposition 2 with its whole-pod rounding: a controller
// that orders at most ⌈g·N⌉ < g·N + 1 pods per round grows N + δ by at most
// g per round, δ = 1/(g−1), so
//
//	R = ⌈log_g((N* + δ)/(N0 + δ))⌉,  N* = k·N0·u*·r/ℓ.
//
// It is never larger than Rounds and is the valid bound for few pods: the
// specimen (N0 = 10, g = 2) needs 1 round at 3× up to 8 at 300×, as Rounds
// says too; at an 80 % target and N0 = 10 a 30× step needs at least 13, not
// the continuous 15. ok and the 0-round case as for Rounds; n0 < 1 counts
// as one pod.
func RoundsBound(k, limit, request, target float64, n0 int) (rounds int, ok bool) {
	g := GrowthFactor(limit, request, target)
	start := float64(max(n0, 1))
	need := k * start * target * request / limit // N*
	switch {
	case math.IsNaN(g) || math.IsNaN(need):
		return 0, false
	case need <= start:
		return 0, true
	case !(g > 1):
		return 0, false
	}
	delta := 1 / (g - 1)
	return ceilLog((need+delta)/(start+delta), g), true
}

// ceilLog is ⌈log_g x⌉ for x > 1, g > 1.
func ceilLog(x, g float64) int {
	return int(math.Ceil(math.Log(x)/math.Log(g) - ceilEps))
}

// DeadBand is Corollary 1 in the controller's own arithmetic: with every
// ready pod saturated at its limit, utilization is the whole percent
// ⌊100·ℓ/r⌋ (int64 milli-units, truncating division, as upstream), the
// ratio is that over the target percent in float64, and v1.34's isWithin
// holds the count while ratio ≤ 1 + tolerance. True means a saturated
// metric never orders a pod, however large the overload: at ℓ = r and the
// default 0.1, every target of 91 % or above. (Below 1 − tolerance, g < 1,
// the loop would even scale down; that is a dead band for scale-up too.)
func DeadBand(limitMilli, requestMilli int64, targetPercent int32, tolerance float64) bool {
	if requestMilli <= 0 || targetPercent <= 0 {
		return false
	}
	util := int32(limitMilli * 100 / requestMilli)
	ratio := float64(util) / float64(targetPercent)
	return ratio <= 1+tolerance
}

// HottestTarget is Corollary 2: to meet a k-fold step within R rounds the
// target must satisfy u* ≤ (ℓ/r)·k^(−1/(R+1)). It returns the hottest whole
// percent that does (0 if none, or for k ≤ 0 or R < 0). The condition is
// necessary, not sufficient: the dead band, the tolerance band and the
// whole-percent truncation can still cost a round at that target.
// Essay points: 93 % for 3× in 15 rounds, 63 % for 10× in 4, 10 % for 100×
// in 1.
func HottestTarget(k float64, rounds int, limit, request float64) int32 {
	if !(k > 0) || rounds < 0 || !(limit > 0) || !(request > 0) {
		return 0
	}
	bound := limit / request * math.Pow(k, -1/float64(rounds+1))
	// ceilEps: 100^(−1/2) is 0.1 only up to rounding, and 10 % is the answer.
	p := math.Floor(100*bound + ceilEps)
	if p > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(p)
}

// RoundLength is Definition 2: a round is the dead time plus one metric
// window (the CPU sample's window, 30 s in the model), in seconds; the
// controller's sync alignment adds up to one sync period to each round.
func RoundLength(deadTime, metricWindow float64) float64 {
	return deadTime + metricWindow
}

// TimeToCapacity is rounds × round length: the ledger's seconds beside the
// round count, without the alignment (a lower bound, like the rounds).
func TimeToCapacity(rounds int, deadTime, metricWindow float64) float64 {
	return float64(rounds) * RoundLength(deadTime, metricWindow)
}
