package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// SizeOptions describes one Size-row run: a CPU-utilization HPA and a k-fold
// step in request demand.
type SizeOptions struct {
	Controller Controller
	Pods       int32 // pods before the step, at rest at the target
	// RequestMilli and LimitMilli are one pod's CPU request and limit.
	RequestMilli int64
	LimitMilli   int64
	Target       int32 // target utilization, percent of the request
	// TargetAverageMilli, when set, is an AverageValue target in
	// milli-cores per pod instead of a utilization (Target is then
	// ignored): the controller's plain-average path, with no whole-percent
	// truncation.
	TargetAverageMilli int64
	PodRate            float64 // requests/s one pod serves at 100 % of its request
	DeadTime           int64   // seconds from the order to the first served request
	MetricWindow       int64   // seconds averaged in each CPU sample; 0 means 30
	// Efficiency is the fraction of its full rate a saturated pod still
	// serves while its CPU reads full; 0 means 1.
	Efficiency float64
	// DemandBefore is λ0 in requests/s; 0 means Pods × Target × PodRate.
	DemandBefore float64
	// Overload is k: demand after the step is k × DemandBefore, unless
	// DemandAfter is set.
	Overload    float64
	DemandAfter float64
	// Horizon bounds the run in seconds after the step; 0 means 6 hours.
	// The run ends earlier once the backlog has drained and the count has
	// settled.
	Horizon int64
	// Warmup is how long before the step the run starts; 0 means 600 s.
	Warmup int64
	// Series records the per-second state from one minute before the step.
	Series bool
	// RoundsOnly is for a caller that reads TimeToCapacity, Rounds and
	// Work alone (the rounds sweep): the run keeps no FIFO waits, and once
	// its outcome is decided without capacity met it only charges the
	// seconds left, in closed form. Its other figures stand where the run
	// stopped.
	RoundsOnly bool
	// MaxWork, when positive, bounds the run's work (ErrBudget beyond it):
	// one unit per simulated second and one per pod cohort the controller
	// reads at each sync. The cohorts alive at once grow with the dead time
	// over the sync period, so this bounds what annotations can ask for.
	MaxWork int64
	// MaxReads, when positive, bounds what the controller reads of its own
	// history at its syncs (controllerReads; ErrReadBudget beyond it).
	// MaxWork does not see it, and a 1-s sync under an hour's
	// stabilization window reads 3,600 recommendations a second. (The
	// metric window's samples, at most 900 a sync, config.RangeOf bounds.)
	MaxReads int64
	// exhaustive runs the controller to the end even once the outcome is
	// decided: the tests compare the two.
	exhaustive bool
}

// ErrBudget is returned by a run whose work would exceed its MaxWork.
var ErrBudget = errors.New("the simulation exceeds its work budget")

// ErrReadBudget is returned by a run whose controller would read more than
// its MaxReads.
var ErrReadBudget = errors.New("the controller's reads exceed their budget")

// SizeResult is the Size bill of one run. Times are seconds after the step.
type SizeResult struct {
	DemandBefore, DemandAfter float64
	// NeededReplicas is the count that carries the new demand at the
	// target: λ1 / (u* × pod rate), rounded up.
	NeededReplicas int32
	// TimeToCapacity is the first second at or after the step at which
	// serving capacity meets demand; nil if it never does.
	TimeToCapacity *int64
	// Rounds is ⌈TimeToCapacity / (dead time + metric window)⌉.
	Rounds       *int
	RoundSeconds int64
	PeakReplicas int32
	Overshoot    float64 // PeakReplicas / NeededReplicas
	PeakBacklog  float64
	PeakWait     float64 // seconds, FIFO wait of the worst second's arrivals
	// DrainedAt is the first second after capacity was met at which the
	// backlog is empty; nil if it never drains within the horizon.
	DrainedAt *int64
	// StatusUtilization is the utilization the HPA status reported at the
	// last sync (the first-pass value, unready pods left out).
	StatusUtilization int32
	ScaleEvents       []ScaleEvent
	End               int64 // last simulated second
	Series            *Series
	Work              int64 // units of SizeOptions.MaxWork spent
	Reads             int64 // units of SizeOptions.MaxReads spent
	// decidedAt is the sync after which the controller no longer ran (see
	// sizeRun.settled); nil if it ran to the end.
	decidedAt *int64
}

