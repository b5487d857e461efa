package phi

// The definition of Φ at the pinned numerics, as the tests re-derive it:
// gen tabulates with BisectWith and Phi reads the table, so nothing else
// calls these shorthands.

// Bisect returns Φ(w) = 1/a*(w) computed from scratch by integration and
// bisection (about a second). Φ(0) = 0 exactly: with no window the loop
// rests at every standing delay (Proposition 5b).
func Bisect(w float64) float64 {
	return BisectWith(w, DefaultOptions())
}

// Rests reports whether the idealized loop with gain a (= τ/D) and window w
// (dead times) rests after an upward step, with the pinned numerics.
func Rests(a, w float64) bool {
	return Integrate(a, w, DefaultOptions()).Rests
}
