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
		a.Measured = &contract.Measured{Query: rec.Query, Window: rec.Window, Quantile: rec.Quantile,
			Samples: rec.Samples, At: rec.At.UTC().Format(time.RFC3339)}
		m[key] = a
	}
	return m
}
