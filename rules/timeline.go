package rules

import (
	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/contract"
)

// timelineBuckets bounds a timeline (two points a bucket): enough for a
// readable plot, small enough that a report of a thousand workloads stays a
// few megabytes.
const timelineBuckets = 160

// sizeTimeline down-samples a Size run, keeping the maximum replica count
// and wait of each bucket (a staircase must not lose its top step).
func sizeTimeline(r *sim.SizeResult, baseline int32) *contract.Timeline {
	s := r.Series
	tl := downsample(s, 0, len(s.Replicas))
	needed := float64(r.NeededReplicas)
	tl.Needed = make([]float64, len(tl.T))
	for i, t := range tl.T {
		if t < 0 {
			tl.Needed[i] = float64(baseline)
		} else {
			tl.Needed[i] = needed
		}
	}
	return tl
}

// timeTimeline down-samples the recorded tail of a Time run.
func timeTimeline(r *sim.TimeResult) *contract.Timeline {
	tl := downsample(r.Series, 0, len(r.Series.Replicas))
	tl.Needed = make([]float64, len(tl.T))
	for i := range tl.Needed {
		tl.Needed[i] = r.NeededReplicas
	}
	return tl
}

// downsample reduces [from, to) of the series to at most 2·timelineBuckets
// points. Each bucket contributes the seconds of its lowest and its highest
// replica count, in the order they happened, so neither a staircase's top
// step nor a hunt's trough is lost; every series is read at those seconds,
// so each point is one real second of the run (the bill carries the exact
// peaks).
func downsample(s *sim.Series, from, to int) *contract.Timeline {
	n := to - from
	step := max(1, (n+timelineBuckets-1)/timelineBuckets)
	tl := &contract.Timeline{}
	for i := from; i < to; i += step {
		end := min(i+step, to)
		lo, hi := i, i
		for j := i; j < end; j++ {
			if s.Replicas[j] < s.Replicas[lo] {
				lo = j
			}
			if s.Replicas[j] > s.Replicas[hi] {
				hi = j
			}
		}
		points := []int{min(lo, hi), max(lo, hi)}
		if lo == hi {
			points = points[:1]
		}
		for _, j := range points {
			tl.T = append(tl.T, int(s.Start)+j)
			tl.Replicas = append(tl.Replicas, s.Replicas[j])
			tl.Serving = append(tl.Serving, s.Serving[j])
			tl.Backlog = append(tl.Backlog, s.Backlog[j])
			tl.Wait = append(tl.Wait, s.Wait[j])
		}
	}
	return tl
}
