package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/capreport/capreport/internal/units"
)

// Measurement records how `capreport calibrate` measured a value it wrote
// into a workloads entry: the PromQL query, the window it looked back over,
// the quantile taken (0 when none), the number of samples and when. A value
// with a Measurement has provenance "measured" rather than "config".
//
//	workloads:
//	  - namespace: shop
//	    kind: Deployment
//	    name: api
//	    deadTime: 47s
//	    measured:
//	      deadTime: {query: "...", window: 7d, quantile: 0.9, samples: 312, at: 2026-12-01T10:00:00Z}
type Measurement struct {
	Query    string    `json:"query"`
	Window   string    `json:"window"`
	Quantile float64   `json:"quantile,omitempty"`
	Samples  int       `json:"samples"`
	At       time.Time `json:"at"`
	// Line is where the record starts in the configuration file.
	Line int `json:"-"`
}

// MeasuredKeys are the assumptions calibrate measures, in the order it
// writes them.
func MeasuredKeys() []Key { return []Key{KeyDeadTime, KeyPodRate, KeyDemand, KeyOverload} }

// Summary says in a few words how the value was measured, for the places
// that show a value's origin: "measured p90 over 7d, 312 pods, 2026-12-01".
// unit names what a sample is ("pods"; "samples" when empty).
func (m *Measurement) Summary(unit string) string {
	if m == nil {
		return ""
	}
	return units.Measurement(m.Quantile, m.Window, m.Samples, unit, m.At)
}

// SampleUnit is what one sample of a measured key is; k may be spelt as
// the annotation ("dead-time") or as in the file ("deadTime").
func SampleUnit(k Key) string { return units.SampleUnit(string(k)) }

// ParseWindow accepts a Prometheus-style look-back window: a Go duration
// or a whole number of days or weeks ("7d", "2w", "36h").
func ParseWindow(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(t, suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v <= 0 || v > 3650 {
				return 0, fmt.Errorf("%q is not a window, expected e.g. 7d or 36h", s)
			}
			return time.Duration(v) * unit, nil
		}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a window, expected e.g. 7d or 36h", s)
	}
	return d, nil
}

// FormatWindow writes d as ParseWindow reads it: whole days as "7d".
func FormatWindow(d time.Duration) string {
	day := 24 * time.Hour
	if d >= day && d%day == 0 {
		return strconv.FormatInt(int64(d/day), 10) + "d"
	}
	return shortDuration(d)
}

func (m *Measurement) setField(key, s string) error {
	switch key {
	case "query":
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("empty query")
		}
		m.Query = s
	case "window":
		if _, err := ParseWindow(s); err != nil {
			return err
		}
		m.Window = s
	case "quantile":
		q, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(q) || q <= 0 || q > 1 {
			return fmt.Errorf("%q is not a quantile in (0, 1], expected e.g. 0.9", s)
		}
		m.Quantile = q
	case "samples":
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive whole number of samples", s)
		}
		m.Samples = n
	case "at":
		t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not a time, expected RFC 3339 e.g. 2026-12-01T10:00:00Z", s)
		}
		m.At = t
	}
	return nil
}