func (o *SizeOptions) defaults() error {
	switch {
	case o.Pods <= 0:
		return errors.New("pods must be positive")
	case o.RequestMilli <= 0:
		return errors.New("CPU request must be positive")
	case o.LimitMilli < o.RequestMilli:
		return errors.New("CPU limit must be at least the request")
	case o.Target <= 0 && o.TargetAverageMilli <= 0:
		return errors.New("the CPU target (utilization or average value) must be positive")
	case o.PodRate <= 0:
		return errors.New("pod rate must be positive")
	case o.DeadTime <= 0:
		return errors.New("dead time must be positive")
	case o.Controller.MaxReplicas <= 0:
		return errors.New("maxReplicas must be positive")
	case o.Efficiency < 0 || o.Efficiency > 1:
		return errors.New("saturated efficiency must be in (0, 1]")
	}
	if o.MetricWindow == 0 {
		o.MetricWindow = 30
	}
	if o.Efficiency == 0 {
		o.Efficiency = 1
	}
	if o.DemandBefore == 0 {
		o.DemandBefore = float64(o.Pods) * o.restingUtilization() * o.PodRate
	}
	if o.DemandAfter == 0 {
		if o.Overload <= 0 {
			return errors.New("overload must be positive")
		}
		o.DemandAfter = o.Overload * o.DemandBefore
	}
	if _, err := ceilPods(o.DemandAfter, o.restingUtilization()*o.PodRate); err != nil {
		return err
	}
	if o.Horizon == 0 {
		o.Horizon = 6 * 3600
	}
	if o.Warmup == 0 {
		o.Warmup = 600
	}
	return nil
}

// restingUtilization is the utilization pods run at before the step: the
// target, or the most a pod can use (limit/request) when the target is
// above it and can never be reached.
func (o *SizeOptions) restingUtilization() float64 {
	target := float64(o.Target) / 100
	if o.TargetAverageMilli > 0 {
		target = float64(o.TargetAverageMilli) / float64(o.RequestMilli)
	}
	return min(target, float64(o.LimitMilli)/float64(o.RequestMilli))
}

// SimulateSize runs the Size row (design/model.md, "Size row").
func SimulateSize(o SizeOptions) (*SizeResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	r := newSizeRun(o)
	if err := r.steps(-o.Warmup, r.end); err != nil {
		return nil, err
	}
	return r.finish(), nil
}

// steps simulates the seconds from … until (or the end, if sooner).
func (r *sizeRun) steps(from, until int64) error {
	o := &r.o
	for t := from; t <= min(r.end, until); t++ {
		if r.res.Work++; o.MaxWork > 0 && r.res.Work > o.MaxWork {
			return budgetError(t)
		}
		// 1. Pods whose dead time has passed serve.
		r.f.advance(t)
		r.flow(t)
		// 4. The HPA syncs; once the outcome is decided it can only hold
		// (settled), so the sync is charged without being run.
		switch {
		case !isSync(t, r.sync):
		case r.decided:
			r.f.retire(t - r.cip)
			r.res.Work += int64(podEntries(r.f))
		default:
			if err := r.chargeReads(t); err != nil {
				return err
			}
			if r.decided = r.syncAt(t) && !o.exhaustive; r.decided {
				d := t
				r.res.decidedAt = &d
				r.reserve(r.end - t)
			}
		}
		r.record(t)
		if r.decided && o.RoundsOnly && r.res.TimeToCapacity == nil {
			// Capacity is never met now, so no drain moves the end:
			// the rounds are known and the rest is only charged.
			return r.chargeRest(t + 1)
		}
	}
	return nil
}

// finish closes the run: waits still queued get their age so far.
func (r *sizeRun) finish() *SizeResult {
	res := r.res
	r.q.flush(res.End)
	res.PeakWait = r.q.peak
	res.Overshoot = float64(res.PeakReplicas) / float64(res.NeededReplicas)
	return res
}

// sizeRun is the state of one Size run between seconds.
type sizeRun struct {
	o    SizeOptions
	sync int64 // sync period, s
	cip  int64 // CPU initialization period, s
	calc hpa.Calculator
	as   *hpa.Autoscaler
	f    *fleet
	res  *SizeResult
	q    fifoWait
	// A pod serving at 100 % of its request handles PodRate; per core of
	// CPU that is PodRate / request.
	ratePerCore, limitCores float64
	// samples are the CPU samples of the last MetricWindow seconds, per
	// serving pod; saturatedFor counts the seconds in a row that read the
	// limit.
	samples      []float64
	saturatedFor int64
	backlog      float64
	pods         []hpa.Pod
	metrics      hpa.PodMetrics
	containers   []hpa.Container
	// end is the last second to simulate: the horizon, or settledAfter
	// past the drain.
	end, settledAfter int64
	// decided is set once the controller can only hold (see settled).
	decided bool
}

