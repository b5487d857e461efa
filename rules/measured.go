package rules

import (
	"time"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
)

// Summary is the measurement in a few words, as list and explain show it:
// "measured p90 over 7d, 312 pods, 2026-12-01"; "" when m is nil.
func (m *Measured) Summary(key string) string {
	if m == nil {
		return ""
	}
	at, _ := time.Parse(time.RFC3339, m.At)
	c := config.Measurement{Window: m.Window, Quantile: m.Quantile, Samples: m.Samples, At: at}
	return c.Summary(config.SampleUnit(config.Key(key)))
}

// withMeasured adds the measured records of as to the flattened map m.
func withMeasured(m map[string]Assumption, as analyze.Assumptions) map[string]Assumption {
	for key, rec := range map[string]*config.Measurement{
		"deadTime": as.DeadTime.Measured, "podRate": as.PodRate.Measured,
		"demand": as.Demand.Measured, "overload": as.Overload.Measured,
	} {
		a, ok := m[key]
		if rec == nil || !ok {
			continue
		}
		a.Measured = &Measured{Query: rec.Query, Window: rec.Window, Quantile: rec.Quantile,
			Samples: rec.Samples, At: rec.At.UTC().Format(time.RFC3339)}
		m[key] = a
	}
	return m
}
