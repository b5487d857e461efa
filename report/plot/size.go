package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
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

// buildSize lays out one staircase panel per design overload (small
// multiples: on one pod axis the 30x staircase flattened the 3x and the
// 10x), each on its own pod axis, and, when the runs carry waiting times,
// the waiting time of every run below them, all on one time axis.
func buildSize(w contract.Workload) (*figure, error) {
	runs, err := sizeRuns(w)
	if err != nil {
		return nil, err
	}
	txt := newMeasuringText()
	xmin, xmax := timeSpan(runs)
	fig := &figure{width: figWidth}
	wait := false
	for i, o := range runs {
		title := overloadTitle(w, o)
		if i == 0 {
			title = sizeHeader(w) + "\n" + title
		}
		p, drew := staircasePanel(w, o, i, title, txt)
		// Each run on its own time span: on the longest one's, a 3x run
		// that reaches capacity in a third of the time left its panel
		// mostly empty and its round labels run together.
		p.plot.X.Min, p.plot.X.Max = timeSpan(runs[i : i+1])
		fig.panels = append(fig.panels, p)
		fig.weights = append(fig.weights, 1)
		wait = wait || drew.wait
	}
	fig.height = max(figHeight, vg.Length(3.2*float64(len(runs)))*vg.Inch)
	// The bottom axis names its unit; a panel whose own span counts in
	// another (seconds above minutes) names its own.
	for _, p := range fig.panels {
		if l := timeLabel(p.plot.X.Min, p.plot.X.Max); l != timeLabel(xmin, xmax) {
			p.plot.X.Label.Text = l
		}
	}
	last := fig.panels[len(fig.panels)-1]
	if !wait {
		last.plot.X.Label.Text = timeLabel(last.plot.X.Min, last.plot.X.Max)
		return fig, nil
	}
	fig.panels = append(fig.panels, waitPanel(w, runs, last, xmin, xmax, txt))
	fig.weights = append(fig.weights, 0.8)
	fig.height += vg.Length(2.6) * vg.Inch
	return fig, nil
}