func newSizeRun(o SizeOptions) *sizeRun {
	ctl := o.Controller
	as := ctl.autoscaler()
	r := &sizeRun{
		o:           o,
		sync:        ctl.syncSeconds(),
		cip:         int64(ctl.Config.CPUInitializationPeriod / time.Second),
		calc:        as.Calculator(),
		as:          as,
		ratePerCore: o.PodRate / (float64(o.RequestMilli) / 1000),
		limitCores:  float64(o.LimitMilli) / 1000,
		samples:     make([]float64, o.MetricWindow),
		pods:        make([]hpa.Pod, 0, 64),
		metrics:     make(hpa.PodMetrics, 64),
		containers:  []hpa.Container{{Name: "app", Requests: map[string]int64{"cpu": o.RequestMilli}}},
		end:         o.Horizon,
	}
	r.settledAfter = o.MetricWindow + 2*r.sync + o.DeadTime
	// The pods before the step are old enough to be past every window.
	r.f = newFleet(o.DeadTime, o.Pods, -o.Warmup-r.cip-o.DeadTime-o.MetricWindow)
	needed, _ := ceilPods(o.DemandAfter, o.restingUtilization()*o.PodRate) // checked by defaults
	r.res = &SizeResult{
		DemandBefore:   o.DemandBefore,
		DemandAfter:    o.DemandAfter,
		NeededReplicas: needed,
		RoundSeconds:   o.DeadTime + o.MetricWindow,
		PeakReplicas:   o.Pods,
	}
	if o.Series {
		r.res.Series = newSeries(-60, int(o.Horizon/4))
		r.q.done = r.res.Series.setWait
	}
	for i := range r.samples {
		r.samples[i] = o.DemandBefore / float64(o.Pods) / r.ratePerCore
	}
	return r
}

// flow is steps 2 and 3 of second t: the fluid queue and the CPU sample,
// then the figures they move.
func (r *sizeRun) flow(t int64) {
	o, res := &r.o, r.res
	demand := o.DemandBefore
	if t >= 0 {
		demand = o.DemandAfter
	}
	// 2. The fluid queue.
	full := float64(r.f.serving) * r.limitCores * r.ratePerCore
	want := r.backlog + demand
	served, sample := want, 0.0
	r.saturatedFor++
	if want > full {
		// Saturated: the CPU reads full, the pods serve a fraction of it.
		served = o.Efficiency * full
		sample = r.limitCores
	} else {
		r.saturatedFor = 0
		if r.f.serving > 0 {
			sample = served / float64(r.f.serving) / r.ratePerCore
		}
	}
	r.backlog = want - served
	if r.backlog < 1e-9*want {
		r.backlog = 0
	}
	// 3. This second's CPU sample.
	r.samples[((t%o.MetricWindow)+o.MetricWindow)%o.MetricWindow] = sample
	if !o.RoundsOnly {
		r.q.step(t, demand, served)
	}
	if t < 0 {
		return
	}
	res.PeakBacklog = max(res.PeakBacklog, r.backlog)
	if res.TimeToCapacity == nil && o.Efficiency*full >= demand {
		tc := t
		res.TimeToCapacity = &tc
		rounds := int((t + res.RoundSeconds - 1) / res.RoundSeconds)
		res.Rounds = &rounds
	}
	if res.TimeToCapacity != nil && res.DrainedAt == nil && r.backlog == 0 {
		d := t
		res.DrainedAt = &d
		r.end = min(r.end, t+r.settledAfter)
	}
}

// syncAt runs the HPA at sync second t and reports whether the run's
// outcome is decided from here on (see settled).
func (r *sizeRun) syncAt(t int64) bool {
	o, res, f := &r.o, r.res, r.f
	f.retire(t - r.cip)
	milli := cpuMilli(r.samples)
	r.pods, r.metrics = sizePods(r.pods[:0], r.metrics, f, t, *o, milli, r.containers)
	res.Work += int64(len(r.pods))
	current := f.total
	var replicas, util int32
	var err error
	if o.TargetAverageMilli > 0 {
		replicas, _, err = r.calc.RawResourceReplicas(current, o.TargetAverageMilli, "cpu", "", r.pods, r.metrics, at(t))
	} else {
		replicas, util, _, err = r.calc.ResourceReplicas(current, o.Target, "cpu", "", r.pods, r.metrics, at(t))
	}
	if err == nil {
		res.StatusUtilization = util
	}
	d := r.as.Reconcile(at(t), current, []hpa.MetricProposal{{Replicas: replicas, Err: err}})
	if d.Rescale && d.Desired != current {
		f.scaleTo(t, d.Desired)
		if t >= 0 {
			res.ScaleEvents = append(res.ScaleEvents, ScaleEvent{T: t, From: current, To: d.Desired})
		}
		return false
	}
	return err == nil && r.settled(t, current, replicas)
}

