package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The value parsers below are shared by .capreport.yaml and the
// capreport.io/ annotations, so that a value means the same thing wherever it
// is written. Each returns an error whose text completes the sentence
// `<key>: "<value>" ...` and says what a valid value looks like.

// Signal is the kind of quantity an autoscaler's metric measures; it decides
// which row of the bill prices the autoscaler.
type Signal string

const (
	// SignalSaturating is a utilization that caps at 100 % of what a pod can
	// serve (CPU or memory Utilization/AverageValue): priced by the Size row.
	SignalSaturating Signal = "saturating"
	// SignalBacklog is a level of work waiting (queue length, lag): priced by
	// the Time row.
	SignalBacklog Signal = "backlog"
	// SignalRate is a flow per unit time (requests or messages per second).
	SignalRate Signal = "rate"
	// SignalUnknown is anything capreport cannot classify; it is unpriced
	// until the capreport.io/signal annotation says what it is.
	SignalUnknown Signal = "unknown"
)

// ParseSignal accepts the three signal names a user may assert.
func ParseSignal(s string) (Signal, error) {
	switch v := Signal(strings.ToLower(strings.TrimSpace(s))); v {
	case SignalSaturating, SignalBacklog, SignalRate:
		return v, nil
	}
	return "", fmt.Errorf("%q is not a signal, expected saturating, backlog or rate", s)
}

// ParseDuration accepts a Go duration ("90s", "1m30s", "500ms") or a bare
// number of seconds ("90"), and requires it to be positive: every duration
// capreport reads (dead time, windows, targets) is meaningless at zero.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if f, err := parseFinite(t); err == nil {
		if f <= 0 || f > 1e9 {
			return 0, fmt.Errorf("%q is not a positive duration, expected e.g. 90s", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration, expected e.g. 90s", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration, expected e.g. 90s", s)
	}
	return d, nil
}

// ParseRate accepts a positive number per second, optionally written with a
// "/s" suffix ("100", "100/s", "2.5").
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "/sec")
	f, err := parseFinite(t)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q is not a positive rate per second, expected e.g. 100 or 100/s", s)
	}
	return f, nil
}

// ParseFactor accepts a multiple written "4x" or "4"; it must exceed 1,
// because a step or overload of at most 1x asks nothing of the autoscaler.
func ParseFactor(s string) (float64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "x"), "X")
	f, err := parseFinite(strings.TrimSpace(t))
	if err != nil || f <= 1 {
		return 0, fmt.Errorf("%q is not a factor above 1, expected e.g. 4x", s)
	}
	return f, nil
}

// ParseFactors accepts one factor or a comma-separated list ("3x,10x,30x"),
// returned in the order written.
func ParseFactors(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		f, err := ParseFactor(p)
		if err != nil {
			return nil, fmt.Errorf("%q is not a list of factors above 1, expected e.g. 3x,10x,30x", s)
		}
		out = append(out, f)
	}
	return out, nil
}

// ParseFraction accepts a number in (0, 1], or a percentage ("80%").
func ParseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSuffix(t, "%"), 100
	}
	f, err := parseFinite(t)
	if err != nil || f/scale <= 0 || f/scale > 1 {
		return 0, fmt.Errorf("%q is not a fraction in (0, 1], expected e.g. 0.8", s)
	}
	return f / scale, nil
}

// ParseTolerance accepts a fraction in [0, 1): the controller's tolerance
// band may be zero.
func ParseTolerance(s string) (float64, error) {
	f, err := parseFinite(strings.TrimSpace(s))
	if err != nil || f < 0 || f >= 1 {
		return 0, fmt.Errorf("%q is not a tolerance in [0, 1), expected e.g. 0.1", s)
	}
	return f, nil
}

// ParseKubeVersion accepts "1.34", "1.34.0" or "v1.34.0" and returns the
// three-part form without the "v".
func ParseKubeVersion(s string) (string, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return "", fmt.Errorf("%q is not a Kubernetes version, expected e.g. 1.34.0", s)
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err != nil || n < 0 {
			return "", fmt.Errorf("%q is not a Kubernetes version, expected e.g. 1.34.0", s)
		}
	}
	if len(parts) == 2 {
		parts = append(parts, "0")
	}
	return strings.Join(parts, "."), nil
}

func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("not finite")
	}
	return f, nil
}
