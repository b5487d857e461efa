package main

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// parseMultiple reads an overload or step such as "10x", "10×" or "10".
func parseMultiple(flag, s string) (float64, error) {
	v := strings.TrimSpace(s)
	v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, "x"), "X"), "×")
	k, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(k) || math.IsInf(k, 0) {
		return 0, flagErrorf(flag, "%q is not a multiple, expected e.g. 10x", s)
	}
	if k <= 1 {
		return 0, flagErrorf(flag, "%q must be above 1x (an upward step)", s)
	}
	return k, nil
}

// parseSeconds reads a duration such as "90s" or "5m" as whole seconds.
func parseSeconds(flag, s string, allowZero bool) (int64, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, flagErrorf(flag, "%q is not a duration, expected e.g. 90s or 5m", s)
	}
	if d < 0 || (d == 0 && !allowZero) {
		return 0, flagErrorf(flag, "%q must be positive", s)
	}
	if d%time.Second != 0 {
		return 0, flagErrorf(flag, "%q must be whole seconds (the simulation clock ticks in seconds)", s)
	}
	return int64(d / time.Second), nil
}

// parseCPU reads a Kubernetes CPU quantity such as "1" or "250m" in milli-cores.
func parseCPU(flag, s string) (int64, error) {
	q, err := resource.ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return 0, flagErrorf(flag, "%q is not a CPU quantity, expected e.g. 1 or 250m", s)
	}
	m := q.MilliValue()
	if m <= 0 {
		return 0, flagErrorf(flag, "%q must be positive", s)
	}
	return m, nil
}

// positive checks a rate or count flag.
func positive(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return flagErrorf(flag, "%v must be positive", v)
	}
	return nil
}

func checkFormat(format string, allowed ...string) error {
	return checkValue("format", format, allowed...)
}

// checkValue refuses a flag value outside its allowed set, naming both.
func checkValue(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return flagErrorf(flag, "%q is not one of %s", value, strings.Join(allowed, ", "))
}
