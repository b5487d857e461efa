package plot

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/rules"
)

// Series names of the Rounds figure.
const (
	roundsSimulated = "simulated"
	roundsBound     = "bound"
	roundsNever     = "never"
	roundsDesign    = "design"
)

// buildRounds draws SizeBill.RoundsCurve: simulated rounds and Proposition
// 2's bound against k (log axis), with the design overloads marked.
func buildRounds(w rules.Workload) (*figure, error) {
	if w.Size == nil {
		return nil, fmt.Errorf("%w: the workload has no Size bill (signal %q)", ErrNoData, w.Signal)
	}
	pts := append([]rules.RoundsPoint(nil), w.Size.RoundsCurve...)
	pts = slices.DeleteFunc(pts, func(p rules.RoundsPoint) bool { return !(p.K > 0) || math.IsInf(p.K, 0) })
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: the Size bill has no rounds curve", ErrNoData)
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].K < pts[j].K })

	title := fmt.Sprintf("Rounds to capacity against overload: %s\ngrowth factor g = %s; one round = %s (dead time + metric window)",
		workloadID(w), fmtNum(w.Size.GrowthFactor), units.Seconds(w.Size.RoundSeconds))
	yLabel := "rounds to capacity"
	if w.Size.RoundSeconds > 0 {
		yLabel = fmt.Sprintf("rounds to capacity (× %s)", units.Seconds(w.Size.RoundSeconds))
	}
	p := newPanel(title, "overload k (× steady demand, log scale)", yLabel, newMeasuringText())

	var bound, sim plotter.XYs
	var never []float64
	ymax := 1.0
	for _, q := range pts {
		if q.Bound != nil {
			bound = append(bound, plotter.XY{X: q.K, Y: float64(*q.Bound)})
			ymax = math.Max(ymax, float64(*q.Bound))
		}
		if q.Rounds == nil {
			never = append(never, q.K)
			continue
		}
		sim = append(sim, plotter.XY{X: q.K, Y: float64(*q.Rounds)})
		ymax = math.Max(ymax, float64(*q.Rounds))
	}
	// Runs that never met capacity sit one above the top, marked ×.
	neverY := ymax + 1
	top := ymax + 1
	if len(never) > 0 {
		top = neverY + 1
	}

	if len(sim) > 0 {
		sl := p.line(roundsSimulated, sim, lineStyle(colBlue, 2.4, nil), plotter.PreStep)
		sg := p.points(roundsSimulated+" points", sim, glyph(colBlue, 3.5, draw.CircleGlyph{}))
		p.addLegend("simulated controller", sl, sg)
	}
	// The bound on top, dashed: where the controller attains it the two
	// coincide and the blue shows through the gaps.
	bl := p.line(roundsBound, bound, lineStyle(colBlack, 1.6, dashed), plotter.PreStep)
	p.addLegend("Prop. 2 bound: ceil(log_g(k·u*·r/ℓ))", bl)
	if len(never) > 0 {
		var xys plotter.XYs
		for _, k := range never {
			xys = append(xys, plotter.XY{X: k, Y: neverY})
		}
		ng := p.points(roundsNever, xys, glyph(colVermilion, 5, draw.CrossGlyph{}))
		p.addLegend(neverLegend(w), ng)
	}

	// The design overloads, ringed on the curve and labelled below right,
	// where a rising staircase leaves room.
	var design plotter.XYs
	var labels []string
	for _, o := range w.Size.Overloads {
		if !(o.K > 0) {
			continue
		}
		y, text := neverY, "design "+fmtK(o.K)+": never"
		if o.Rounds != nil {
			y = float64(*o.Rounds)
			text = fmt.Sprintf("design %s: %s", fmtK(o.K), units.Count(*o.Rounds, "round", "rounds"))
			if o.TimeToCapacitySeconds != nil {
				text += " (" + units.Seconds(*o.TimeToCapacitySeconds) + ")"
			}
		}
		design = append(design, plotter.XY{X: o.K, Y: y})
		labels = append(labels, text)
	}
	if len(design) > 0 {
		dg := p.points(roundsDesign, design, glyph(colVermilion, 7, draw.RingGlyph{}))
		p.addLegend("design overloads", dg)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: design, Labels: labels})
		if err != nil {
			return nil, fmt.Errorf("design labels: %w", err)
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font = font.From(sans, 10)
			lb.TextStyle[i].Color = colVermilion
			lb.TextStyle[i].Handler = p.plot.TextHandler
			lb.TextStyle[i].YAlign = draw.YTop
		}
		lb.Offset = vg.Point{X: vg.Points(9), Y: -vg.Points(6)}
		p.plot.Add(lb)
	}

	kmin, kmax := pts[0].K, pts[len(pts)-1].K
	if kmax <= kmin*1.01 {
		kmin, kmax = kmin/2, kmax*2
	}
	p.logX(kmin, kmax)
	p.plot.Y.Min, p.plot.Y.Max = 0, top+math.Max(1, 0.1*top) // headroom for the labels
	p.plot.Y.Tick.Marker = intTicks{}
	return &figure{panels: []*panel{p}, weights: []float64{1}, width: figWidth, height: figHeight}, nil
}

// neverLegend names the × marks and says why capacity is never met: the
// mark sits above the curve, where no count of rounds is, and a reader
// would otherwise take its height for one.
func neverLegend(w rules.Workload) string {
	switch {
	case w.Size.DeadBand:
		return "capacity never met (dead band: never scales on saturation)"
	case w.MaxReplicas > 0:
		return fmt.Sprintf("capacity never met (maxReplicas %d reached; drawn above the curve)", w.MaxReplicas)
	}
	return "capacity never met (drawn above the curve)"
}
