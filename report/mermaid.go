package report

import (
	"github.com/capreport/capreport/report/internal/mermaid"
	"github.com/capreport/capreport/rules"
)

// maxChartPoints bounds a Mermaid series: more points do not make the
// comment chart clearer, and each one costs comment budget.
const maxChartPoints = mermaid.MaxPoints

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

// mermaidChart renders a Timeline as a Mermaid xychart-beta block (GitHub
// renders it in comments; no image hosting, works for forks): the replicas,
// each point the peak of its interval, then the pods needed when the
// timeline has them. It returns "" when the series is unusable, rather than
// a chart that would not parse.
func mermaidChart(tl *rules.Timeline, title string) string {
	if tl == nil {
		return ""
	}
	ch := mermaid.XYChart{
		Title: title, XTitle: "seconds after the step", X: tl.T, YTitle: "pods",
		Lines: []mermaid.Line{{Values: mermaid.Counts(tl.Replicas), Peak: true}},
	}
	if len(tl.Needed) == len(tl.T) {
		// The need steps once, at the demand step: read it at the point's
		// own time so that it does not show before the step.
		ch.Lines = append(ch.Lines, mermaid.Line{Values: tl.Needed})
	}
	return ch.String()
}
