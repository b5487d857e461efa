package sim

import (
	"fmt"
	"math"
)

// ceilPods is ⌈demand / perPod⌉ as a replica count. The controller holds
// replicas in an int32; a demand that needs more pods than that is an
// error naming it, never a wrapped-around count.
func ceilPods(demand, perPod float64) (int32, error) {
	n := math.Ceil(demand/perPod - 1e-9)
	if math.IsNaN(n) || n > math.MaxInt32 {
		return 0, fmt.Errorf("a demand of %g/s at %g/s per pod needs more than %d pods, the most a replica count holds; lower the demand, step or overload", demand, perPod, math.MaxInt32)
	}
	return int32(max(n, 0)), nil
}

// milliOf is v in thousandths, saturating at the int64 bounds as a
// resource.Quantity's MilliValue does instead of wrapping around.
func milliOf(v float64) int64 {
	m := v * 1000
	switch {
	case math.IsNaN(m):
		return 0
	case m >= math.MaxInt64:
		return math.MaxInt64
	case m <= math.MinInt64:
		return math.MinInt64
	}
	return int64(m)
}
