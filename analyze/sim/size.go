package sim

import (
	"errors"
	"fmt"
	"math"
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
	// MaxWork, when positive, bounds the run's work (ErrBudget beyond it):
	// one unit per simulated second and one per pod cohort the controller
	// reads at each sync. The cohorts alive at once grow with the dead time
	// over the sync period, so this bounds what annotations can ask for.
	MaxWork int64
}

// ErrBudget is returned by a run whose work would exceed its MaxWork.
var ErrBudget = errors.New("the simulation exceeds its work budget")

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
	ctl := o.Controller
	sync := ctl.syncSeconds()
	cip := int64(ctl.Config.CPUInitializationPeriod / time.Second)
	calc := hpa.Calculator{
		Tolerances:                    hpa.TolerancesFor(ctl.Config, ctl.Behavior),
		CPUInitializationPeriod:       ctl.Config.CPUInitializationPeriod,
		DelayOfInitialReadinessStatus: ctl.Config.InitialReadinessDelay,
	}
	as := ctl.autoscaler()

	// A pod serving at 100 % of its request handles PodRate; per core of
	// CPU that is PodRate / request.
	ratePerCore := o.PodRate / (float64(o.RequestMilli) / 1000)
	limitCores := float64(o.LimitMilli) / 1000
	start := -o.Warmup
	// The pods before the step are old enough to be past every window.
	f := newFleet(o.DeadTime, o.Pods, start-cip-o.DeadTime-o.MetricWindow)

	needed, _ := ceilPods(o.DemandAfter, o.restingUtilization()*o.PodRate) // checked by defaults
	res := &SizeResult{
		DemandBefore:   o.DemandBefore,
		DemandAfter:    o.DemandAfter,
		NeededReplicas: needed,
		RoundSeconds:   o.DeadTime + o.MetricWindow,
		PeakReplicas:   o.Pods,
	}
	var q fifoWait
	if o.Series {
		res.Series = newSeries(-60, int(o.Horizon/4))
		q.done = res.Series.setWait
	}

	// The CPU samples of the last MetricWindow seconds, per serving pod.
	samples := make([]float64, o.MetricWindow)
	for i := range samples {
		samples[i] = o.DemandBefore / float64(o.Pods) / ratePerCore
	}
	var backlog float64
	pods := make([]hpa.Pod, 0, 64)
	metrics := make(hpa.PodMetrics, 64)
	containers := []hpa.Container{{Name: "app", Requests: map[string]int64{"cpu": o.RequestMilli}}}
	end := o.Horizon
	settledAfter := o.MetricWindow + 2*sync + o.DeadTime

	for t := start; t <= end; t++ {
		if res.Work++; o.MaxWork > 0 && res.Work > o.MaxWork {
			return nil, fmt.Errorf("%w at second %d of the run", ErrBudget, t)
		}
		// 1. Pods whose dead time has passed serve.
		f.advance(t)
		demand := o.DemandBefore
		if t >= 0 {
			demand = o.DemandAfter
		}
		// 2. The fluid queue.
		full := float64(f.serving) * limitCores * ratePerCore
		want := backlog + demand
		served, sample := want, 0.0
		if want > full {
			// Saturated: the CPU reads full, the pods serve a fraction of it.
			served = o.Efficiency * full
			sample = limitCores
		} else if f.serving > 0 {
			sample = served / float64(f.serving) / ratePerCore
		}
		backlog = want - served
		if backlog < 1e-9*want {
			backlog = 0
		}
		// 3. This second's CPU sample.
		samples[((t%o.MetricWindow)+o.MetricWindow)%o.MetricWindow] = sample
		q.step(t, demand, served)
		if t >= 0 {
			res.PeakBacklog = max(res.PeakBacklog, backlog)
			if res.TimeToCapacity == nil && o.Efficiency*full >= demand {
				tc := t
				res.TimeToCapacity = &tc
				rounds := int((t + res.RoundSeconds - 1) / res.RoundSeconds)
				res.Rounds = &rounds
			}
			if res.TimeToCapacity != nil && res.DrainedAt == nil && backlog == 0 {
				d := t
				res.DrainedAt = &d
				end = min(end, t+settledAfter)
			}
		}
		// 4. The HPA syncs.
		if isSync(t, sync) {
			f.retire(t - cip)
			milli := cpuMilli(samples)
			pods, metrics = sizePods(pods[:0], metrics, f, t, o, milli, containers)
			res.Work += int64(len(pods))
			current := f.total
			var replicas, util int32
			var err error
			if o.TargetAverageMilli > 0 {
				replicas, _, err = calc.RawResourceReplicas(current, o.TargetAverageMilli, "cpu", "", pods, metrics, at(t))
			} else {
				replicas, util, _, err = calc.ResourceReplicas(current, o.Target, "cpu", "", pods, metrics, at(t))
			}
			if err == nil {
				res.StatusUtilization = util
			}
			d := as.Reconcile(at(t), current, []hpa.MetricProposal{{Replicas: replicas, Err: err}})
			if d.Rescale && d.Desired != current {
				f.scaleTo(t, d.Desired)
				if t >= 0 {
					res.ScaleEvents = append(res.ScaleEvents, ScaleEvent{T: t, From: current, To: d.Desired})
				}
			}
		}
		if t >= 0 {
			res.PeakReplicas = max(res.PeakReplicas, f.total)
		}
		if res.Series != nil && t >= res.Series.Start {
			res.Series.record(f.total, f.serving, backlog)
		}
		res.End = t
	}
	q.flush(res.End)
	res.PeakWait = q.peak
	res.Overshoot = float64(res.PeakReplicas) / float64(res.NeededReplicas)
	return res, nil
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
