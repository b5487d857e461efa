package plot

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figure is what a build function returns: the gonum plots (one per panel,
// top to bottom) and a record of what was added to each, which the tests
// read back (gonum keeps its plotters and legend entries unexported).
type figure struct {
	panels        []*panel
	weights       []float64 // relative panel heights
	width, height vg.Length
}

type panel struct {
	plot   *plot.Plot
	series []series
	legend []string
	// xLabel is the X axis label of a log axis, drawn by figure.draw:
	// gonum reserves room for a centred axis label at the centre of the
	// data range, which on a log axis sits near the right end and shrinks
	// the plot by half the label's width.
	xLabel string
}

// series is one plotted data set, by its legend name (or a fixed name for
// unlabelled helpers such as the rest region).
type series struct {
	name string
	xys  plotter.XYs
}

func (f *figure) title() string {
	if len(f.panels) == 0 {
		return ""
	}
	return f.panels[0].plot.Title.Text
}

// draw stacks the panels top to bottom in proportion to their weights, with
// their data areas aligned left and right so they share the time axis.
func (f *figure) draw(dc draw.Canvas) {
	// A margin, so that no glyph (a rotated axis label's descent) touches
	// the edge.
	dc = draw.Crop(dc, canvasMargin, -canvasMargin, canvasMargin, -canvasMargin)
	total := 0.0
	for _, w := range f.weights {
		total += w
	}
	cs := make([]draw.Canvas, len(f.panels))
	top := dc.Max.Y
	height := dc.Max.Y - dc.Min.Y
	for i := range f.panels {
		h := height * vg.Length(f.weights[i]/total)
		cs[i] = draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Min.X, Y: top - h},
			Max: vg.Point{X: dc.Max.X, Y: top},
		}}
		top -= h
	}
	for i, p := range f.panels {
		defer p.drawTitle(&cs[i])()
	}
	// The legends sit in a strip right of the data areas, one width for
	// every panel so the time axes stay aligned: inside the data they
	// covered the lines they name.
	strip := f.legendStrip()
	for i := range cs {
		cs[i].Max.X -= strip
	}
	var left, right vg.Length
	das := make([]draw.Canvas, len(f.panels))
	for i, p := range f.panels {
		das[i] = p.plot.DataCanvas(cs[i])
		left = max(left, das[i].Min.X-cs[i].Min.X)
		right = max(right, cs[i].Max.X-das[i].Max.X)
	}
	for i, p := range f.panels {
		da := das[i]
		c := draw.Crop(cs[i], left-(da.Min.X-cs[i].Min.X), -(right - (cs[i].Max.X - da.Max.X)), 0, 0)
		// Legend.Draw places entries from the data area's left edge:
		// offset them past its right edge, into the strip.
		dc := p.plot.DataCanvas(c)
		p.plot.Legend.XOffs = dc.Max.X - dc.Min.X + legendGap
		p.plot.Legend.YOffs = 0
		p.plot.Draw(c)
		if p.xLabel != "" {
			sty := p.plot.X.Label.TextStyle
			da := p.plot.DataCanvas(c)
			x := (da.Min.X + da.Max.X) / 2
			c.FillText(sty, vg.Point{X: x, Y: c.Min.Y + sty.FontExtents().Descent}, p.xLabel)
		}
	}
}

// canvasMargin is kept free around a figure.
const canvasMargin = vg.Length(3)

// drawTitle draws the panel's title itself, left-aligned across the whole
// width of c and wrapped to it, and takes its height off the top of c:
// gonum centres a title over the data area, which a long one (an
// autoscaler's id, a 30x bill) overflows on both sides, drawn at a
// negative x. It returns what puts the title back (the figure's alt text
// reads it).
func (p *panel) drawTitle(c *draw.Canvas) (restore func()) {
	title := p.plot.Title.Text
	txt, ok := p.plot.TextHandler.(*measuringText)
	if title == "" || !ok {
		return func() {}
	}
	sty := p.plot.Title.TextStyle
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	wrapped := txt.wrap(title, sty.Font, c.Max.X-c.Min.X)
	c.FillText(sty, vg.Point{X: c.Min.X, Y: c.Max.Y}, wrapped)
	c.Max.Y -= sty.Height(wrapped) + p.plot.Title.Padding
	p.plot.Title.Text = ""
	return func() { p.plot.Title.Text = title }
}

