package phi

import "math"

// Bisection bracket on the gain a = τ/D (model.md). At a = 1/e the loop
// rests at every window (Proposition 5), so the lower end always rests.
const (
	GainLow  = 1 / math.E
	GainHigh = 20.0
)

// CriticalGain returns a*(w), the gain at which the idealized loop with
// window w (dead times) stops resting, by bisection on a over
// [GainLow, GainHigh] with the pinned numerics. If the loop still rests at
// GainHigh the answer is GainHigh (Φ would be at most 1/20); w = 0 rests at
// every gain (Proposition 5b) and returns +Inf.
//
// One call integrates the loop about 25 times: about a second of CPU at
// the default horizon. Never call it per workload; use Phi.
func CriticalGain(w float64, opts Options) float64 {
	if w == 0 {
		return math.Inf(1)
	}
	lo, hi := GainLow, GainHigh
	if Integrate(hi, w, opts).Rests {
		return hi
	}
	// Bisect in log a: the bracket spans a factor of 54 and the answer is
	// wanted to a relative precision, so halving the ratio is the even split.
	for hi/lo > 1+1e-6 {
		mid := math.Sqrt(lo * hi)
		if Integrate(mid, w, opts).Rests {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// BisectWith returns Φ(w) = 1/a*(w) computed from scratch by integration
// and bisection with the numerics opts (about a second at the defaults).
// Φ(0) = 0 exactly: with no window the loop rests at every standing delay
// (Proposition 5b).
func BisectWith(w float64, opts Options) float64 {
	if math.IsNaN(w) || w < 0 {
		return math.NaN()
	}
	return 1 / CriticalGain(w, opts)
}