// sizeRuns are the design overloads of the Size bill with a timeline to
// draw.
func sizeRuns(w contract.Workload) ([]contract.SizeOverload, error) {
	if w.Size == nil {
		return nil, fmt.Errorf("%w: the workload has no Size bill (signal %q)", ErrNoData, w.Signal)
	}
	var runs []contract.SizeOverload
	for _, o := range w.Size.Overloads {
		if o.Timeline != nil && len(o.Timeline.T) > 0 && len(o.Timeline.Replicas) > 0 {
			runs = append(runs, o)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no design overload of the Size bill carries a timeline", ErrNoData)
	}
	return runs, nil
}

// staircaseDrawn is what the runs drew on the staircase panel: the range of
// positive pod counts (a log axis cannot show 0 pods) and the kinds of
// series, each of which gets an entry in the style key.
type staircaseDrawn struct {
	podsMin, podsMax                      float64
	ready, needed, events, capacity, wait bool
}

// staircasePanel draws one run's staircase in its colour (the i-th), the
// round boundaries and the style key, on a pod axis fitted to the run.
func staircasePanel(w contract.Workload, o contract.SizeOverload, i int, title string, txt *measuringText) (*panel, staircaseDrawn) {
	p := newPanel(title, "", "replicas (pods)", txt)
	drew := staircaseDrawn{podsMin: math.Inf(1), podsMax: math.Inf(-1)}
	drawRun(p, o, seriesColor(i), &drew)
	drawRoundStarts(p, w.Size.RoundSeconds, float64(o.Timeline.T[len(o.Timeline.T)-1]))
	addStyleKey(p, drew, w.Size.RoundSeconds)
	p.plot.X.Tick.Marker = timeTicks{}
	fitPodAxis(p, drew.podsMin, drew.podsMax)
	return p, drew
}

// drawRun draws one overload's run: the replicas ordered, with the legend
// entry of its colour, the replicas ready and needed when the timeline has
// them, the scale events within the run, and the moment capacity met
// demand.
func drawRun(top *panel, o contract.SizeOverload, col color.NRGBA, drew *staircaseDrawn) {
	tl := o.Timeline
	drew.podLine(top, sizeSeries(o.K, sizeOrdered), xysInt32(tl.T, tl.Replicas), lineStyle(col, 2.2, nil))
	top.addLegend(fmtK(o.K)+" overload", &plotter.Line{LineStyle: lineStyle(col, 2.2, nil)})
	if len(tl.Serving) > 0 {
		drew.podLine(top, sizeSeries(o.K, sizeReady), xysInt32(tl.T, tl.Serving), lineStyle(col, 1.5, dashed))
		drew.ready = true
	}
	if len(tl.Needed) > 0 {
		drew.podLine(top, sizeSeries(o.K, sizeNeeded), xysFloat(tl.T, tl.Needed), lineStyle(col, 1.5, dotted))
		drew.needed = true
	}
	if ev := scaleEventsWithin(o.ScaleEvents, tl); len(ev) > 0 {
		top.points(sizeSeries(o.K, sizeEvents), ev, glyph(col, 3, draw.CircleGlyph{}))
		drew.events = true
	}
	if o.TimeToCapacitySeconds != nil {
		top.plot.Add(vmark{
			X: float64(*o.TimeToCapacitySeconds), Label: "capacity at " + units.Seconds(*o.TimeToCapacitySeconds),
			Style: lineStyle(col, 1.2, dashDot), Color: col, Bottom: true,
		})
		drew.capacity = true
	}
	drew.wait = drew.wait || len(tl.Wait) > 0
}

// podLine draws a step line of pod counts and widens the pod range by it.
func (drew *staircaseDrawn) podLine(top *panel, name string, xys plotter.XYs, sty draw.LineStyle) {
	for _, p := range xys {
		if p.Y > 0 {
			drew.podsMin, drew.podsMax = math.Min(drew.podsMin, p.Y), math.Max(drew.podsMax, p.Y)
		}
	}
	top.line(name, xys, sty, plotter.PostStep)
}

// scaleEventsWithin are the scale events inside the timeline's span, at the
// new replica count.
func scaleEventsWithin(events []contract.ScaleEvent, tl *contract.Timeline) plotter.XYs {
	var ev plotter.XYs
	for _, e := range events {
		if float64(e.T) >= float64(tl.T[0]) && float64(e.T) <= float64(tl.T[len(tl.T)-1]) {
			ev = append(ev, plotter.XY{X: float64(e.T), Y: float64(e.To)})
		}
	}
	return ev
}

// timeSpan is the time axis that holds every run, in seconds after the
// step.
func timeSpan(runs []contract.SizeOverload) (xmin, xmax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, o := range runs {
		tl := o.Timeline
		xmin = math.Min(xmin, float64(tl.T[0]))
		xmax = math.Max(xmax, float64(tl.T[len(tl.T)-1]))
	}
	return xmin, xmax
}

// drawRoundStarts marks where each round of r seconds starts, up to xmax:
// round n spans ((n−1)·r, n·r] after the step. Nothing for a bill without
// rounds (r = 0).
func drawRoundStarts(top *panel, r int, xmax float64) {
	if r <= 0 {
		return
	}
	top.plot.Add(roundStarts{R: float64(r), End: xmax})
}

// roundStarts is the grey line at the start of every round of R seconds
// up to End, with the rounds named along the top of the data area. Which
// lines and labels fit is known only once the data area's width is: they
// are chosen when drawn (roundLines, roundLabels), by the labels' measured
// widths. Like vmark, it does not widen the axes.
type roundStarts struct{ R, End float64 }

func (m roundStarts) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	var all []roundStart
	for n := 1; float64(n-1)*m.R <= m.End; n++ {
		if v := float64(n-1) * m.R; v >= p.X.Min && v <= p.X.Max {
			all = append(all, roundStart{n: n, x: trX(v)})
		}
	}
	lines := roundLines(all)
	sty := p.X.Tick.Label
	sty.Color = colGrey
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	labels := roundLabels(lines, sty.Width, c.Max.X)
	top := c.Max.Y - roundLabelPad
	// A line that would cross another round's label stops below it:
	// struck through, a grey label on grey lines did not read.
	below := top - sty.Height("0") - 1
	for _, s := range lines {
		y := c.Max.Y
		for _, l := range labels {
			if s.x >= l.x-1 && s.x <= l.x+sty.Width(l.text)+1 {
				y = below
			}
		}
		c.StrokeLine2(lineStyle(colGrey, 0.8, nil), s.x, c.Min.Y, s.x, y)
	}
	for _, l := range labels {
		c.FillText(sty, vg.Point{X: l.x, Y: top}, l.text)
	}
}

func (roundStarts) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(lineStyle(colGrey, 0.8, nil), x, c.Min.Y, x, c.Max.Y)
}

// roundLineGap is the least space between two round lines: closer, as
// the 180 rounds of a 6-hour run are on a 10-inch figure, they read as a
// grey fill, not as boundaries to count.
const roundLineGap = vg.Length(8)