// logX makes the X axis logarithmic over [lo, hi], keeping its label.
func (p *panel) logX(lo, hi float64) {
	logAxis(&p.plot.X, lo, hi)
	if p.plot.X.Label.Text != "" && p.plot.X.Label.Text != " " {
		p.xLabel = p.plot.X.Label.Text
		p.plot.X.Label.Text = " " // reserves the label's height, not its width
	}
}

// Okabe–Ito colour-blind-safe palette (Okabe & Ito, 2008). Yellow is left
// out of the series order: it does not read on white.
var (
	colBlack     = color.NRGBA{0x00, 0x00, 0x00, 0xff}
	colOrange    = color.NRGBA{0xE6, 0x9F, 0x00, 0xff}
	colSkyBlue   = color.NRGBA{0x56, 0xB4, 0xE9, 0xff}
	colGreen     = color.NRGBA{0x00, 0x9E, 0x73, 0xff}
	colBlue      = color.NRGBA{0x00, 0x72, 0xB2, 0xff}
	colVermilion = color.NRGBA{0xD5, 0x5E, 0x00, 0xff}
	colPurple    = color.NRGBA{0xCC, 0x79, 0xA7, 0xff}
	colGrey      = color.NRGBA{0x88, 0x88, 0x88, 0xff}
	colGridGrey  = color.NRGBA{0xdd, 0xdd, 0xdd, 0xff}

	seriesColors = []color.NRGBA{colBlue, colVermilion, colGreen, colPurple, colOrange, colSkyBlue}
)

func seriesColor(i int) color.NRGBA { return seriesColors[i%len(seriesColors)] }

// tint is c at the given opacity, for shaded regions.
func tint(c color.NRGBA, alpha uint8) color.NRGBA {
	c.A = alpha
	return c
}

// Dash patterns.
var (
	dashed  = []vg.Length{vg.Points(6), vg.Points(3)}
	dotted  = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
	dashDot = []vg.Length{vg.Points(7), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)}
)

func lineStyle(c color.Color, width float64, dashes []vg.Length) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(width), Dashes: dashes}
}

// Fonts: a sans face reads better at small sizes than gonum's default serif.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPanel returns a plot with the house style: sans fonts sized for a
// 960-px-wide image, a light grid, the legend at the top (figure.draw
// moves it right of the data area).
func newPanel(title, xLabel, yLabel string, txt *measuringText) *panel {
	p := plot.New()
	p.TextHandler = txt
	p.Title.TextStyle.Handler = txt
	p.X.Label.TextStyle.Handler = txt
	p.Y.Label.TextStyle.Handler = txt
	p.X.Tick.Label.Handler = txt
	p.Y.Tick.Label.Handler = txt
	p.Legend.TextStyle.Handler = txt
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 14)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, 10)
		a.Padding = vg.Points(2)
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font = font.From(sans, 10)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Points(2.5)
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.X.Tick.Marker = linTicks{}
	p.Y.Tick.Marker = linTicks{}
	g := plotter.NewGrid()
	g.Horizontal = lineStyle(colGridGrey, 0.6, nil)
	g.Vertical = lineStyle(colGridGrey, 0.6, nil)
	p.Add(g)
	return &panel{plot: p}
}

// line adds a line plotter and records it under name; legends are added
// separately (addLegend), since several series often share one entry.
func (p *panel) line(name string, xys plotter.XYs, sty draw.LineStyle, step plotter.StepKind) *plotter.Line {
	if step == plotter.PostStep {
		xys = compactSteps(xys)
	}
	l := &plotter.Line{XYs: xys, LineStyle: sty, StepStyle: step}
	p.plot.Add(flatLine{l})
	p.series = append(p.series, series{name: name, xys: xys})
	return l
}

// compactSteps drops the points of a step series that repeat the value
// before them, keeping the last point: a PostStep line through the result
// is the same line, drawn with a tenth of the points for typical replica
// timelines.
func compactSteps(xys plotter.XYs) plotter.XYs {
	if len(xys) < 3 {
		return xys
	}
	out := plotter.XYs{xys[0]}
	for i := 1; i < len(xys)-1; i++ {
		if xys[i].Y != out[len(out)-1].Y {
			out = append(out, xys[i])
		}
	}
	return append(out, xys[len(xys)-1])
}