// chargeReads counts what the sync at t is about to read of the
// controller's history.
func (r *sizeRun) chargeReads(t int64) error {
	r.res.Reads += controllerReads(r.as)
	if r.o.MaxReads > 0 && r.res.Reads > r.o.MaxReads {
		return fmt.Errorf("%w at second %d of the run", ErrReadBudget, t)
	}
	return nil
}

func budgetError(t int64) error {
	return fmt.Errorf("%w at second %d of the run", ErrBudget, t)
}

// chargeRest charges the seconds from … end as the loop would have, with
// the same budget check at the top of each second, a sync at a time: one
// unit a second, and at each sync the pod entries left after retire.
func (r *sizeRun) chargeRest(from int64) error {
	o, res := &r.o, r.res
	for t := from; t <= r.end; {
		next := t + ((-t%r.sync)+r.sync)%r.sync // the first sync second ≥ t
		last := min(next, r.end)
		if n := last - t + 1; o.MaxWork > 0 && res.Work+n > o.MaxWork {
			// The first second whose unit passes the budget.
			return budgetError(t + max(0, o.MaxWork-res.Work))
		}
		res.Work += last - t + 1
		if last == next {
			r.f.retire(next - r.cip)
			res.Work += int64(podEntries(r.f))
		}
		res.End = last
		t = last + 1
	}
	return nil
}

// reserve grows the series and the FIFO by the n seconds the run has left
// once they are known, at once rather than by doubling: a run that never
// meets capacity records hours of seconds past its decision.
func (r *sizeRun) reserve(n int64) {
	if s := r.res.Series; s != nil {
		s.Replicas = slices.Grow(s.Replicas, int(n))
		s.Serving = slices.Grow(s.Serving, int(n))
		s.Backlog = slices.Grow(s.Backlog, int(n))
		s.Wait = slices.Grow(s.Wait, int(n))
	}
	if !r.o.RoundsOnly {
		r.q.pending = slices.Grow(r.q.pending, int(n))
	}
}

// record closes second t: the peak count, the series, the last second.
func (r *sizeRun) record(t int64) {
	res := r.res
	if t >= 0 {
		res.PeakReplicas = max(res.PeakReplicas, r.f.total)
	}
	if res.Series != nil && t >= res.Series.Start {
		res.Series.record(r.f.total, r.f.serving, r.backlog)
	}
	res.End = t
}