// roundLines are the rounds whose line is drawn: every one when they are
// roundLineGap apart, else the first and every m-th, m the least of 1, 2,
// 5, 10… that sets them so far apart, the step the labels then count in.
func roundLines(all []roundStart) []roundStart {
	if len(all) < 2 {
		return all
	}
	first, last := all[0], all[len(all)-1]
	d := (last.x - first.x) / vg.Length(last.n-first.n)
	if !(d > 0) {
		return all[:1]
	}
	m := 1
	for vg.Length(m)*d < roundLineGap {
		m = nextStep(m)
	}
	if m == 1 {
		return all
	}
	out := []roundStart{first}
	for _, s := range all[1:] {
		if s.n%m == 0 && s.x-out[len(out)-1].x >= roundLineGap {
			out = append(out, s)
		}
	}
	return out
}

// roundLabelPad places a round's label right of and below the top of its
// line; roundLabelGap is the least space between two labels, about two
// spaces of the 10-pt font, so that neighbours read as two words.
const (
	roundLabelPad = vg.Length(3)
	roundLabelGap = vg.Length(6)
)

// roundStart is round n's line, at x.
type roundStart struct {
	n int
	x vg.Length
}

// roundLabel is a label to draw at x.
type roundLabel struct {
	text string
	x    vg.Length
}

// roundLabels names the rounds that fit on one row ending at right, no two
// labels closer than roundLabelGap, by the widths width measures. Every
// round reads "round n" when all of them fit so. Else the first reads
// "round n" and the others their bare number, at every k-th round with k
// the least of 1, 2, 5, 10, 20, 50… at which all fit (the first round
// always, then k, 2k, …), and the last round added when it fits too.
// Numbers at a regular step read like an axis, and the one "round" says
// what they count: "round n" at every k-th round would name a fifth as
// many rounds in the same width, and "r1 r2 r3" is a code to decode. A
// label that would run past right is left out, as is one the others crowd
// out: never drawn over them.
func roundLabels(starts []roundStart, width func(string) vg.Length, right vg.Length) []roundLabel {
	if len(starts) == 0 {
		return nil
	}
	full := func(s roundStart) string { return fmt.Sprintf("round %d", s.n) }
	if out, ok := placeLabels(starts, width, right, full); ok {
		return out
	}
	first := starts[0].n
	bare := func(s roundStart) string {
		if s.n == first {
			return full(s)
		}
		return fmt.Sprint(s.n)
	}
	for k := 1; ; k = nextStep(k) {
		var pick []roundStart
		for _, s := range starts {
			if s.n == first || s.n%k == 0 {
				pick = append(pick, s)
			}
		}
		out, ok := placeLabels(pick, width, right, bare)
		if !ok && len(pick) > 1 {
			continue
		}
		if last := starts[len(starts)-1]; len(out) > 0 && pick[len(pick)-1] != last {
			if more, ok := placeLabels([]roundStart{last}, width, right, bare); ok && len(more) == 1 &&
				more[0].x >= out[len(out)-1].x+width(out[len(out)-1].text)+roundLabelGap {
				out = append(out, more...)
			}
		}
		return out
	}
}

// placeLabels labels each start with text(start), leaving out the ones
// that run past right (only the last can, as the starts run left to
// right); ok is false when two labels come closer than roundLabelGap.
func placeLabels(starts []roundStart, width func(string) vg.Length, right vg.Length, text func(roundStart) string) (out []roundLabel, ok bool) {
	for _, s := range starts {
		t := text(s)
		x := s.x + roundLabelPad
		if x+width(t) > right {
			break
		}
		if n := len(out); n > 0 && x < out[n-1].x+width(out[n-1].text)+roundLabelGap {
			return out, false
		}
		out = append(out, roundLabel{text: t, x: x})
	}
	return out, true
}

// nextStep is the step after k in 1, 2, 5, 10, 20, 50, …
func nextStep(k int) int {
	p := 1
	for p*10 <= k {
		p *= 10
	}
	switch k / p {
	case 1:
		return 2 * p
	case 2:
		return 5 * p
	}
	return 10 * p
}

// addStyleKey adds one legend entry per line style drawn, in black, below
// the row of round labels.
func addStyleKey(top *panel, drew staircaseDrawn, roundSeconds int) {
	top.addLegend("ordered", &plotter.Line{LineStyle: lineStyle(colBlack, 2.2, nil)})
	if drew.ready {
		top.addLegend("ready (serving)", &plotter.Line{LineStyle: lineStyle(colBlack, 1.5, dashed)})
	}
	if drew.needed {
		top.addLegend("needed at target", &plotter.Line{LineStyle: lineStyle(colBlack, 1.5, dotted)})
	}
	if drew.events {
		top.addLegend("scale event (new count)", &plotter.Scatter{GlyphStyle: glyph(colBlack, 3, draw.CircleGlyph{})})
	}
	if drew.capacity {
		top.addLegend("capacity meets demand", vmark{Style: lineStyle(colBlack, 1.2, dashDot)})
	}
	if roundSeconds > 0 {
		top.addLegend("round start (1 round = "+units.Seconds(roundSeconds)+")", roundStarts{})
	}
}