// flatLine is a line without glyph boxes: gonum pads the data area so that
// every point's half line width fits, at the cost of one box per point on
// every layout pass (a third of the drawing time for long timelines), for
// a padding of one point.
type flatLine struct{ l *plotter.Line }

func (f flatLine) Plot(c draw.Canvas, p *plot.Plot)            { f.l.Plot(c, p) }
func (f flatLine) DataRange() (xmin, xmax, ymin, ymax float64) { return f.l.DataRange() }

// points adds a scatter plotter and records it under name.
func (p *panel) points(name string, xys plotter.XYs, glyph draw.GlyphStyle) *plotter.Scatter {
	s := &plotter.Scatter{XYs: xys, GlyphStyle: glyph}
	p.plot.Add(s)
	p.series = append(p.series, series{name: name, xys: xys})
	return s
}

func (p *panel) addLegend(name string, thumbs ...plot.Thumbnailer) {
	p.plot.Legend.Add(name, thumbs...)
	p.legend = append(p.legend, name)
}

// vmark is a vertical line across the whole data area at X, with an
// optional label at its top; it does not widen the axes.
type vmark struct {
	X      float64
	Label  string
	Style  draw.LineStyle
	Color  color.Color // label colour
	Bottom bool        // label at the bottom instead of the top
}

func (m vmark) Plot(c draw.Canvas, p *plot.Plot) {
	if m.X < p.X.Min || m.X > p.X.Max {
		return
	}
	trX, _ := p.Transforms(&c)
	x := trX(m.X)
	c.StrokeLine2(m.Style, x, c.Min.Y, x, c.Max.Y)
	if m.Label == "" {
		return
	}
	sty := p.X.Tick.Label
	sty.Color = m.Color
	sty.XAlign = draw.XLeft
	if x+vg.Points(3)+sty.Width(m.Label) > c.Max.X {
		return // would run off the chart
	}
	pt := vg.Point{X: x + vg.Points(3), Y: c.Max.Y - vg.Points(3)}
	sty.YAlign = draw.YTop
	if m.Bottom {
		pt.Y = c.Min.Y + vg.Points(3)
		sty.YAlign = draw.YBottom
	}
	c.FillText(sty, pt, m.Label)
}

func (m vmark) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(m.Style, x, c.Min.Y, x, c.Max.Y)
}

// hmark is a horizontal line across the whole data area at Y; it does not
// widen the axes.
type hmark struct {
	Y     float64
	Style draw.LineStyle
}

func (m hmark) Plot(c draw.Canvas, p *plot.Plot) {
	if m.Y < p.Y.Min || m.Y > p.Y.Max {
		return
	}
	_, trY := p.Transforms(&c)
	y := trY(m.Y)
	c.StrokeLine2(m.Style, c.Min.X, y, c.Max.X, y)
}

func (m hmark) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(m.Style, c.Min.X, y, c.Max.X, y)
}

// legendGap separates the legend strip from the data area.
const legendGap = vg.Length(12)

// legendStrip is the width right of the data areas that holds the widest
// legend of the figure, 0 when no panel has one.
// maxLegendShare is the most of a figure's width its legend strip takes:
// a figure whose legend is longer is made wider, not its plot narrower
// (the Φ figure's legend squeezed its plot to half the width).
const maxLegendShare = 0.35

// fitLegend widens the figure so that its legend strip takes at most
// maxLegendShare of the width.
func (f *figure) fitLegend() {
	f.width = max(f.width, f.legendStrip()/maxLegendShare)
}

func (f *figure) legendStrip() vg.Length {
	var w vg.Length
	for _, p := range f.panels {
		if len(p.legend) == 0 {
			continue
		}
		r := p.plot.Legend.Rectangle(draw.Canvas{})
		w = max(w, r.Max.X-r.Min.X)
	}
	if w == 0 {
		return 0
	}
	return w + legendGap + vg.Points(6)
}

// textMark is a text at a data point, centred; it does not widen the axes.
type textMark struct {
	X, Y  float64
	Text  string
	Color color.Color
}

func (m textMark) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := p.Y.Label.TextStyle
	sty.Color = m.Color
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YCenter
	sty.Rotation = 0
	c.FillText(sty, vg.Point{X: trX(m.X), Y: trY(m.Y)}, m.Text)
}

