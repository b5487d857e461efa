package diff

import (
	"fmt"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mermaid"
)

// MaxCharts is how many changed autoscalers get a before/after chart: the
// worst few, so the comment stays readable and within its budget.
const MaxCharts = 3

// chartPair picks the two timelines a change can be drawn from: the Time
// runs, or the Size runs at the largest design overload both sides priced
// with a timeline. ok is false for added or removed autoscalers and when a
// side has no series (--no-timelines, or a bill of another kind).
func chartPair(c Change) (base, head *contract.Timeline, title string, ok bool) {
	if c.Base == nil || c.Head == nil {
		return nil, nil, "", false
	}
	b, h := c.Base, c.Head
	if b.Time != nil && h.Time != nil && usable(b.Time.Timeline) && usable(h.Time.Timeline) {
		return b.Time.Timeline, h.Time.Timeline, "Replicas after the demand step", true
	}
	if b.Size != nil && h.Size != nil {
		var best *contract.SizeOverload
		for i := range h.Size.Overloads {
			ho := &h.Size.Overloads[i]
			bo := overloadAt(b.Size, ho.K)
			if bo != nil && usable(bo.Timeline) && usable(ho.Timeline) && (best == nil || ho.K > best.K) {
				best = ho
			}
		}
		if best != nil {
			return overloadAt(b.Size, best.K).Timeline, best.Timeline, "Replicas after a " + kText(best.K) + " step", true
		}
	}
	return nil, nil, "", false
}

func usable(tl *contract.Timeline) bool {
	return tl != nil && len(tl.T) > 0 && len(tl.Replicas) == len(tl.T)
}

// chartChanges are the changes the comment draws, in the Result's order
// (new failures and other changes for the worse first, improvements last),
// at most MaxCharts of them: a reviewer needs the picture of what got worse
// more than of what got better.
func chartChanges(r Result) []int {
	var out []int
	for i, c := range r.Changes {
		if len(out) == MaxCharts {
			break
		}
		if _, _, _, ok := chartPair(c); ok {
			out = append(out, i)
		}
	}
	return out
}

// mermaidPair draws base and head replicas on one time axis as two line
// series of an xychart-beta block; each is read as a step function of its
// own sample times, so runs sampled differently share the axis.
func mermaidPair(base, head *contract.Timeline, title string) mermaid.XYChart {
	return mermaid.XYChart{
		Title: title, YTitle: "pods",
		Lines: []mermaid.Series{
			{T: base.T, V: mermaid.Counts(base.Replicas)},
			{T: head.T, V: mermaid.Counts(head.Replicas)},
		},
	}
}

// chartCaption names the lines' colours: xychart-beta draws no legend.
func chartCaption() string {
	return fmt.Sprintf("Lines: %s base, %s head.", mermaid.Palette[0].Name, mermaid.Palette[1].Name)
}
