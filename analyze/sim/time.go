package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/capreport/capreport/analyze/hpa"
)

// TimeOptions describes one Time-row run: a backlog-driven HPA (KEDA's
// AverageValue external metric) and an upward step in message demand.
type TimeOptions struct {
	Controller Controller
	// PodRate is c, the messages/s one consuming pod removes.
	PodRate float64
	// Threshold is T, the backlog target in messages per pod.
	Threshold float64
	DeadTime  int64 // seconds from the order to the first consumed message
	// DemandBefore and DemandAfter are λ0 and λ1 in messages/s. The run
	// starts at rest: λ0/c pods consuming and T messages per pod waiting.
	DemandBefore float64
	DemandAfter  float64
	// Duration of the run after the step; 0 means 20 hours.
	Duration int64
	// StatsWindow is the tail of the run the statistics cover, both ends
	// included (seconds Duration−StatsWindow … Duration); 0 means the last
	// hour.
	StatsWindow int64
	// Warmup is how long before the step the run starts; 0 means 600 s.
	Warmup int64
	// Series records the per-second state; SeriesFrom is the first second
	// recorded (negative: before the step).
	Series     bool
	SeriesFrom int64
	// OnSync, when set, sees every sync of the controller from the step on
	// (the calculator's --events): what it read and what it decided.
	OnSync func(SyncRecord)
	// MaxReads, when positive, bounds what the controller reads of its own
	// history over the run (controllerReads; ErrReadBudget beyond it): the
	// one cost of a Time run that its inputs can make grow without bound.
	MaxReads int64
}

// SyncRecord is one sync of the controller in a Time run.
type SyncRecord struct {
	T        int64   // seconds after the step
	Backlog  float64 // the external metric it read, messages
	Replicas int32   // the scale's replicas before the sync
	Proposal int32   // the metric's proposal, before stabilization and limits
	Desired  int32   // what the controller set (Replicas when it held)
}

// TimeResult is the Time bill of one run. Times are seconds after the step.
type TimeResult struct {
	// NeededReplicas is λ1 / c.
	NeededReplicas float64
	// Statistics of the replica count, one sample per second over the
	// seconds Duration−StatsWindow … Duration (3,601 samples for the last
	// hour of a 20-hour run: seconds 68,400–72,000 after the step).
	Min, Max      int32
	Mean, P5, P95 float64
	// Hunts is max − min > 30 % of the pods needed (Definition 5).
	Hunts       bool
	PeakBacklog float64
	PeakWait    float64
	ScaleEvents int
	Series      *Series
	Reads       int64 // units of TimeOptions.MaxReads spent
}

// HuntingSwing is the swing, as a fraction of the pods needed, above which a
// loop hunts (Definition 5): well above the ripple the 10 % tolerance leaves.
const HuntingSwing = 0.3

func (o *TimeOptions) defaults() error {
	switch {
	case o.PodRate <= 0:
		return errors.New("pod rate must be positive")
	case o.Threshold <= 0:
		return errors.New("threshold must be positive")
	case o.DeadTime <= 0:
		return errors.New("dead time must be positive")
	case o.DemandBefore <= 0 || o.DemandAfter <= 0:
		return errors.New("demand must be positive")
	case o.Controller.MaxReplicas <= 0:
		return errors.New("maxReplicas must be positive")
	}
	if o.Duration == 0 {
		o.Duration = 20 * 3600
	}
	if o.StatsWindow == 0 {
		o.StatsWindow = 3600
	}
	if o.StatsWindow > o.Duration {
		return errors.New("statistics window longer than the run")
	}
	if o.Warmup == 0 {
		o.Warmup = 600
	}
	for _, d := range []float64{o.DemandBefore, o.DemandAfter} {
		if _, err := ceilPods(d, o.PodRate); err != nil {
			return err
		}
	}
	return nil
}

