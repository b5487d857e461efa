package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
)

// Series names of the Time figure.
const (
	timeReplicas = "replicas"
	timeNeeded   = "needed"
	timeBandLow  = "rest band low"
	timeBandHigh = "rest band high"
	timeBacklog  = "backlog"
)

// restBand is the half-width of the band around the need: a swing (max −
// min) wider than 30 % of the need is a hunt (Definition 5).
const restBand = 0.15

// buildTime lays out replicas with the need and its band (top) and the
// backlog (bottom).
func buildTime(w contract.Workload) (*figure, error) {
	if w.Time == nil {
		return nil, fmt.Errorf("%w: the workload has no Time bill (signal %q)", ErrNoData, w.Signal)
	}
	tb := w.Time
	tl := tb.Timeline
	if tl == nil || len(tl.T) == 0 || len(tl.Replicas) == 0 {
		return nil, fmt.Errorf("%w: the Time bill carries no timeline", ErrNoData)
	}

	unit, div := timeUnit(tl)
	xLabel := fmt.Sprintf("time after the demand step (%s)", unit)

	txt := newMeasuringText()
	top := newPanel(timeTitle(w), "", "replicas (pods)", txt)
	replicas := scaleX(xysInt32(tl.T, tl.Replicas), div)
	xmin, xmax := replicas[0].X, replicas[len(replicas)-1].X
	if err := addTimeReplicas(top, tb, replicas, timeNeed(tb, div, xmin, xmax)); err != nil {
		return nil, err
	}

	fig := &figure{panels: []*panel{top}, weights: []float64{1}, width: figWidth, height: figHeight}
	if len(tl.Backlog) == 0 {
		top.plot.X.Label.Text = xLabel
		return fig, nil
	}
	fig.panels = append(fig.panels, timeBacklogPanel(tb, div, xmin, xmax, xLabel, txt))
	fig.weights = []float64{0.62, 0.38}
	fig.height = figHeightTall
	return fig, nil
}

// timeUnit picks the time axis unit and the divisor from seconds: long
// runs read better in minutes, and a window that ends hours after the step
// in hours (the late window of a long run read "1080-1200 min").
func timeUnit(tl *contract.Timeline) (unit string, div float64) {
	span := tl.T[len(tl.T)-1] - tl.T[0]
	switch {
	case span >= 1800 && tl.T[len(tl.T)-1] > hoursPast:
		return "h", 3600
	case span >= 1800:
		return "min", 60
	}
	return "s", 1.0
}

// scaleX divides the X of every point by div, in place, to put seconds in
// the axis unit.
func scaleX(xys plotter.XYs, div float64) plotter.XYs {
	for i := range xys {
		xys[i].X /= div
	}
	return xys
}

// timeNeed is the need over time: the timeline's when it has one, else the
// bill's single count held flat across [xmin, xmax], else nil.
func timeNeed(tb *contract.TimeBill, div, xmin, xmax float64) plotter.XYs {
	var needed plotter.XYs
	if len(tb.Timeline.Needed) > 0 {
		needed = scaleX(xysFloat(tb.Timeline.T, tb.Timeline.Needed), div)
	}
	if len(needed) == 0 && tb.NeededReplicas > 0 {
		n := float64(tb.NeededReplicas)
		needed = plotter.XYs{{X: xmin, Y: n}, {X: xmax, Y: n}}
	}
	return needed
}

