package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"

	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/rules"
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
func buildTime(w rules.Workload) (*figure, error) {
	if w.Time == nil {
		return nil, fmt.Errorf("%w: the workload has no Time bill (signal %q)", ErrNoData, w.Signal)
	}
	tb := w.Time
	tl := tb.Timeline
	if tl == nil || len(tl.T) == 0 || len(tl.Replicas) == 0 {
		return nil, fmt.Errorf("%w: the Time bill carries no timeline", ErrNoData)
	}

	// Long runs read better in minutes.
	unit, div := "s", 1.0
	if tl.T[len(tl.T)-1]-tl.T[0] >= 1800 {
		unit, div = "min", 60
	}
	xLabel := fmt.Sprintf("time after the demand step (%s)", unit)
	scale := func(xys plotter.XYs) plotter.XYs {
		for i := range xys {
			xys[i].X /= div
		}
		return xys
	}

	txt := newMeasuringText()
	top := newPanel(timeTitle(w), "", "replicas (pods)", txt)
	replicas := scale(xysInt32(tl.T, tl.Replicas))
	xmin, xmax := replicas[0].X, replicas[len(replicas)-1].X

	var needed plotter.XYs
	if len(tl.Needed) > 0 {
		needed = scale(xysFloat(tl.T, tl.Needed))
	}
	if len(needed) == 0 && tb.NeededReplicas > 0 {
		n := float64(tb.NeededReplicas)
		needed = plotter.XYs{{X: xmin, Y: n}, {X: xmax, Y: n}}
	}
	ymax := 0.0
	for _, p := range replicas {
		ymax = math.Max(ymax, p.Y)
	}
	if len(needed) > 0 {
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
			return nil, fmt.Errorf("rest band: %w", err)
		}
		band.Color = tint(colGreen, 0x40)
		band.LineStyle.Width = 0
		top.plot.Add(band)
		top.series = append(top.series, series{name: timeBandLow, xys: lo}, series{name: timeBandHigh, xys: hi})
		top.addLegend(fmt.Sprintf("rest band: need ± %.0f %% (a wider swing is a hunt)", restBand*100), fillThumb{Color: band.Color})
	}
	l := top.line(timeReplicas, replicas, lineStyle(colBlue, 1.8, nil), plotter.PostStep)
	top.addLegend(fmt.Sprintf("replicas (min %d, max %d, mean %s; p5 %s, p95 %s)",
		tb.ReplicasMin, tb.ReplicasMax, fmtNum(tb.ReplicasMean), fmtNum(tb.ReplicasP5), fmtNum(tb.ReplicasP95)), l)
	if len(needed) > 0 {
		nl := top.line(timeNeeded, needed, lineStyle(colBlack, 1.5, dashed), plotter.PostStep)
		top.addLegend(fmt.Sprintf("needed: %d pods", tb.NeededReplicas), nl)
	}
	top.plot.X.Min, top.plot.X.Max = xmin, xmax
	top.plot.Y.Min, top.plot.Y.Max = 0, math.Max(ymax*1.4, 1)

	fig := &figure{panels: []*panel{top}, weights: []float64{1}, width: figWidth, height: figHeight}
	if len(tl.Backlog) == 0 {
		top.plot.X.Label.Text = xLabel
		return fig, nil
	}
	bottom := newPanel("", xLabel, "backlog (messages)", txt)
	backlog := scale(xysFloat(tl.T, tl.Backlog))
	bmax := 0.0
	for _, p := range backlog {
		bmax = math.Max(bmax, p.Y)
	}
	bl := bottom.line(timeBacklog, backlog, lineStyle(colVermilion, 1.5, nil), plotter.NoStep)
	bottom.addLegend(fmt.Sprintf("backlog (standing delay %s at rest)", units.Duration(tb.StandingDelaySeconds)), bl)
	bottom.plot.X.Min, bottom.plot.X.Max = xmin, xmax
	bottom.plot.Y.Min, bottom.plot.Y.Max = 0, math.Max(bmax*1.3, 1)
	fig.panels = append(fig.panels, bottom)
	fig.weights = []float64{0.62, 0.38}
	fig.height = figHeightTall
	return fig, nil
}

func timeTitle(w rules.Workload) string {
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