// settled reports whether, after a sync at second t that held the count at
// current on the proposal p (no metric error), the run's outcome can no
// longer change: the ceiling or the dead band is reached and the backlog
// grows for ever. SimulateSize then stops running the controller and only
// replays the fluid queue, the FIFO waits and the series second by second,
// as before, to the same end: every figure of the result is the one the
// full run gives.
//
// Why (design/model.md, "Size row", and the code it cites). Suppose at t:
//
//  1. t ≥ 0, current is within [min, max], and p = current, or p ≥ current
//     = maxReplicas;
//  2. demand λ1 > full, the capacity of the serving pods at their limit;
//  3. the last MetricWindow seconds were all saturated;
//  4. every live cohort was ordered at or before t − deadTime − window.
//
// By 4 every pod serves, and the count held, so total and serving stay as
// they are until a sync rescales, and so does full. By 2 every later second
// has want = backlog + λ1 ≥ λ1 > full (backlog ≥ 0, rounding is monotone):
// it is saturated, serves Efficiency × full, and samples exactly the limit.
// With 3, the window then holds only that value at t and at every later
// sync: cpuMilli returns the same milli-cores. By 4 each cohort has been
// Running and Ready since ordered + deadTime and the sample (stamped now) is
// at least a window after that transition, so cpuSampleUnready counts it
// ready inside the CPU initialization period and after it; the veterans are
// ready too, and retire only moves pods from cohorts to the veterans, which
// changes none of the integer sums the calculator takes (ready count,
// usage, requests). The calculator thus returns p again at every later
// sync, without error, with the same status utilization.
//
// The normalizer then holds whatever its history says:
//
//   - legacy path: stabilized = max(p, the window's proposals) ≥ current.
//     At p ≥ current = max, ConvertDesiredReplicasWithRules caps it at
//     min(max, max(2·current, 4)) = current. At p = current < max the sync
//     at t held, so the window's maximum was current (a larger value passes
//     the cap max(2·current, 4) > current and would have rescaled); every
//     later window holds entries of that window or new ones equal to p.
//   - behavior path: stabilized = clamp(current, upRec, downRec) with
//     upRec ≤ p ≤ downRec, so it is current at p = current, and in
//     [current, p] at p ≥ current = max, where
//     ConvertDesiredReplicasWithBehaviorRate lifts the policies' limit to
//     at least current and caps at maxReplicas = current.
//
// No later sync rescales, so ScaleEvents, PeakReplicas and
// StatusUtilization are final, and TimeToCapacity is never set later
// (Efficiency × full ≤ full < λ1). Everything else (backlog, PeakBacklog,
// the waits, DrainedAt, the end, the series the timelines and plots are
// drawn from) is the queue's recurrence with the same served amount each
// second, which the loop still runs, and the work charged is the same: a
// sync's units are the pod entries sizePods would list (podEntries), so a
// budget refuses or truncates at the same second as the full run.
func (r *sizeRun) settled(t int64, current, p int32) bool {
	o, f := &r.o, r.f
	minReplicas := max(o.Controller.MinReplicas, 1)
	switch {
	case t < 0, current < minReplicas, current > o.Controller.MaxReplicas:
		return false
	case p != current && (p < current || current != o.Controller.MaxReplicas):
		return false
	case o.DemandAfter <= float64(f.serving)*r.limitCores*r.ratePerCore:
		return false
	case r.saturatedFor < o.MetricWindow:
		return false
	}
	live := f.live()
	return len(live) == 0 || live[len(live)-1].ordered+o.DeadTime+o.MetricWindow <= t
}

// podEntries is len(sizePods(…)): the veterans as one entry, and one per
// live cohort.
func podEntries(f *fleet) int {
	n := len(f.live())
	if f.veterans > 0 {
		n++
	}
	return n
}

// cpuMilli is the per-pod usage the metrics pipeline reports: the mean of the
// window's one-second samples, reported in nano-cores as metrics-server does
// and read by the controller as milli-cores rounded up (Quantity.MilliValue).
func cpuMilli(samples []float64) int64 {
	var sum float64
	for _, s := range samples {
		sum += s
	}
	nano := int64(math.Round(sum / float64(len(samples)) * 1e9))
	return (nano + 999_999) / 1_000_000
}

// sizePods describes the fleet at second t to the replica calculator: the
// veterans as one cohort, then each younger cohort. A pod ordered at s is
// Pending until s + dead time, then Running and Ready since that second,
// with its start time at the order: it is still inside the CPU
// initialization period, so the controller counts it once a full metric
// window has passed since it became ready.
func sizePods(pods []hpa.Pod, metrics hpa.PodMetrics, f *fleet, t int64, o SizeOptions, milli int64, containers []hpa.Container) ([]hpa.Pod, hpa.PodMetrics) {
	clear(metrics)
	now := at(t)
	window := time.Duration(o.MetricWindow) * time.Second
	sample := hpa.PodMetric{Value: milli, Timestamp: now, Window: window}
	if f.veterans > 0 {
		old := at(-10 * 365 * 86400) // long past every window
		pods = append(pods, hpa.Pod{
			Name: "veterans", Count: f.veterans, Phase: hpa.PodRunning,
			Ready: &hpa.ReadyCondition{Status: true, LastTransitionTime: old}, StartTime: &old,
			Containers: containers,
		})
		metrics["veterans"] = sample
	}
	for _, c := range f.live() {
		name := "c" + strconv.FormatInt(c.ordered, 10)
		started := at(c.ordered)
		p := hpa.Pod{Name: name, Count: c.count, StartTime: &started, Containers: containers}
		if c.ordered+o.DeadTime <= t {
			p.Phase = hpa.PodRunning
			p.Ready = &hpa.ReadyCondition{Status: true, LastTransitionTime: at(c.ordered + o.DeadTime)}
			metrics[name] = sample
		} else {
			p.Phase = hpa.PodPending
			p.Ready = &hpa.ReadyCondition{Status: false, LastTransitionTime: started}
		}
		pods = append(pods, p)
	}
	return pods, metrics
}
