package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// Series names of the Φ figure.
const (
	phiCurve      = "phi"
	phiHB         = "harmonic balance"
	phiAsym       = "long-window form"
	phiRest       = "rest region"
	phiWorkload   = "workload"
	phiRequired   = "required"
	phiDefaultTop = 3.0
	// phiCeiling is Proposition 5 and 5b: Φ(w) < e for every window.
	phiCeiling = math.E
)

// buildPhi draws the bill's Φ samples (TimeBill.PhiCurve, over the windows
// they span) with the workload's point (W_eff/τ_eff, D/τ_eff), τ_eff
// recovered from the bill as RequiredStandingDelaySeconds / Phi.
func buildPhi(w contract.Workload) (*figure, error) {
	if w.Time == nil {
		return nil, fmt.Errorf("%w: the workload has no Time bill (signal %q)", ErrNoData, w.Signal)
	}
	tb := w.Time
	if len(tb.PhiCurve) < 2 {
		return nil, fmt.Errorf("%w: the Time bill carries no Φ curve (priced for an output without plots)", ErrNoData)
	}
	px, py, tauEff, hasPoint := phiPoint(tb)

	xmin, xmax := tb.PhiCurve[0].W, tb.PhiCurve[len(tb.PhiCurve)-1].W
	ytop := phiDefaultTop
	if hasPoint {
		ytop = math.Max(ytop, py*1.15)
		ytop = math.Max(ytop, tb.Phi*1.15)
	}

	p := newPanel(phiTitle(w, px, py, tauEff, hasPoint),
		"window W_eff / τ_eff (dead times, log scale)", "standing delay D / τ_eff (dead times)", newMeasuringText())

	curve := make(plotter.XYs, len(tb.PhiCurve))
	for i, c := range tb.PhiCurve {
		curve[i] = plotter.XY{X: c.W, Y: c.Phi}
	}
	if err := addPhiRest(p, curve, xmin, xmax, ytop); err != nil {
		return nil, err
	}
	l := p.line(phiCurve, curve, lineStyle(colBlack, 2.4, nil), plotter.NoStep)
	p.addLegend("Φ(w), computed (below it the loop hunts)", l)
	addPhiApproximations(p, tb.PhiCurve, ytop)

	ceil := hmark{Y: phiCeiling, Style: lineStyle(colGrey, 1.5, dashed)}
	p.plot.Add(ceil)
	p.addLegend("ceiling e ≈ 2.72 (Prop. 5: D ≥ e·τ rests at any window)", ceil)

	p.plot.Add(textMark{X: math.Sqrt(xmax * 30), Y: 0.45, Text: "loop hunts (D < τ_eff·Φ)", Color: colGrey})

	if hasPoint {
		addPhiWorkload(p, w, px, py)
	}

	p.logX(xmin, xmax)
	p.plot.Y.Min, p.plot.Y.Max = 0, ytop
	return &figure{panels: []*panel{p}, weights: []float64{1}, width: figWidth, height: figHeight}, nil
}

// addPhiRest shades where the loop rests: on or above the curve, up to
// ytop (Proposition 4). It goes first so every line draws over it.
func addPhiRest(p *panel, curve plotter.XYs, xmin, xmax, ytop float64) error {
	ring := append(plotter.XYs{}, curve...)
	ring = append(ring, plotter.XY{X: xmax, Y: ytop}, plotter.XY{X: xmin, Y: ytop})
	rest, err := plotter.NewPolygon(ring)
	if err != nil {
		return fmt.Errorf("rest region: %w", err)
	}
	rest.Color = tint(colGreen, 0x30)
	rest.LineStyle.Width = 0
	p.plot.Add(rest)
	p.series = append(p.series, series{name: phiRest, xys: ring})
	p.addLegend("loop rests: D ≥ τ_eff·Φ(W_eff/τ_eff) (Prop. 4)", fillThumb{Color: rest.Color})
	return nil
}

