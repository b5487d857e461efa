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

// RoundsBound is Proposition 2 with its whole-pod rounding: a controller
// that orders at most ⌈g·N⌉ < g·N + 1 pods per round grows N + δ by at most
// g per round, δ = 1/(g−1), so
//
//	R = ⌈log_g((N* + δ)/(N0 + δ))⌉,  N* = k·N0·u*·r/ℓ.
//
// It is never larger than the essay's continuous form ⌈log_g(k·u*·r/ℓ)⌉
// (whole-pod rounding neglected; the tests keep it as their oracle) and is
// the valid bound for few pods: the specimen (N0 = 10, g = 2) needs 1 round
// at 3× up to 8 at 300×, as the continuous form says too; at an 80 % target
// and N0 = 10 a 30× step needs at least 13, not the continuous 15.
//
// ok is false when the loop can never get there: g ≤ 1 (the saturated
// reading is at or below the target, so nothing is ever ordered). A load
// the current pods can carry at their limit (N* ≤ N0) needs 0 rounds. This
// is a lower bound; Corollary 1's dead band (see DeadBand) can stop the
// controller even when g > 1. n0 < 1 counts as one pod.
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
