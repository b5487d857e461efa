package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capreport/capreport/rules"
)

// maxChartPoints bounds a Mermaid series: more points do not make the
// comment chart clearer, and each one costs comment budget.
const maxChartPoints = 60

// chartTimeline picks the series a workload's chart shows and says what it
// is: the Time bill's run, or the Size bill's run at the largest design
// overload that carries one.
func chartTimeline(w rules.Workload) (*rules.Timeline, string) {
	if w.Time != nil && w.Time.Timeline != nil {
		return w.Time.Timeline, "Replicas after the demand step"
	}
	if w.Size != nil {
		var best *rules.SizeOverload
		for i := range w.Size.Overloads {
			o := &w.Size.Overloads[i]
			if o.Timeline != nil && (best == nil || o.K > best.K) {
				best = o
			}
		}
		if best != nil {
			return best.Timeline, "Replicas after a " + overloadK(best.K) + " step"
		}
	}
	return nil, ""
}

// downsample splits n samples into at most maxChartPoints consecutive
// buckets and returns each bucket's [start, end) range. Buckets rather than
// every k-th sample so that the chart can show each bucket's peak: a
// decimated series would miss the overshoot the bill is about.
func downsample(n int) [][2]int {
	if n <= maxChartPoints {
		out := make([][2]int, n)
		for i := range out {
			out[i] = [2]int{i, i + 1}
		}
		return out
	}
	out := make([][2]int, maxChartPoints)
	for b := range out {
		out[b] = [2]int{b * n / maxChartPoints, (b + 1) * n / maxChartPoints}
	}
	return out
}

// mermaidChart renders a Timeline as a Mermaid xychart-beta block (GitHub
// renders it in comments; no image hosting, works for forks). It returns ""
// when the series is unusable, rather than a chart that would not parse.
func mermaidChart(tl *rules.Timeline, title string) string {
	if tl == nil || len(tl.T) == 0 || len(tl.Replicas) != len(tl.T) {
		return ""
	}
	hasNeeded := len(tl.Needed) == len(tl.T)
	var xs, reps, need []string
	for _, bk := range downsample(len(tl.T)) {
		// Quoted: a bare -60 is not a category token every Mermaid accepts.
		xs = append(xs, strconv.Quote(strconv.Itoa(tl.T[bk[0]])))
		peak := tl.Replicas[bk[0]]
		for i := bk[0]; i < bk[1]; i++ {
			peak = max(peak, tl.Replicas[i])
		}
		reps = append(reps, strconv.Itoa(int(peak)))
		// The need steps once, at the demand step: read it at the point's
		// own time so that it does not show before the step.
		if hasNeeded {
			need = append(need, plainNum(tl.Needed[bk[0]]))
		}
	}
	var b strings.Builder
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", mermaidLabel(title))
	fmt.Fprintf(&b, "    x-axis \"seconds after the step\" [%s]\n", strings.Join(xs, ", "))
	b.WriteString("    y-axis \"pods\"\n")
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(reps, ", "))
	if hasNeeded {
		fmt.Fprintf(&b, "    line [%s]\n", strings.Join(need, ", "))
	}
	b.WriteString("```\n")
	return b.String()
}

// plainNum formats a chart value without an exponent, which Mermaid would
// not parse, to two decimals.
func plainNum(x float64) string {
	return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
}
