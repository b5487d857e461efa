package sim

import (
	"reflect"
	"slices"

	"github.com/capreport/capreport/analyze/hpa"
)

// SizeTrunk is one workload's Size run up to the end of the second before
// the step. Before t = 0 the demand is λ0 whatever the overload, so every
// overload of the workload (and the rounds sweep) would simulate the same
// warm-up, ten minutes of syncs; a trunk simulates it once and each run
// goes on from a copy of it.
type SizeTrunk struct {
	o SizeOptions // as defaulted, with what each run sets cleared (runKey)
	r *sizeRun    // at the end of second −1, with series and waits
}

// NewSizeTrunk simulates o's warm-up (o.Overload may be anything valid; the
// series and the waits are kept, and no budget applies). It returns nil if
// o is invalid: Simulate on a nil trunk is SimulateSize.
func NewSizeTrunk(o SizeOptions) *SizeTrunk {
	o.Series, o.RoundsOnly, o.MaxWork, o.MaxReads = true, false, 0, 0
	if err := o.defaults(); err != nil {
		return nil
	}
	r := newSizeRun(o)
	if err := r.steps(-o.Warmup, -1); err != nil {
		return nil
	}
	return &SizeTrunk{o: runKey(o), r: r}
}

// runKey clears the options a run may set differently from its trunk.
func runKey(o SizeOptions) SizeOptions {
	o.Overload, o.DemandAfter, o.Series, o.RoundsOnly, o.MaxWork, o.MaxReads = 0, 0, false, false, 0, 0
	return o
}

// Simulate is SimulateSize(o) for o that differs from the trunk's options
// only in Overload, DemandAfter, Series, RoundsOnly, MaxWork and MaxReads:
// the same result, without the warm-up. Other options, or budgets the
// warm-up alone exceeds, run in full.
func (tr *SizeTrunk) Simulate(o SizeOptions) (*SizeResult, error) {
	if tr == nil {
		return SimulateSize(o)
	}
	if err := o.defaults(); err != nil {
		return nil, err
	}
	w := tr.r.res
	if !reflect.DeepEqual(runKey(o), tr.o) || o.MaxWork > 0 && w.Work > o.MaxWork || o.MaxReads > 0 && w.Reads > o.MaxReads {
		// The budgets only grow over a run: within them at −1, the warm-up
		// never exceeded them.
		return SimulateSize(o)
	}
	r := tr.r.clone(o)
	if err := r.steps(0, r.end); err != nil {
		return nil, err
	}
	return r.finish(), nil
}

// clone copies the run for the options o of one overload: everything that
// later seconds change is copied, what they only read is shared.
func (r *sizeRun) clone(o SizeOptions) *sizeRun {
	c := *r
	c.o = o
	f := *r.f
	f.cohorts = slices.Clone(r.f.cohorts)
	c.f = &f
	as := *r.as
	as.Recommendations = slices.Clone(r.as.Recommendations)
	as.ScaleUpEvents = slices.Clone(r.as.ScaleUpEvents)
	as.ScaleDownEvents = slices.Clone(r.as.ScaleDownEvents)
	c.as = &as
	c.samples = slices.Clone(r.samples)
	c.pods, c.metrics = make([]hpa.Pod, 0, 64), make(hpa.PodMetrics, 64)
	res := *r.res
	needed, _ := ceilPods(o.DemandAfter, o.restingUtilization()*o.PodRate) // checked by defaults
	res.DemandAfter, res.NeededReplicas = o.DemandAfter, needed
	res.ScaleEvents, res.Series, res.decidedAt = nil, nil, nil
	c.res = &res
	c.q.pending = slices.Clone(r.q.pending)
	c.q.done = nil
	if o.Series {
		s := *r.res.Series
		s.Replicas = append(make([]int32, 0, o.Horizon/4), s.Replicas...)
		s.Serving = append(make([]int32, 0, o.Horizon/4), s.Serving...)
		s.Backlog = append(make([]float64, 0, o.Horizon/4), s.Backlog...)
		s.Wait = append(make([]float64, 0, o.Horizon/4), s.Wait...)
		res.Series = &s
		c.q.done = s.setWait
	}
	return &c
}
