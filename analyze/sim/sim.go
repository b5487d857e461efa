// Package sim drives the ported v1.34 HPA controller (analyze/hpa) against
// fluid models of a service, with the pinned timing of design/model.md:
//
//   - the Size row: a CPU-utilization HPA in front of a fluid request queue
//     whose pods saturate at their limit (SimulateSize);
//   - the Time row: a backlog metric (KEDA's AverageValue external metric)
//     in front of a fluid message queue (SimulateTime).
//
// Time is integer seconds; the demand step happens at t = 0 on a sync
// second; the run starts early enough that every window holds steady state
// at the step. The controller owns no clock: the loop passes `now`.
// Pods are kept as cohorts (one entry per order), so a second costs O(1)
// amortized and a 20-hour run costs milliseconds.
package sim

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/analyze/hpa"
)

// epoch anchors simulated second 0 on the wall clock the controller port
// reads; any fixed instant works.
var epoch = time.Unix(1_700_000_000, 0).UTC()

func at(t int64) time.Time { return epoch.Add(time.Duration(t) * time.Second) }

// Controller is what the simulated HPA is configured with.
type Controller struct {
	// Config holds the kube-controller-manager settings (sync period,
	// tolerance, CPU initialization period, initial readiness delay,
	// downscale stabilization window).
	Config      hpa.Config
	MinReplicas int32 // 0 means the API default of 1
	MaxReplicas int32
	// Behavior selects the behavior path when non-nil; nil is the legacy
	// path with its max(2×, 4) scale-up limit.
	Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior
}

func (c Controller) autoscaler() *hpa.Autoscaler {
	minReplicas := c.MinReplicas
	if minReplicas == 0 {
		minReplicas = 1
	}
	return hpa.NewAutoscaler(c.Config, &minReplicas, c.MaxReplicas, c.Behavior)
}

func (c Controller) syncSeconds() int64 {
	s := int64(c.Config.SyncPeriod / time.Second)
	if s <= 0 {
		s = 15
	}
	return s
}

// isSync reports whether second t is a sync second (t mod period = 0,
// negative seconds included).
func isSync(t, period int64) bool { return ((t%period)+period)%period == 0 }

// ScaleEvent is one change of the replica count.
type ScaleEvent struct {
	T    int64
	From int32
	To   int32
}

// Series is the per-second state of a run, from second Start on.
type Series struct {
	Start    int64
	Replicas []int32   // pods that exist (the scale's spec replicas)
	Serving  []int32   // pods past their dead time (serving or consuming)
	Backlog  []float64 // work waiting at the end of the second
	// Wait is the FIFO waiting time of the work that arrived in each second
	// (NaN-free: work still waiting at the end of the run gets its age).
	Wait []float64
}

func newSeries(start int64, capacity int) *Series {
	return &Series{
		Start:    start,
		Replicas: make([]int32, 0, capacity),
		Serving:  make([]int32, 0, capacity),
		Backlog:  make([]float64, 0, capacity),
		Wait:     make([]float64, 0, capacity),
	}
}

func (s *Series) record(replicas, serving int32, backlog float64) {
	s.Replicas = append(s.Replicas, replicas)
	s.Serving = append(s.Serving, serving)
	s.Backlog = append(s.Backlog, backlog)
	s.Wait = append(s.Wait, 0)
}

// setWait stores the wait of the work that arrived at second t.
func (s *Series) setWait(t int64, wait float64) {
	if i := t - s.Start; i >= 0 && i < int64(len(s.Wait)) {
		s.Wait[i] = wait
	}
}

// controllerReads is what one reconcile reads of the autoscaler's own
// history: every stored recommendation (the stabilization window over the
// sync period of them), and with a behavior block the scale events of
// both directions once per policy.
func controllerReads(as *hpa.Autoscaler) int64 {
	n := int64(len(as.Recommendations))
	if b := as.Behavior; b != nil && b.ScaleUp != nil && b.ScaleDown != nil {
		policies := len(b.ScaleUp.Policies) + len(b.ScaleDown.Policies)
		n += int64(len(as.ScaleUpEvents)+len(as.ScaleDownEvents)) * int64(policies)
	}
	return n
}