// addTimeReplicas fills the top panel: the rest band under everything,
// then replicas, then the need dashed over them; the order is the drawing
// and legend order. The Y range leaves room above the band for the legend.
func addTimeReplicas(top *panel, tb *contract.TimeBill, replicas, needed plotter.XYs) error {
	ymax := 0.0
	for _, p := range replicas {
		ymax = math.Max(ymax, p.Y)
	}
	if len(needed) > 0 {
		bandTop, err := addRestBand(top, needed)
		if err != nil {
			return err
		}
		ymax = math.Max(ymax, bandTop)
	}
	l := top.line(timeReplicas, replicas, lineStyle(colBlue, 1.8, nil), plotter.PostStep)
	top.addLegend(fmt.Sprintf("replicas (min %d, max %d, mean %s; p5 %s, p95 %s)",
		tb.ReplicasMin, tb.ReplicasMax, fmtNum(tb.ReplicasMean), fmtNum(tb.ReplicasP5), fmtNum(tb.ReplicasP95)), l)
	if len(needed) > 0 {
		nl := top.line(timeNeeded, needed, lineStyle(colBlack, 1.5, dashed), plotter.PostStep)
		top.addLegend(fmt.Sprintf("needed: %d pods", tb.NeededReplicas), nl)
	}
	top.plot.X.Min, top.plot.X.Max = replicas[0].X, replicas[len(replicas)-1].X
	top.plot.Y.Min, top.plot.Y.Max = 0, math.Max(ymax*1.4, 1)
	return nil
}

// addRestBand shades need ± restBand, the swing the loop may have and
// still rest (Definition 5), and records its edges as series. It returns
// the band's highest point, which the Y range must clear.
func addRestBand(top *panel, needed plotter.XYs) (float64, error) {
	ymax := 0.0
	lo := make(plotter.XYs, len(needed))
	hi := make(plotter.XYs, len(needed))
	ring := make(plotter.XYs, 0, 2*len(needed))
	for i, p := range needed {
		lo[i] = plotter.XY{X: p.X, Y: p.Y * (1 - restBand)}
		hi[i] = plotter.XY{X: p.X, Y: p.Y * (1 + restBand)}
		ymax = math.Max(ymax, hi[i].Y)
		ring = append(ring, lo[i])
	}
	for i := len(hi) - 1; i >= 0; i-- {
		ring = append(ring, hi[i])
	}
	band, err := plotter.NewPolygon(ring)
	if err != nil {
		return 0, fmt.Errorf("rest band: %w", err)
	}
	band.Color = tint(colGreen, 0x40)
	band.LineStyle.Width = 0
	top.plot.Add(band)
	top.series = append(top.series, series{name: timeBandLow, xys: lo}, series{name: timeBandHigh, xys: hi})
	top.addLegend(fmt.Sprintf("rest band: need ± %.0f %% (a wider swing is a hunt)", restBand*100), fillThumb{Color: band.Color})
	return ymax, nil
}

// timeBacklogPanel is the bottom panel: the backlog on the top panel's X
// range, which carries the shared time label.
func timeBacklogPanel(tb *contract.TimeBill, div, xmin, xmax float64, xLabel string, txt *measuringText) *panel {
	bottom := newPanel("", xLabel, "backlog (messages)", txt)
	backlog := scaleX(xysFloat(tb.Timeline.T, tb.Timeline.Backlog), div)
	bmax := 0.0
	for _, p := range backlog {
		bmax = math.Max(bmax, p.Y)
	}
	bl := bottom.line(timeBacklog, backlog, lineStyle(colVermilion, 1.5, nil), plotter.NoStep)
	bottom.addLegend(fmt.Sprintf("backlog (standing delay %s at rest)", units.Duration(tb.StandingDelaySeconds)), bl)
	bottom.plot.X.Min, bottom.plot.X.Max = xmin, xmax
	bottom.plot.Y.Min, bottom.plot.Y.Max = 0, math.Max(bmax*1.3, 1)
	return bottom
}

func timeTitle(w contract.Workload) string {
	tb := w.Time
	state := "rests"
	if tb.Hunts {
		state = "hunts"
	}
	// Three lines: the panel is narrower than the figure (the legends sit
	// right of it), and one long line ran past its edge.
	return fmt.Sprintf("Time bill: %s\n%s: %d–%d pods vs %d needed (swing %.0f %%, mean %+.0f %% over need)\nstanding delay %s vs %s required",
		workloadID(w), state, tb.ReplicasMin, tb.ReplicasMax, tb.NeededReplicas,
		tb.SwingFraction*100, tb.MeanOverNeed*100, units.Duration(tb.StandingDelaySeconds), units.Duration(tb.RequiredStandingDelaySeconds))
}
