package calibrate

import (
	"math"
	"sort"
)

// Quantile returns the q-quantile of xs by linear interpolation between
// order statistics (the definition of numpy's default and Prometheus's
// quantile_over_time). xs is sorted in place; NaN when empty.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	h := q * float64(len(xs)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-lo)*(xs[i+1]-xs[i])
}

// Spread is the interquartile range over the median: how far from one
// number the samples are (0 when all agree; +Inf when the median is 0).
func Spread(xs []float64) float64 {
	med := Quantile(xs, 0.5)
	iqr := Quantile(xs, 0.75) - Quantile(xs, 0.25)
	if med == 0 {
		if iqr == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return iqr / math.Abs(med)
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
