package plot

import (
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capreport/capreport/rules"
)

// Series names of the Size figure, per overload k: k-prefixed, e.g.
// "10x ordered".
const (
	sizeOrdered = "ordered"
	sizeReady   = "ready"
	sizeNeeded  = "needed"
	sizeEvents  = "scale events"
	sizeWait    = "wait"
)

func sizeSeries(k float64, what string) string { return fmtK(k) + " " + what }

// buildSize lays out the staircase (top) and the waiting time (bottom).
func buildSize(w rules.Workload) (*figure, error) {
	if w.Size == nil {
		return nil, fmt.Errorf("%w: the workload has no Size bill (signal %q)", ErrNoData, w.Signal)
	}
	var runs []rules.SizeOverload
	for _, o := range w.Size.Overloads {
		if o.Timeline != nil && len(o.Timeline.T) > 0 && len(o.Timeline.Replicas) > 0 {
			runs = append(runs, o)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no design overload of the Size bill carries a timeline", ErrNoData)
	}

	txt := newMeasuringText()
	top := newPanel(sizeTitle(w, runs), "", "replicas (pods)", txt)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	seen := func(y float64) {
		if y > 0 {
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
		}
	}
	var hasReady, hasNeeded, hasEvents, hasCapacity, hasWait bool
	for i, o := range runs {
		tl := o.Timeline
		col := seriesColor(i)
		xmin = math.Min(xmin, float64(tl.T[0]))
		xmax = math.Max(xmax, float64(tl.T[len(tl.T)-1]))

		ordered := xysInt32(tl.T, tl.Replicas)
		for _, p := range ordered {
			seen(p.Y)
		}
		top.line(sizeSeries(o.K, sizeOrdered), ordered, lineStyle(col, 2.2, nil), plotter.PostStep)
		top.addLegend(fmtK(o.K)+" overload", &plotter.Line{LineStyle: lineStyle(col, 2.2, nil)})
		if len(tl.Serving) > 0 {
			ready := xysInt32(tl.T, tl.Serving)
			for _, p := range ready {
				seen(p.Y)
			}
			top.line(sizeSeries(o.K, sizeReady), ready, lineStyle(col, 1.5, dashed), plotter.PostStep)
			hasReady = true
		}
		if len(tl.Needed) > 0 {
			needed := xysFloat(tl.T, tl.Needed)
			for _, p := range needed {
				seen(p.Y)
			}
			top.line(sizeSeries(o.K, sizeNeeded), needed, lineStyle(col, 1.5, dotted), plotter.PostStep)
			hasNeeded = true
		}
		var ev plotter.XYs
		for _, e := range o.ScaleEvents {
			if float64(e.T) >= float64(tl.T[0]) && float64(e.T) <= float64(tl.T[len(tl.T)-1]) {
				ev = append(ev, plotter.XY{X: float64(e.T), Y: float64(e.To)})
			}
		}
		if len(ev) > 0 {
			top.points(sizeSeries(o.K, sizeEvents), ev, glyph(col, 3, draw.CircleGlyph{}))
			hasEvents = true
		}
		if o.TimeToCapacitySeconds != nil {
			top.plot.Add(vmark{
				X: float64(*o.TimeToCapacitySeconds), Label: fmt.Sprintf("%s: capacity at %d s", fmtK(o.K), *o.TimeToCapacitySeconds),
				Style: lineStyle(col, 1.2, dashDot), Color: col, Bottom: true,
			})
			hasCapacity = true
		}
		hasWait = hasWait || len(tl.Wait) > 0
	}
	if math.IsInf(ymin, 1) { // no positive replica count at all
		ymin, ymax = 1, 1
	}

	// Round boundaries: round n spans ((n−1)·R, n·R] after the step.
	if r := w.Size.RoundSeconds; r > 0 {
		rounds := int(xmax)/r + 1
		// Past a dozen rounds the labels would overlap: name every k-th.
		every := max(1, (rounds+11)/12)
		for n := 1; float64((n-1)*r) <= xmax; n++ {
			label := ""
			if (n-1)%every == 0 {
				label = fmt.Sprintf("round %d", n)
			}
			top.plot.Add(vmark{
				X: float64((n - 1) * r), Label: label,
				Style: lineStyle(colGrey, 0.8, nil), Color: colGrey,
			})
		}
	}

	// Style key: one entry per line style, in black. The legend starts
	// below the row of round labels.
	top.plot.Legend.YOffs -= vg.Points(16)
	top.addLegend("ordered", &plotter.Line{LineStyle: lineStyle(colBlack, 2.2, nil)})
	if hasReady {
		top.addLegend("ready (serving)", &plotter.Line{LineStyle: lineStyle(colBlack, 1.5, dashed)})
	}
	if hasNeeded {
		top.addLegend("needed at target", &plotter.Line{LineStyle: lineStyle(colBlack, 1.5, dotted)})
	}
	if hasEvents {
		top.addLegend("scale event (new count)", &plotter.Scatter{GlyphStyle: glyph(colBlack, 3, draw.CircleGlyph{})})
	}
	if hasCapacity {
		top.addLegend("capacity meets demand", vmark{Style: lineStyle(colBlack, 1.2, dashDot)})
	}
	if r := w.Size.RoundSeconds; r > 0 {
		top.addLegend(fmt.Sprintf("round start (1 round = %d s)", r), vmark{Style: lineStyle(colGrey, 0.8, nil)})
	}

	top.plot.X.Min, top.plot.X.Max = xmin, xmax
	top.plot.X.Tick.Marker = linTicks{Step: float64(w.Size.RoundSeconds) / 2}
	if ymax/ymin >= 16 {
		// Doublings are equal steps on a log axis; headroom for the legend.
		lo := math.Max(ymin/1.3, 0.8)
		logAxis(&top.plot.Y, lo, ymax*math.Pow(ymax/ymin, 0.3))
		for _, s := range top.series { // a log axis cannot show 0 pods
			for i := range s.xys {
				s.xys[i].Y = math.Max(s.xys[i].Y, lo)
			}
		}
	} else {
		top.plot.Y.Min, top.plot.Y.Max = 0, ymax*1.45
	}

	fig := &figure{panels: []*panel{top}, weights: []float64{1}, width: figWidth, height: figHeight}
	if !hasWait {
		top.plot.X.Label.Text = "time after the demand step (s)"
		return fig, nil
	}

	bottom := newPanel("", "time after the demand step (s)", "waiting time (s)", txt)
	wmax := 0.0
	for i, o := range runs {
		tl := o.Timeline
		if len(tl.Wait) == 0 {
			continue
		}
		xys := xysFloat(tl.T, tl.Wait)
		for _, p := range xys {
			wmax = math.Max(wmax, p.Y)
		}
		l := bottom.line(sizeSeries(o.K, sizeWait), xys, lineStyle(seriesColor(i), 2, nil), plotter.NoStep)
		bottom.addLegend(fmt.Sprintf("%s: peak wait %s s", fmtK(o.K), fmtNum(o.PeakWaitSeconds)), l)
	}
	if target, ok := latencyTarget(w); ok {
		bottom.plot.Add(hmark{Y: target, Style: lineStyle(colBlack, 1.2, dashed)})
		bottom.addLegend(fmt.Sprintf("latency target %s s", fmtNum(target)), hmark{Style: lineStyle(colBlack, 1.2, dashed)})
		wmax = math.Max(wmax, target)
	}
	bottom.plot.X.Min, bottom.plot.X.Max = xmin, xmax
	bottom.plot.X.Tick.Marker = top.plot.X.Tick.Marker
	bottom.plot.Y.Min, bottom.plot.Y.Max = 0, math.Max(wmax*1.35, 1)
	fig.panels = append(fig.panels, bottom)
	fig.weights = []float64{0.64, 0.36}
	fig.height = figHeightTall
	return fig, nil
}

// sizeTitle: the workload, then the bill of the largest overload plotted.
func sizeTitle(w rules.Workload, runs []rules.SizeOverload) string {
	o := runs[0]
	for _, r := range runs[1:] {
		if r.K > o.K {
			o = r
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Size bill: %s (growth factor %s)\n%s overload: ", workloadID(w), fmtNum(w.Size.GrowthFactor), fmtK(o.K))
	if o.TimeToCapacitySeconds != nil {
		fmt.Fprintf(&b, "capacity at %d s", *o.TimeToCapacitySeconds)
		if o.Rounds != nil {
			if o.RoundsBound != nil {
				fmt.Fprintf(&b, " (%d rounds, bound %d)", *o.Rounds, *o.RoundsBound)
			} else {
				fmt.Fprintf(&b, " (%d rounds)", *o.Rounds)
			}
		}
	} else {
		b.WriteString("capacity never met")
	}
	fmt.Fprintf(&b, ", peak %d pods vs %d needed, peak wait %s s", o.PeakReplicas, o.NeededReplicas, fmtNum(o.PeakWaitSeconds))
	return b.String()
}

// latencyTarget reads the latency-target assumption ("30s", "2m", "45"),
// in seconds.
func latencyTarget(w rules.Workload) (float64, bool) {
	a, ok := w.Assumptions["latency-target"]
	if !ok || a.Value == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(a.Value); err == nil && d > 0 {
		return d.Seconds(), true
	}
	var s float64
	if _, err := fmt.Sscanf(a.Value, "%g", &s); err == nil && s > 0 {
		return s, true
	}
	return 0, false
}

func xysInt32(t []int, v []int32) plotter.XYs {
	n := min(len(t), len(v))
	xys := make(plotter.XYs, n)
	for i := range n {
		xys[i] = plotter.XY{X: float64(t[i]), Y: float64(v[i])}
	}
	return xys
}

func xysFloat(t []int, v []float64) plotter.XYs {
	n := min(len(t), len(v))
	xys := make(plotter.XYs, 0, n)
	for i := range n {
		if math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(t[i]), Y: v[i]})
	}
	return xys
}
