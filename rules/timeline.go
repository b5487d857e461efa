package rules

import "github.com/capreport/capreport/analyze/sim"

// timelinePoints bounds a timeline: enough for a readable plot, small enough
// that a report of a thousand workloads stays a few megabytes.
const timelinePoints = 240

// sizeTimeline down-samples a Size run, keeping the maximum replica count
// and wait of each bucket (a staircase must not lose its top step).
func sizeTimeline(r *sim.SizeResult, baseline int32) *Timeline {
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
func timeTimeline(r *sim.TimeResult) *Timeline {
	tl := downsample(r.Series, 0, len(r.Series.Replicas))
	tl.Needed = make([]float64, len(tl.T))
	for i := range tl.Needed {
		tl.Needed[i] = r.NeededReplicas
	}
	return tl
}

// downsample takes every bucket's maximum over [from, to) of the series.
func downsample(s *sim.Series, from, to int) *Timeline {
	n := to - from
	step := max(1, (n+timelinePoints-1)/timelinePoints)
	tl := &Timeline{}
	for i := from; i < to; i += step {
		end := min(i+step, to)
		var rep, ready int32
		var backlog, wait float64
		for j := i; j < end; j++ {
			rep = max(rep, s.Replicas[j])
			ready = max(ready, s.Serving[j])
			backlog = max(backlog, s.Backlog[j])
			wait = max(wait, s.Wait[j])
		}
		tl.T = append(tl.T, int(s.Start)+i)
		tl.Replicas = append(tl.Replicas, rep)
		tl.Ready = append(tl.Ready, ready)
		tl.Backlog = append(tl.Backlog, backlog)
		tl.Wait = append(tl.Wait, wait)
	}
	return tl
}