// fillThumb is a legend thumbnail of a filled box.
type fillThumb struct{ Color color.Color }

func (f fillThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y},
	}
	c.FillPolygon(f.Color, c.ClipPolygonXY(pts))
}

// niceTicks marks a log axis at 1, 2 and 5 times each power of ten, with
// unlabelled minor ticks in between; gonum's LogTicks labels only the
// powers of ten.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logAxis makes a a log axis over [lo, hi] with niceTicks.
func logAxis(a *plot.Axis, lo, hi float64) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = niceTicks{}
	a.Min, a.Max = lo, hi
}

// linTicks marks a linear axis at a round step (1, 2, 2.5 or 5 × 10ⁿ)
// giving about eight labels, or at Step when it is set, labelled without
// trailing zeros; gonum's default labels 500 as "500.00" next to 250.00.
type linTicks struct{ Step float64 }

func (t linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step := t.Step
	if !(step > 0) || (hi-lo)/step > 16 {
		raw := (hi - lo) / 8
		p := math.Pow(10, math.Floor(math.Log10(raw)))
		step = 10 * p
		for _, m := range []float64{1, 2, 2.5, 5} {
			if m*p >= raw {
				step = m * p
				break
			}
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: stepLabel(v, step)})
		// an unlabelled minor tick half way
		if m := v + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// stepLabel writes v, a multiple of step, with no more decimals than step
// has: 96 × 0.2 is 19.200000000000003, whose label ran over the next
// tick's.
func stepLabel(v, step float64) string {
	dec := 0
	for s := step; dec < 12 && math.Abs(s-math.Round(s)) > 1e-9*s; s *= 10 {
		dec++
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', dec, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// intTicks marks whole numbers only, at a step that keeps about eight labels.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	step := math.Max(1, math.Ceil((hi-lo)/8))
	var ticks []plot.Tick
	for v := math.Ceil(lo); v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// glyph returns a glyph style.
func glyph(c color.Color, radius float64, shape draw.GlyphDrawer) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(radius), Shape: shape}
}

// fmtNum formats a number for a title or legend: whole numbers without
// decimals, others with up to three significant digits.
func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// fmtK formats an overload multiple: "10x", "2.5x".
func fmtK(k float64) string { return fmtNum(k) + "x" }

// timeSteps are the round steps of a time axis, in seconds: seconds, then
// whole minutes, then hours.
var timeSteps = []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200}

// minutesPast is the span past which a time axis reads in minutes.
const minutesPast = 600

// timeTicks marks a time axis (seconds after the step) at the first round
// step that gives at most ten labels, in minutes when the axis spans more
// than ten of them: a step derived from the round length put ticks at
// 37.5-s steps.
type timeTicks struct{}

func (timeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if (hi-lo)/s <= 10 {
			step = s
			break
		}
	}
	unit := timeUnitOf(lo, hi)
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi; i++ {
		v := i * step
		if v == 0 {
			v = 0 // not −0, which labels as "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: unit.label(v)})
		if m := v + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// timeLabel is the time axis's label, in the unit timeTicks labels it in.
func timeLabel(lo, hi float64) string {
	return "time after the demand step (" + timeUnitOf(lo, hi).name + ")"
}

// hoursPast is the end of a time axis past which it reads in hours and
// minutes: a late window of a long run read "1080-1200 min".
const hoursPast = 2 * 3600

// axisUnit is how a time axis labels its ticks.
type axisUnit struct {
	name  string
	label func(seconds float64) string
}

var (
	unitSeconds = axisUnit{"s", func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }}
	unitMinutes = axisUnit{"min", func(v float64) string { return strconv.FormatFloat(v/60, 'f', -1, 64) }}
	unitHours   = axisUnit{"h:mm", func(v float64) string {
		sign := ""
		if v < 0 {
			sign, v = "-", -v
		}
		m := int(math.Round(v / 60))
		return fmt.Sprintf("%s%d:%02d", sign, m/60, m%60)
	}}
)

// timeUnitOf is the unit of an axis over [lo, hi] seconds: seconds for a
// short span, minutes for a longer one, hours and minutes for one that
// ends past hoursPast.
func timeUnitOf(lo, hi float64) axisUnit {
	switch {
	case hi-lo <= minutesPast:
		return unitSeconds
	case hi > hoursPast:
		return unitHours
	}
	return unitMinutes
}
