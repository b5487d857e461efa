package cmdutil

import (
	"math"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// ParseMultiple reads an overload or step such as "10x", "10×" or "10".
func ParseMultiple(flag, s string) (float64, error) {
	v := strings.TrimSpace(s)
	v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, "x"), "X"), "×")
	k, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(k) || math.IsInf(k, 0) {
		return 0, FlagErrorf(flag, "%q is not a multiple, expected e.g. 10x", s)
	}
	if k <= 1 {
		return 0, FlagErrorf(flag, "%q must be above 1x (an upward step)", s)
	}
	return k, nil
}

// ParseSeconds reads a duration such as "90s" or "5m" as whole seconds.
func ParseSeconds(flag, s string, allowZero bool) (int64, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, FlagErrorf(flag, "%q is not a duration, expected e.g. 90s or 5m", s)
	}
	if d < 0 || (d == 0 && !allowZero) {
		return 0, FlagErrorf(flag, "%q must be positive", s)
	}
	if d%time.Second != 0 {
		return 0, FlagErrorf(flag, "%q must be whole seconds (the simulation clock ticks in seconds)", s)
	}
	return int64(d / time.Second), nil
}

// ParseCPU reads a Kubernetes CPU quantity such as "1" or "250m" in milli-cores.
func ParseCPU(flag, s string) (int64, error) {
	q, err := resource.ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return 0, FlagErrorf(flag, "%q is not a CPU quantity, expected e.g. 1 or 250m", s)
	}
	m := q.MilliValue()
	if m <= 0 {
		return 0, FlagErrorf(flag, "%q must be positive", s)
	}
	return m, nil
}

// Positive checks a rate or count flag.
func Positive(flag string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return FlagErrorf(flag, "%v must be positive", v)
	}
	return nil
}

// CheckFormat checks --format against the formats a command writes.
func CheckFormat(format string, allowed ...string) error {
	return CheckValue("format", format, allowed...)
}

// CheckValue refuses a flag value outside its allowed set, naming both.
func CheckValue(flag, value string, allowed ...string) error {
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return FlagErrorf(flag, "%q is not one of %s", value, strings.Join(allowed, ", "))
}