// fitPodAxis fits the pod axis to the positive counts drawn, [lo, hi]: a
// log axis when they span a factor of 16 or more (doublings are then equal
// steps), else a linear one from 0; both leave headroom for the round
// labels at the top.
func fitPodAxis(top *panel, lo, hi float64) {
	if math.IsInf(lo, 1) { // no positive replica count at all
		lo, hi = 1, 1
	}
	if hi/lo >= 16 {
		floor := math.Max(lo/1.3, 0.8)
		logAxis(&top.plot.Y, floor, hi*math.Pow(hi/lo, 0.12))
		for _, s := range top.series { // a log axis cannot show 0 pods
			for i := range s.xys {
				s.xys[i].Y = math.Max(s.xys[i].Y, floor)
			}
		}
		return
	}
	top.plot.Y.Min, top.plot.Y.Max = 0, hi*1.15
}

// waitPanel draws each run's waiting time in its colour, with the latency
// target when the workload states one, over every run's span [xmin, xmax].
func waitPanel(w contract.Workload, runs []contract.SizeOverload, top *panel, xmin, xmax float64, txt *measuringText) *panel {
	bottom := newPanel("", timeLabel(xmin, xmax), "waiting time (s)", txt)
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
		bottom.addLegend(fmt.Sprintf("%s: peak wait %s", fmtK(o.K), units.Duration(o.PeakWaitSeconds)), l)
	}
	if target, ok := latencyTarget(w); ok {
		bottom.plot.Add(hmark{Y: target, Style: lineStyle(colBlack, 1.2, dashed)})
		bottom.addLegend("latency target "+units.Duration(target), hmark{Style: lineStyle(colBlack, 1.2, dashed)})
		wmax = math.Max(wmax, target)
	}
	bottom.plot.X.Min, bottom.plot.X.Max = xmin, xmax
	bottom.plot.X.Tick.Marker = top.plot.X.Tick.Marker
	bottom.plot.Y.Min, bottom.plot.Y.Max = 0, math.Max(wmax*1.1, 1)
	return bottom
}

// sizeHeader is the figure's first title line: the workload and its
// growth factor.
func sizeHeader(w contract.Workload) string {
	return fmt.Sprintf("Size bill: %s (growth factor %s)", workloadID(w), fmtNum(w.Size.GrowthFactor))
}

// overloadTitle is one overload's panel title: its bill in a line.
func overloadTitle(w contract.Workload, o contract.SizeOverload) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s overload: ", fmtK(o.K))
	if o.TimeToCapacitySeconds != nil {
		b.WriteString("capacity at " + units.Seconds(*o.TimeToCapacitySeconds))
		if o.Rounds != nil {
			rounds := units.Count(*o.Rounds, "round", "rounds")
			if o.RoundsBound != nil {
				fmt.Fprintf(&b, " (%s, bound %d)", rounds, *o.RoundsBound)
			} else {
				fmt.Fprintf(&b, " (%s)", rounds)
			}
		}
	} else {
		b.WriteString("capacity never met" + neverReason(w, o))
	}
	// The peak wait is in the waiting-time panel's legend: a longer title
	// would run past the panel.
	fmt.Fprintf(&b, ", peak %d pods vs %d needed", o.PeakReplicas, o.NeededReplicas)
	return b.String()
}

// neverReason says why capacity never meets an overload: the dead band,
// or maxReplicas reached (and when) short of the pods needed.
func neverReason(w contract.Workload, o contract.SizeOverload) string {
	switch {
	case w.Size.DeadBand:
		return " (dead band: never scales on saturation)"
	case w.MaxReplicas > 0 && o.PeakReplicas >= int(w.MaxReplicas):
		if tl := o.Timeline; tl != nil {
			for i, r := range tl.Replicas {
				if r >= w.MaxReplicas && i < len(tl.T) {
					return fmt.Sprintf(" (maxReplicas %d reached at %s)", w.MaxReplicas, units.Seconds(tl.T[i]))
				}
			}
		}
		return fmt.Sprintf(" (maxReplicas %d reached)", w.MaxReplicas)
	}
	return ""
}

// latencyTarget reads the latency-target assumption ("30s", "2m", "45"),
// in seconds.
func latencyTarget(w contract.Workload) (float64, bool) {
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
