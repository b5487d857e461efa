// Package mermaid writes the Mermaid xychart-beta blocks of the report
// comment and the pull-request diff comment: GitHub renders them in place,
// so a chart needs no image hosting and works for forks.
//
// A chart has a numeric time axis (Mermaid labels about ten round ticks of
// it, where 60 category labels used to smear), a pod axis from 0 (a count
// read against a cut axis looks larger than it is), colours that read on
// GitHub's light and dark themes alike, and down-sampling by min/max
// envelope, so that a one-sample drop to 1 pod survives as well as a peak.
package mermaid

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capreport/capreport/report/internal/safetext"
)

// Buckets is how many time intervals a series is cut into; each gives two
// points (its lowest and highest value), so a line has at most 2·Buckets
// points: enough for a 20-hour hunt's troughs, few enough for the comment
// budget.
const Buckets = 60

// Palette names the line colours in order, for captions ("blue: base").
// Both are mid-luminance (contrast above 3:1 on white and on GitHub's dark
// #0d1117): Mermaid's own first xychart colour nearly vanishes on white.
var Palette = []struct{ Name, Hex string }{
	{"blue", "#2f81f7"},
	{"orange", "#e8590c"},
	{"green", "#2da44e"},
}

// EnvelopeNote is the caption's sentence on how a line was down-sampled.
const EnvelopeNote = "Each interval shows its lowest and highest value."

// Series is one line: values read as a step function of time (the last
// sample at or before t; the first sample before the series starts).
type Series struct {
	T []int // seconds, ascending
	V []float64
}

// XYChart is a line chart of one or more series over time since a step.
// The titles may come from manifests: they are made safe here.
type XYChart struct {
	Title  string
	YTitle string
	Lines  []Series
}

// String renders the chart as a fenced xychart-beta block, or "" when a
// series is empty or ragged, rather than a chart that would not parse.
func (c XYChart) String() string {
	t0, t1, ok := c.span()
	if !ok {
		return ""
	}
	buckets := min(Buckets, max(1, t1-t0))
	scale, xTitle := timeUnit(t1 - t0)
	top := 0.0
	lines := make([][]float64, len(c.Lines))
	for i, s := range c.Lines {
		lines[i] = envelope(s, t0, t1, buckets)
		for _, v := range lines[i] {
			top = math.Max(top, v)
		}
	}
	var b strings.Builder
	b.WriteString("```mermaid\n")
	fmt.Fprintf(&b, "%%%%{init: {\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"%s\"}}}}%%%%\n", paletteList())
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", safetext.MermaidLabel(c.Title))
	fmt.Fprintf(&b, "    x-axis \"%s\" %s --> %s\n", xTitle, plainNum(float64(t0)/scale), plainNum(float64(t1)/scale))
	fmt.Fprintf(&b, "    y-axis \"%s\" 0 --> %s\n", safetext.MermaidLabel(c.YTitle), plainNum(niceCeil(top)))
	for _, l := range lines {
		parts := make([]string, len(l))
		for i, v := range l {
			parts[i] = plainNum(v)
		}
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(parts, ", "))
	}
	b.WriteString("```\n")
	return b.String()
}

// span is the time axis that holds every series; ok is false when a series
// cannot be drawn.
func (c XYChart) span() (t0, t1 int, ok bool) {
	if len(c.Lines) == 0 {
		return 0, 0, false
	}
	t0, t1 = math.MaxInt, math.MinInt
	for _, s := range c.Lines {
		if len(s.T) == 0 || len(s.T) != len(s.V) {
			return 0, 0, false
		}
		t0, t1 = min(t0, s.T[0]), max(t1, s.T[len(s.T)-1])
	}
	if t1 == t0 {
		t1 = t0 + 1 // one instant: a flat line over one second
	}
	return t0, t1, true
}

// timeUnit reads a long axis in minutes: its ticks then fall on round
// minutes rather than on 500 s steps.
func timeUnit(span int) (scale float64, title string) {
	if span > 20*60 {
		return 60, "minutes after the step"
	}
	return 1, "seconds after the step"
}

func paletteList() string {
	hex := make([]string, len(Palette))
	for i, p := range Palette {
		hex[i] = p.Hex
	}
	return strings.Join(hex, ", ")
}

// envelope cuts [t0, t1] into n equal intervals and gives each two points,
// its lowest and its highest value in the order they occur, so both a peak
// and a trough within an interval survive. Mermaid spreads the 2n points
// evenly over the axis, which puts each within its own interval.
func envelope(s Series, t0, t1, n int) []float64 {
	out := make([]float64, 0, 2*n)
	width := float64(t1-t0) / float64(n)
	k := 0 // index of the last sample at or before the interval's start
	for i := range n {
		a := float64(t0) + float64(i)*width
		b := a + width
		for k+1 < len(s.T) && float64(s.T[k+1]) <= a {
			k++
		}
		lo, hi := s.V[k], s.V[k]
		loAt, hiAt := 0, 0
		for j := k + 1; j < len(s.T) && (float64(s.T[j]) < b || (i == n-1 && s.T[j] <= t1)); j++ {
			if v := s.V[j]; v < lo {
				lo, loAt = v, j
			} else if v > hi {
				hi, hiAt = v, j
			}
		}
		if loAt <= hiAt {
			out = append(out, lo, hi)
		} else {
			out = append(out, hi, lo)
		}
	}
	return out
}

// niceCeil is the top of the pod axis: the first round number (1, 1.2,
// 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) 5 % or more above the
// highest value, so that the line does not run along the chart's edge.
func niceCeil(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	x *= 1.05
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// Counts reads whole counts (replicas) as line values.
func Counts(v []int32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// plainNum formats a value without an exponent, which Mermaid would not
// parse, to two decimals; a whole count prints as a whole number.
func plainNum(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}
