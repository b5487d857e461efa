package twin

import (
	"math"
	"sync"
	"time"
)

// A Workload is the service behind one autoscaled Deployment, as the
// essays' fluid model describes it (../../../shared/design/model.md, kept
// by analyze/sim): demand arrives as a fluid, the pods that serve take it
// at their rate, and what they cannot take waits. Only the service is
// modelled here; the pods, their readiness, the metrics' path to the
// controller and the controller itself are the genuine ones of the twin.
//
// Time is the model's: integer seconds, each computed when it begins
// (Clock), from the pods that are ready at that moment.
type Workload struct {
	clock *Clock

	mu       sync.Mutex
	opts     WorkloadOptions
	serving  func() int // the pods ready now (the twin's informer)
	next     int64      // the first model second not yet computed
	stepAt   int64      // the model second of the step; math.MaxInt64 before it is set
	backlog  float64
	samples  []float64 // per-pod CPU samples (cores) of the last Window seconds, a ring
	capacity int64     // the first second ≥ 0 at which capacity met demand, -1 before
}

// WorkloadOptions are the service's figures, in the model's units.
type WorkloadOptions struct {
	Kind         Row     // Size (CPU) or Time (backlog)
	RequestMilli int64   // one pod's CPU request
	LimitMilli   int64   // one pod's CPU limit
	PodRate      float64 // requests/s a pod serves at 100 % of its request (Size); messages/s (Time)
	DemandBefore float64 // λ0
	DemandAfter  float64 // λ1, from the step on
	Window       int64   // seconds of samples in each CPU metric (Size)
	Backlog0     float64 // the backlog at rest (Time)
}

// Row says which of the essays' rows a workload stands for.
type Row int

const (
	// Size is a CPU-utilization HPA on a saturating metric.
	Size Row = iota
	// Time is a KEDA backlog HPA (an External AverageValue metric).
	Time
)

// NewWorkload returns a workload at rest with pods0 pods serving: its
// samples at the resting utilization, its backlog at Backlog0. It stays
// there until Arm.
func NewWorkload(clock *Clock, o WorkloadOptions, pods0 int, serving func() int) *Workload {
	if o.Window <= 0 {
		o.Window = 30
	}
	w := &Workload{clock: clock, opts: o, serving: serving, stepAt: math.MaxInt64, capacity: -1,
		backlog: o.Backlog0, samples: make([]float64, o.Window), next: math.MaxInt64}
	if o.Kind == Size && pods0 > 0 {
		perCore := o.PodRate / (float64(o.RequestMilli) / 1000)
		for i := range w.samples {
			w.samples[i] = o.DemandBefore / float64(pods0) / perCore
		}
	}
	return w
}

// Arm starts the flow: from the present second on, each second is
// computed from the pods then serving. Before it the workload holds its
// resting figures (the twin's pods are still starting).
func (w *Workload) Arm() {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next == math.MaxInt64 {
		w.next = now
	}
}

// SetStep makes demand step from λ0 to λ1 at model second t.
func (w *Workload) SetStep(t int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stepAt = t
}

// Advance computes every model second up to now, the serving count read
// once for all of them: called at each second's start by the clock's
// ticker, and by a reader that arrives before the ticker did.
func (w *Workload) Advance() {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked(now)
}

func (w *Workload) advanceLocked(now int64) {
	if w.next > now {
		return
	}
	n := w.serving()
	for ; w.next <= now; w.next++ {
		w.second(w.next, n)
	}
}

// second is the model's second t: the flow, then the sample.
func (w *Workload) second(t int64, serving int) {
	demand := w.opts.DemandBefore
	if t >= w.stepAt {
		demand = w.opts.DemandAfter
	}
	o := w.opts
	var capacity float64
	switch o.Kind {
	case Size:
		perCore := o.PodRate / (float64(o.RequestMilli) / 1000)
		capacity = float64(serving) * float64(o.LimitMilli) / 1000 * perCore
		served := math.Min(capacity, w.backlog+demand)
		w.backlog += demand - served
		sample := 0.0
		if serving > 0 {
			sample = served / float64(serving) / perCore
		}
		w.samples[mod(t, o.Window)] = sample
	case Time:
		capacity = o.PodRate * float64(serving)
		w.backlog = math.Max(0, w.backlog+demand-capacity)
	}
	if t >= w.stepAt {
		if w.capacity < 0 && capacity >= demand {
			w.capacity = t - w.stepAt
		}
	}
}

func mod(a, b int64) int64 { return ((a % b) + b) % b }

// CPUNano is the per-pod CPU usage the metrics pipeline reports now: the
// mean of the window's samples, the current second's included, in
// nano-cores (as metrics-server reports it; the controller reads it as
// milli-cores rounded up).
func (w *Workload) CPUNano() int64 {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked(now)
	var sum float64
	for _, s := range w.samples {
		sum += s
	}
	return int64(math.Round(sum / float64(len(w.samples)) * 1e9))
}

// BacklogMilli is the backlog now in milli-messages, as KEDA reports an
// external metric to the controller.
func (w *Workload) BacklogMilli() int64 {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked(now)
	return int64(w.backlog * 1000)
}

// Capacity is the model second after the step at which serving capacity
// first met demand, or -1.
func (w *Workload) Capacity() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.capacity
}

// A Clock is the model's time on the twin: model seconds since an origin,
// each lasting 1/Compression real seconds. Every duration given to the
// control plane is divided by the same Compression.
type Clock struct {
	Origin      time.Time
	Compression float64
}

// Now is the model second that contains the present.
func (c *Clock) Now() int64 { return c.At(time.Now()) }

// At is the model second that contains the real time t.
func (c *Clock) At(t time.Time) int64 {
	return int64(math.Floor(t.Sub(c.Origin).Seconds() * c.Compression))
}

// Sync is the model's sync second nearest the real time t: the twin's
// controller syncs a period after the end of its last sync, so its syncs
// drift later in the model's seconds (docs/fidelity.md), and an order is
// named by the sync that made it.
func (c *Clock) Sync(t time.Time, period int64) int64 {
	m := t.Sub(c.Origin).Seconds() * c.Compression
	return int64(math.Round(m/float64(period))) * period
}

// Real is the real time at which model second t begins.
func (c *Clock) Real(t int64) time.Time {
	return c.Origin.Add(time.Duration(float64(t) / c.Compression * float64(time.Second)))
}

// Duration is a model duration in real time.
func (c *Clock) Duration(seconds float64) time.Duration {
	return time.Duration(seconds / c.Compression * float64(time.Second))
}
