package phi

import "math"

// Reference lines, in dead times of standing delay.
const (
	// Ceiling is Proposition 5 and 5b: Φ(w) < e for every window, and e is
	// the least upper bound. D ≥ e·τ rests whatever the window.
	Ceiling = math.E
	// PureDelayStable is Proposition 3 part 1: the pure-delay loop
	// x' = −a·x(t−τ) is stable iff D > (2/π)·τ.
	PureDelayStable = 2 / math.Pi
	// PureDelayNonOscillating is Proposition 3 part 2: its characteristic
	// equation has a real root (no oscillation) iff D ≥ e·τ.
	PureDelayNonOscillating = math.E
)

// Constants of the long-window form, fitted in the essay to the computed
// curve (within 0.46 % from w = 10 to 400).
const (
	asymC  = 30.6
	asymW0 = 0.07
)

// PhiHarmonicBalance is Proposition 5a, the describing-function
// approximation
//
//	Φ_hb(w) = ((1+cos α) + (π+α)·sin α) / (2π·α),  α = π/(1+w).
//
// Its derivation assumes the window is at least one dead time, so ok is
// false for w < 1 (and for NaN). It errs high: ≤ 3.3 % up to w = 3.33, then
// quickly worse (34 % at w = 10), and it is unbounded while Φ < e.
func PhiHarmonicBalance(w float64) (phi float64, ok bool) {
	if !(w >= 1) {
		return math.NaN(), false
	}
	if math.IsInf(w, 1) {
		return math.Inf(1), true
	}
	a := math.Pi / (1 + w)
	return ((1 + math.Cos(a)) + (math.Pi+a)*math.Sin(a)) / (2 * math.Pi * a), true
}

// PhiAsymptotic is the essay's long-window form
//
//	Φ(w) ≈ e / (1 + 30.6 / ln²(w/0.07)),
//
// low by at most 2.7 % from w = 3.33 up and within 0.46 % from 10 to 400.
// The form is zero at w = 0.07 and meaningless below, where ln² rises
// again; it returns 0 for w ≤ 0.07. It stays below e for every finite w.
func PhiAsymptotic(w float64) float64 {
	switch {
	case math.IsNaN(w) || w < 0:
		return math.NaN()
	case w <= asymW0:
		return 0
	case math.IsInf(w, 1):
		return Ceiling
	}
	l := math.Log(w / asymW0)
	return Ceiling / (1 + asymC/(l*l))
}
