package report

import (
	"strings"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mdoc"
	"github.com/capreport/capreport/report/internal/mermaid"
)

// chartTimeline picks the series a workload's chart shows and says what it
// is: the Time bill's run, or the Size bill's run at the largest design
// overload that carries one.
func chartTimeline(w contract.Workload) (*contract.Timeline, string) {
	if w.Time != nil && w.Time.Timeline != nil {
		return w.Time.Timeline, "Replicas after the demand step"
	}
	if w.Size != nil {
		var best *contract.SizeOverload
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
// then the pods needed when the timeline has them, with a caption that
// names the colours, as mdoc.Chart embeds it. It returns "" when the
// series is unusable, rather than a chart that would not parse.
func mermaidChart(tl *contract.Timeline, title string) string {
	if tl == nil {
		return ""
	}
	ch := mermaid.XYChart{
		Title: title, YTitle: "pods",
		Lines: []mermaid.Series{{T: tl.T, V: mermaid.Counts(tl.Replicas)}},
	}
	caption := mermaid.Palette[0].Name + ": replicas"
	if len(tl.Needed) == len(tl.T) {
		ch.Lines = append(ch.Lines, mermaid.Series{T: tl.T, V: tl.Needed})
		caption += "; " + mermaid.Palette[1].Name + ": pods needed"
	}
	return mdoc.Chart(ch, upperFirst(caption)+".")
}

// upperFirst starts a caption with a capital.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
