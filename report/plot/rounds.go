package plot

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
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
func buildRounds(w contract.Workload) (*figure, error) {
	if w.Size == nil {
		return nil, fmt.Errorf("%w: the workload has no Size bill (signal %q)", ErrNoData, w.Signal)
	}
	pts := roundsPoints(w.Size.RoundsCurve)
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: the Size bill has no rounds curve", ErrNoData)
	}

	p := newPanel(roundsTitle(w), "overload k (× steady demand, log scale)", roundsYLabel(w), newMeasuringText())

	sim, bound, never, ymax := roundsSeries(pts)
	// Runs that never met capacity sit one above the top, marked ×.
	neverY := ymax + 1
	top := ymax + 1
	if len(never) > 0 {
		top = neverY + 1
	}

	addRoundsCurves(p, w, sim, bound, never, neverY)
	addRoundsDesign(p, w, neverY)

	kmin, kmax := pts[0].K, pts[len(pts)-1].K
	if kmax <= kmin*1.01 {
		kmin, kmax = kmin/2, kmax*2
	}
	p.logX(kmin, kmax)
	p.plot.Y.Min, p.plot.Y.Max = 0, top+math.Max(1, 0.1*top) // headroom for the labels
	p.plot.Y.Tick.Marker = intTicks{}
	return &figure{panels: []*panel{p}, weights: []float64{1}, width: figWidth, height: figHeight}, nil
}

// roundsPoints copies the curve, keeping only the overloads a log axis can
// place (finite k > 0), in k order; the bill's own slice is left alone.
func roundsPoints(curve []contract.RoundsPoint) []contract.RoundsPoint {
	pts := append([]contract.RoundsPoint(nil), curve...)
	pts = slices.DeleteFunc(pts, func(p contract.RoundsPoint) bool { return !(p.K > 0) || math.IsInf(p.K, 0) })
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].K < pts[j].K })
	return pts
}

// roundsTitle names the workload and the two numbers that turn rounds
// into time: the growth factor and the length of one round.
func roundsTitle(w contract.Workload) string {
	return fmt.Sprintf("Rounds to capacity against overload: %s\ngrowth factor g = %s; one round = %s (dead time + metric window)",
		workloadID(w), fmtNum(w.Size.GrowthFactor), units.Seconds(w.Size.RoundSeconds))
}

// roundsYLabel quotes the round length on the axis when the bill knows it,
// so a count of rounds can be read as a duration.
func roundsYLabel(w contract.Workload) string {
	if w.Size.RoundSeconds > 0 {
		return fmt.Sprintf("rounds to capacity (× %s)", units.Seconds(w.Size.RoundSeconds))
	}
	return "rounds to capacity"
}

// roundsSeries splits the sorted points into the simulated rounds, the
// bound and the overloads that never met capacity, and returns the highest
// count of either series (at least 1), which places the × marks.
func roundsSeries(pts []contract.RoundsPoint) (sim, bound plotter.XYs, never []float64, ymax float64) {
	ymax = 1.0
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
	return sim, bound, never, ymax
}

// addRoundsCurves draws the simulated staircase, then the bound over it,
// then the × marks at neverY; the order is the drawing and legend order.
func addRoundsCurves(p *panel, w contract.Workload, sim, bound plotter.XYs, never []float64, neverY float64) {
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
}

// addRoundsDesign rings the design overloads on the curve and labels them
// (designLabels). An overload that never met capacity is ringed at neverY,
// on its × mark.
func addRoundsDesign(p *panel, w contract.Workload, neverY float64) {
	design, labels := roundsDesignPoints(w.Size.Overloads, neverY)
	if len(design) == 0 {
		return
	}
	dg := p.points(roundsDesign, design, glyph(colVermilion, 7, draw.RingGlyph{}))
	p.addLegend("design overloads", dg)
	p.plot.Add(designLabels{XYs: design, Labels: labels})
}

// designLabels names the ringed design overloads, each below right of its
// ring, where a rising staircase leaves room; left of it when it would
// run past the data area; a line lower at a time past the labels placed
// before it (2x, 2.5x and 3x of one round each sit side by side on a log
// axis); not at all when no row below has room, the ring still marking
// the overload. Placed when drawn, by measured widths, as only then is
// the data area known. It does not widen the axes.
type designLabels struct {
	XYs    plotter.XYs
	Labels []string
}

// designLabelOffset is where a label's top left corner sits from its ring.
var designLabelOffset = vg.Point{X: vg.Points(9), Y: -vg.Points(6)}

func (d designLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.X.Tick.Label
	sty.Color = colVermilion
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	var placed []vg.Rectangle
	for i, xy := range d.XYs {
		w, h := sty.Width(d.Labels[i]), sty.Height(d.Labels[i])
		x := trX(xy.X) + designLabelOffset.X
		if x+w > c.Max.X {
			x = trX(xy.X) - designLabelOffset.X - w
		}
		if x < c.Min.X {
			continue
		}
		for top := trY(xy.Y) + designLabelOffset.Y; top-h >= c.Min.Y; top -= h {
			r := vg.Rectangle{Min: vg.Point{X: x, Y: top - h}, Max: vg.Point{X: x + w, Y: top}}
			if !slices.ContainsFunc(placed, func(q vg.Rectangle) bool { return crowds(r, q) }) {
				c.FillText(sty, r.Min.Add(vg.Point{Y: h}), d.Labels[i])
				placed = append(placed, r)
				break
			}
		}
	}
}

// crowds says whether two labels' boxes come closer than roundLabelGap
// side by side or overlap in height.
func crowds(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X+roundLabelGap && b.Min.X < a.Max.X+roundLabelGap &&
		a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// roundsDesignPoints places each design overload with k > 0 and writes its
// label: the rounds it took and, when known, the time to capacity.
func roundsDesignPoints(overloads []contract.SizeOverload, neverY float64) (design plotter.XYs, labels []string) {
	for _, o := range overloads {
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
	return design, labels
}

// neverLegend names the × marks and says why capacity is never met: the
// mark sits above the curve, where no count of rounds is, and a reader
// would otherwise take its height for one.
func neverLegend(w contract.Workload) string {
	switch {
	case w.Size.DeadBand:
		return "capacity never met (dead band: never scales on saturation)"
	case w.MaxReplicas > 0:
		return fmt.Sprintf("capacity never met (maxReplicas %d reached; drawn above the curve)", w.MaxReplicas)
	}
	return "capacity never met (drawn above the curve)"
}
