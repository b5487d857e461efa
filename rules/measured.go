package rules

import (
	"time"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
)

// withMeasured adds the measured records of as to the flattened map m.
func withMeasured(m map[string]contract.Assumption, as analyze.Assumptions) map[string]contract.Assumption {
	for key, rec := range map[string]*config.Measurement{
		"deadTime": as.DeadTime.Measured, "podRate": as.PodRate.Measured,
		"demand": as.Demand.Measured, "overload": as.Overload.Measured,
	} {
		a, ok := m[key]
		if rec == nil || !ok {
			continue
		}
		a.Measured = MeasuredOf(rec)
		m[key] = a
	}
	return m
}

// MeasuredOf is calibrate's record as the contracts write it (the report's
// assumptions, list's inventory): the time in UTC, RFC 3339; nil for nil.
func MeasuredOf(rec *config.Measurement) *contract.Measured {
	if rec == nil {
		return nil
	}
	return &contract.Measured{Query: rec.Query, Window: rec.Window, Quantile: rec.Quantile,
		Samples: rec.Samples, At: rec.At.UTC().Format(time.RFC3339)}
}
