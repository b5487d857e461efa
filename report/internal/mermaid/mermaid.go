// Package mermaid writes the Mermaid xychart-beta blocks of the report
// comment and the pull-request diff comment: GitHub renders them in place,
// so a chart needs no image hosting and works for forks.
package mermaid

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capreport/capreport/report/internal/safetext"
)

// MaxPoints bounds each series of a chart: more points do not make a
// comment chart clearer, and each one costs comment budget.
const MaxPoints = 60

// Line is one line series of a chart, one value per sample of the x axis.
type Line struct {
	Values []float64
	// Peak makes each point the highest value of its interval, so that a
	// down-sampled series keeps the overshoot a bill is about; otherwise a
	// point is the value at the interval's first sample (a need that steps
	// once then does not show before its step).
	Peak bool
}

// XYChart is a line chart over a category x axis of whole numbers (seconds,
// say). The titles may come from manifests: they are made safe here.
type XYChart struct {
	Title  string
	XTitle string
	X      []int // ascending samples
	YTitle string
	Lines  []Line
}

// String renders the chart as a fenced xychart-beta block. When there are
// more than MaxPoints samples, they are cut into MaxPoints consecutive
// intervals, each labelled by its first sample. It returns "" when the chart
// has no samples or a line does not have one value per sample, rather than
// a chart that would not parse.
func (c XYChart) String() string {
	if len(c.X) == 0 {
		return ""
	}
	for _, l := range c.Lines {
		if len(l.Values) != len(c.X) {
			return ""
		}
	}
	var xs []string
	lines := make([][]string, len(c.Lines))
	for _, iv := range intervals(len(c.X)) {
		// Quoted: a bare -60 (a sample before the step) is not a category
		// token every Mermaid version accepts.
		xs = append(xs, strconv.Quote(strconv.Itoa(c.X[iv[0]])))
		for i, l := range c.Lines {
			lines[i] = append(lines[i], plainNum(l.point(iv)))
		}
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", safetext.MermaidLabel(c.Title))
	fmt.Fprintf(&b, "    x-axis \"%s\" [%s]\n", safetext.MermaidLabel(c.XTitle), strings.Join(xs, ", "))
	fmt.Fprintf(&b, "    y-axis \"%s\"\n", safetext.MermaidLabel(c.YTitle))
	for _, l := range lines {
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(l, ", "))
	}
	b.WriteString("```\n")
	return b.String()
}

// point is the line's value for the samples [iv[0], iv[1]).
func (l Line) point(iv [2]int) float64 {
	v := l.Values[iv[0]]
	if l.Peak {
		for _, x := range l.Values[iv[0]:iv[1]] {
			v = max(v, x)
		}
	}
	return v
}

// intervals splits n samples into at most MaxPoints consecutive [start,
// end) ranges: intervals rather than every k-th sample, so that a point can
// show its interval's peak.
func intervals(n int) [][2]int {
	m := min(n, MaxPoints)
	out := make([][2]int, m)
	for i := range out {
		out[i] = [2]int{i * n / m, (i + 1) * n / m}
	}
	return out
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