// SimulateTime runs the Time row (design/model.md, "Time row").
func SimulateTime(o TimeOptions) (*TimeResult, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	ctl := o.Controller
	sync := ctl.syncSeconds()
	as := ctl.autoscaler()
	calc := as.Calculator()

	start := -o.Warmup
	n0 := int32(math.Round(o.DemandBefore / o.PodRate))
	if n0 < 1 {
		n0 = 1
	}
	f := newFleet(o.DeadTime, n0, start-o.DeadTime)
	backlog := o.Threshold * float64(n0)
	target := milliOf(o.Threshold)

	res := &TimeResult{NeededReplicas: o.DemandAfter / o.PodRate}
	var q fifoWait
	if o.Series {
		from := max(o.SeriesFrom, start)
		res.Series = newSeries(from, int(o.Duration-from+1))
		q.done = res.Series.setWait
	}
	statsFrom := o.Duration - o.StatsWindow
	window := make([]int32, 0, o.StatsWindow+1)
	usage := make([]int64, 1)

	for t := start; t <= o.Duration; t++ {
		// 1. Only pods that survived their whole dead time consume.
		f.advance(t)
		demand := o.DemandBefore
		if t >= 0 {
			demand = o.DemandAfter
		}
		// 2. The backlog.
		want := backlog + demand
		served := min(want, o.PodRate*float64(f.serving))
		backlog = want - served
		if backlog < 1e-9*want {
			backlog = 0
		}
		q.step(t, demand, served)
		// 3. The metric is refreshed after this second's flow, and the HPA
		// syncs in the same second.
		if isSync(t, sync) {
			if res.Reads += controllerReads(as); o.MaxReads > 0 && res.Reads > o.MaxReads {
				return nil, fmt.Errorf("%w at second %d of the run", ErrReadBudget, t)
			}
			usage[0] = milliOf(backlog)
			timeSync(&o, res, calc, as, f, t, backlog, usage, target)
		}
		if t >= 0 {
			res.PeakBacklog = max(res.PeakBacklog, backlog)
		}
		if t >= statsFrom {
			window = append(window, f.total)
		}
		if res.Series != nil && t >= res.Series.Start {
			res.Series.record(f.total, f.serving, backlog)
		}
	}
	q.flush(o.Duration)
	res.PeakWait = q.peak
	res.Min, res.Max, res.Mean, res.P5, res.P95 = replicaStats(window)
	res.Hunts = float64(res.Max-res.Min) > HuntingSwing*res.NeededReplicas
	return res, nil
}

// timeSync is the HPA's sync at second t on the backlog metric in usage
// (milli-messages, against target): its decision, the order, the record.
func timeSync(o *TimeOptions, res *TimeResult, calc hpa.Calculator, as *hpa.Autoscaler, f *fleet, t int64, backlog float64, usage []int64, target int64) {
	current := f.total
	replicas, _, err := calc.ExternalPerPodMetricReplicas(current, usage, target)
	d := as.Reconcile(at(t), current, []hpa.MetricProposal{{Replicas: replicas, Err: err}})
	desired := current
	if d.Rescale && d.Desired != current {
		desired = d.Desired
		f.scaleTo(t, d.Desired)
		if t >= 0 {
			res.ScaleEvents++
		}
	}
	if o.OnSync != nil && t >= 0 {
		o.OnSync(SyncRecord{T: t, Backlog: backlog, Replicas: current, Proposal: replicas, Desired: desired})
	}
}

// replicaStats returns min, max, mean and the linear-interpolated 5th and
// 95th percentiles (the usual "linear" method) of the samples.
func replicaStats(samples []int32) (lo, hi int32, mean, p5, p95 float64) {
	if len(samples) == 0 {
		return 0, 0, 0, 0, 0
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	var sum float64
	for _, s := range sorted {
		sum += float64(s)
	}
	return sorted[0], sorted[len(sorted)-1], sum / float64(len(sorted)),
		percentile(sorted, 0.05), percentile(sorted, 0.95)
}

func percentile(sorted []int32, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return float64(sorted[len(sorted)-1])
	}
	frac := pos - float64(i)
	return float64(sorted[i]) + frac*float64(sorted[i+1]-sorted[i])
}
