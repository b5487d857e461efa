package rules

import (
	"math"

	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/contract"
)

// The windows the Φ plot spans, in dead times, and how finely it samples
// them; the long-window form is quoted from the default window up.
const (
	phiCurveWMin      = 0.05
	phiCurveWMax      = 1000.0
	phiCurveSamples   = 160
	phiLongWindowFrom = 3.33
)

// PhiCurve samples Φ for the Φ plot of a Time bill: phiCurveSamples
// windows spaced evenly on a log axis over [0.05, 1000] dead times,
// widened to keep the workload's own window well inside, each with the
// closed forms where they are quoted. The plot draws these points and
// computes nothing, so a saved report redraws its own figure.
func PhiCurve(tb *contract.TimeBill) []contract.PhiPoint {
	xmin, xmax := phiCurveWMin, phiCurveWMax
	if x := tb.WindowInDeadTimes; tb.Phi > 0 && tb.RequiredStandingDelaySeconds > 0 && x > 0 {
		xmin, xmax = math.Min(xmin, x/1.5), math.Max(xmax, x*1.5)
	}
	curve := make([]contract.PhiPoint, phiCurveSamples)
	for i := range curve {
		w := xmin * math.Pow(xmax/xmin, float64(i)/float64(phiCurveSamples-1))
		p := contract.PhiPoint{W: w, Phi: phi.Phi(w)}
		if v, ok := phi.PhiHarmonicBalance(w); ok {
			p.HarmonicBalance = &v
		}
		if w >= phiLongWindowFrom {
			v := phi.PhiAsymptotic(w)
			p.LongWindow = &v
		}
		curve[i] = p
	}
	return curve
}
