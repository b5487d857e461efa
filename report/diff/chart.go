package diff

import (
	"github.com/capreport/capreport/report/internal/mermaid"
	"github.com/capreport/capreport/rules"
)

// MaxChartPoints bounds each series of the Mermaid chart: more points do not
// make a comment chart clearer, and each one costs comment budget.
const MaxChartPoints = mermaid.MaxPoints

// chartPair picks the two timelines a change can be drawn from: the Time
// runs, or the Size runs at the largest design overload both sides priced
// with a timeline. ok is false for added or removed autoscalers and when a
// side has no series (--no-timelines, or a bill of another kind).
func chartPair(c Change) (base, head *rules.Timeline, title string, ok bool) {
	if c.Base == nil || c.Head == nil {
		return nil, nil, "", false
	}
	b, h := c.Base, c.Head
	if b.Time != nil && h.Time != nil && usable(b.Time.Timeline) && usable(h.Time.Timeline) {
		return b.Time.Timeline, h.Time.Timeline, "Replicas after the demand step", true
	}
	if b.Size != nil && h.Size != nil {
		var best *rules.SizeOverload
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

func usable(tl *rules.Timeline) bool {
	return tl != nil && len(tl.T) > 0 && len(tl.Replicas) == len(tl.T)
}

// chartChange is the change the comment draws: the largest Score among those
// with a chartable pair, the first listed on a tie (so a new failure wins).
func chartChange(r Result) (int, bool) {
	best := -1
	for i, c := range r.Changes {
		if _, _, _, ok := chartPair(c); !ok {
			continue
		}
		if best < 0 || c.Score > r.Changes[best].Score {
			best = i
		}
	}
	return best, best >= 0
}

// mermaidPair draws base and head replicas on one time axis as two line
// series of an xychart-beta block. The two runs may be sampled at different
// times (a longer run, another down-sampling), so both are read as step
// functions on the union of their sample times; the chart shows the peak of
// each interval it cuts that union into, since a decimated series would miss
// the overshoot the bill is about.
func mermaidPair(base, head *rules.Timeline, title string) string {
	ts := unionTimes(base.T, head.T)
	return mermaid.XYChart{
		Title: title, XTitle: "seconds after the step", X: ts, YTitle: "pods",
		Lines: []mermaid.Line{{Values: stepValues(base, ts), Peak: true}, {Values: stepValues(head, ts), Peak: true}},
	}.String()
}

// unionTimes merges two ascending sample-time lists without duplicates.
func unionTimes(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var t int
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			t = a[i]
			i++
		case i >= len(a) || b[j] < a[i]:
			t = b[j]
			j++
		default:
			t = a[i]
			i++
			j++
		}
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}

// stepValues reads a timeline at each time of ts (ascending) as a step
// function: the last sample at or before t, the first sample before the
// series starts.
func stepValues(tl *rules.Timeline, ts []int) []float64 {
	out := make([]float64, len(ts))
	k := 0
	for i, t := range ts {
		for k+1 < len(tl.T) && tl.T[k+1] <= t {
			k++
		}
		out[i] = float64(tl.Replicas[k])
	}
	return out
}