// addPhiApproximations draws the closed forms against the computed curve,
// each only where the bill quotes it: harmonic balance where it is defined
// (and until it leaves the chart), the long-window form from the default
// window up.
func addPhiApproximations(p *panel, curve []contract.PhiPoint, ytop float64) {
	var hb plotter.XYs
	for _, c := range curve {
		if c.HarmonicBalance == nil {
			continue
		}
		v := *c.HarmonicBalance
		hb = append(hb, plotter.XY{X: c.W, Y: v})
		if v > ytop { // unbounded: stop once off the chart
			break
		}
	}
	if len(hb) > 1 {
		l := p.line(phiHB, hb, lineStyle(colOrange, 2, dashed), plotter.NoStep)
		p.addLegend("harmonic balance, Prop. 5a (w ≥ 1; high by ≤ 3.3 % to w = 3.33)", l)
	}

	var asym plotter.XYs
	for _, c := range curve {
		if c.LongWindow != nil {
			asym = append(asym, plotter.XY{X: c.W, Y: *c.LongWindow})
		}
	}
	if len(asym) > 1 {
		l := p.line(phiAsym, asym, lineStyle(colSkyBlue, 2, dashDot), plotter.NoStep)
		p.addLegend("long-window form e / (1 + 30.6 / ln²(w / 0.07))", l)
	}
}

// addPhiWorkload marks the workload at (px, py) and its requirement Φ(px)
// above or below it, joined by a dotted drop coloured by the verdict:
// blue when the standing delay meets the requirement, vermilion when not.
func addPhiWorkload(p *panel, w contract.Workload, px, py float64) {
	tb := w.Time
	stateCol := colVermilion
	if tb.StandingDelaySeconds >= tb.RequiredStandingDelaySeconds {
		stateCol = colBlue
	}
	p.line("", plotter.XYs{{X: px, Y: py}, {X: px, Y: tb.Phi}}, lineStyle(stateCol, 1.2, dotted), plotter.NoStep)
	req := p.points(phiRequired, plotter.XYs{{X: px, Y: tb.Phi}}, glyph(colBlack, 5, draw.RingGlyph{}))
	p.addLegend(fmt.Sprintf("required: Φ(%s) = %s → D ≥ %s", fmtNum(px), fmtNum(tb.Phi), units.Duration(tb.RequiredStandingDelaySeconds)), req)
	pt := p.points(phiWorkload, plotter.XYs{{X: px, Y: py}}, glyph(stateCol, 5, draw.CircleGlyph{}))
	p.addLegend(fmt.Sprintf("%s: D = %s = %s τ_eff", w.Autoscaler.Name, units.Duration(tb.StandingDelaySeconds), fmtNum(py)), pt)
}

// phiPoint places the workload: x = W_eff/τ_eff from the bill, y = D/τ_eff
// with τ_eff = RequiredStandingDelaySeconds / Phi (the required delay is
// τ_eff·Φ). ok is false when the bill cannot place it.
func phiPoint(tb *contract.TimeBill) (x, y, tauEff float64, ok bool) {
	if !(tb.Phi > 0) || !(tb.RequiredStandingDelaySeconds > 0) || !(tb.WindowInDeadTimes > 0) {
		return 0, 0, 0, false
	}
	tauEff = tb.RequiredStandingDelaySeconds / tb.Phi
	return tb.WindowInDeadTimes, tb.StandingDelaySeconds / tauEff, tauEff, true
}

func phiTitle(w contract.Workload, x, y, tauEff float64, ok bool) string {
	t := "Φ curve: " + workloadID(w)
	if !ok {
		return t + "\nthe bill does not place the workload on the curve (no Φ or window)"
	}
	verdict := "on or above the curve: the loop rests"
	if w.Time.StandingDelaySeconds < w.Time.RequiredStandingDelaySeconds {
		verdict = "below the curve: the loop hunts"
	}
	// Short lines: the legend strip leaves the panel narrower than the
	// figure.
	return fmt.Sprintf("%s\nw = %s dead times, D = %s τ_eff\nvs Φ(w) = %s required (τ_eff = %s): %s",
		t, fmtNum(x), fmtNum(y), fmtNum(w.Time.Phi), units.Duration(tauEff), verdict)
}
