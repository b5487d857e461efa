package phi

import (
	"math"
	"sort"
)

// Phi returns Φ(w) from the tabulated curve, in well under a microsecond.
//
//   - w = 0: 0 (Proposition 5b: with no window the loop rests at any delay).
//   - Inside the table: monotone cubic interpolation (Steffen's method) in
//     ln w, so the interpolant never overshoots the computed points and
//     stays increasing where they do.
//   - Below the first point: the pinned bisection bracket [1/e, 20] cannot
//     resolve Φ < 1/20, so the curve is extended to 0 as the power law
//     through the first two points (Φ ∝ w^p, p ≈ 0.8 there).
//   - Beyond the last point: the long-window form, matched to the last
//     point by keeping the gap to e proportional,
//     e − Φ(w) = (e − Φ_n)·(e − Φ_asym(w))/(e − Φ_asym(w_n)),
//     so it is continuous, increasing and strictly below e (Proposition 5).
//   - w = +Inf: e, the least upper bound. Negative or NaN w: NaN.
func Phi(w float64) float64 {
	n := len(tableW)
	switch {
	case math.IsNaN(w) || w < 0:
		return math.NaN()
	case w == 0:
		return 0
	case math.IsInf(w, 1):
		return Ceiling
	case w < tableW[0]:
		p := math.Log(tablePhi[1]/tablePhi[0]) / math.Log(tableW[1]/tableW[0])
		return tablePhi[0] * math.Pow(w/tableW[0], p)
	case w >= tableW[n-1]:
		last := tablePhi[n-1]
		gap := (Ceiling - PhiAsymptotic(w)) / (Ceiling - PhiAsymptotic(tableW[n-1]))
		return Ceiling - (Ceiling-last)*gap
	}
	// tableW[i] <= w < tableW[i+1]
	i := sort.SearchFloat64s(tableW[:], w)
	if i < n && tableW[i] == w {
		return tablePhi[i]
	}
	i--
	x0, x1 := math.Log(tableW[i]), math.Log(tableW[i+1])
	y0, y1 := tablePhi[i], tablePhi[i+1]
	h := x1 - x0
	d0, d1 := slope(i), slope(i+1)
	t := (math.Log(w) - x0) / h
	// Cubic Hermite basis on [0, 1].
	t2, t3 := t*t, t*t*t
	return (2*t3-3*t2+1)*y0 + (t3-2*t2+t)*h*d0 + (-2*t3+3*t2)*y1 + (t3-t2)*h*d1
}

// secant is the slope dΦ/d(ln w) of table interval i.
func secant(i int) float64 {
	return (tablePhi[i+1] - tablePhi[i]) / (math.Log(tableW[i+1]) - math.Log(tableW[i]))
}

// slope is Steffen's derivative at table point i: the parabola slope
// through the neighbours, limited to twice the smaller adjacent secant and
// zero at a local extremum, which is what makes the interpolant monotone.
// The end points take their one adjacent secant.
func slope(i int) float64 {
	n := len(tableW)
	if i == 0 {
		return secant(0)
	}
	if i == n-1 {
		return secant(n - 2)
	}
	sl, sr := secant(i-1), secant(i)
	hl := math.Log(tableW[i]) - math.Log(tableW[i-1])
	hr := math.Log(tableW[i+1]) - math.Log(tableW[i])
	p := (sl*hr + sr*hl) / (hl + hr)
	if sl*sr <= 0 {
		return 0
	}
	m := math.Min(math.Abs(sl), math.Abs(sr))
	m = math.Min(m, 0.5*math.Abs(p))
	return math.Copysign(2*m, sl)
}
