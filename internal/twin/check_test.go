package twin

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/capreport/capreport/analyze/sim"
)

// sizeFigures are the figures a Size criterion is judged on, predicted by
// analyze/sim or observed on the twin.
type sizeFigures struct {
	Orders   []sim.ScaleEvent `json:"orders"`   // scale events within the horizon
	Capacity int64            `json:"capacity"` // seconds after the step; -1 if not met
	Peak     int32            `json:"peak"`
	// Status is the HPA status's utilization at the end: the twin's at
	// the horizon, the model's at its last sync (it stops once nothing
	// can change), so it is compared only where the criterion names it.
	Status int32 `json:"status"`
}

// sizeVerdict is one case's line of docs/fidelity.md.
type sizeVerdict struct {
	Case      string      `json:"case"`
	Predicted sizeFigures `json:"predicted"`
	Observed  sizeFigures `json:"observed"`
	// SyncOffsets are where in its model second each observed sync fell
	// (the step is set 0.1 s before a sync; the controller's period runs
	// from the end of its last sync, so the phase drifts).
	SyncOffsets []float64 `json:"syncOffsets"`
	Agree       bool      `json:"agree"`
	Why         []string  `json:"why,omitempty"`
}

// checkSize compares a run with analyze/sim's prediction for the same
// case: the same orders at the same syncs, capacity within one sync
// period, the same peak, and (for the dead band) the same status.
func checkSize(t *testing.T, r *sizeRun) {
	t.Helper()
	o := r.c.options()
	o.Horizon = r.horizon
	pred, err := sim.SimulateSize(o)
	if err != nil {
		t.Fatalf("%s: %v", r.c.name, err)
	}
	v := sizeVerdict{Case: r.c.name}
	v.Predicted = sizeFigures{Orders: within(pred.ScaleEvents, r.horizon), Capacity: -1, Peak: pred.PeakReplicas, Status: pred.StatusUtilization}
	if pred.TimeToCapacity != nil {
		v.Predicted.Capacity = *pred.TimeToCapacity
	}
	v.Observed = sizeFigures{Orders: r.orders, Capacity: r.workload.Capacity(), Peak: r.peak, Status: r.status}
	v.SyncOffsets = syncOffsets(r.run, r.horizon)
	if !slices.Equal(v.Predicted.Orders, v.Observed.Orders) {
		v.Why = append(v.Why, "orders differ")
	}
	if d := v.Predicted.Capacity - v.Observed.Capacity; (v.Predicted.Capacity < 0) != (v.Observed.Capacity < 0) || d > 15 || d < -15 {
		v.Why = append(v.Why, "capacity more than one sync period apart")
	}
	if v.Predicted.Peak != v.Observed.Peak {
		v.Why = append(v.Why, "peaks differ")
	}
	if r.c.status && v.Predicted.Status != v.Observed.Status {
		v.Why = append(v.Why, "status utilizations differ")
	}
	v.Agree = len(v.Why) == 0
	if !v.Agree {
		t.Errorf("%s: the twin disagrees with the prediction (%v):\npredicted %+v\nobserved  %+v", r.c.name, v.Why, v.Predicted, v.Observed)
	}
	t.Logf("%s: predicted %+v, observed %+v, sync offsets %v", r.c.name, v.Predicted, v.Observed, v.SyncOffsets)
	writeVerdict(t, "size-"+r.c.name, v)
}

// syncOffsets are where in its model second each of the run's syncs from
// the step to second last fell, in model seconds.
func syncOffsets(r *run, last int64) []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []float64
	for _, s := range r.syncs {
		if m := r.clock.At(s); m >= 0 && m <= last {
			out = append(out, s.Sub(r.clock.Real(m)).Seconds()*r.clock.Compression)
		}
	}
	return out
}

func within(events []sim.ScaleEvent, horizon int64) []sim.ScaleEvent {
	var out []sim.ScaleEvent
	for _, e := range events {
		if e.T <= horizon {
			out = append(out, e)
		}
	}
	return out
}

// writeVerdict writes v to $TWIN_OUT/name.json, where scripts/twin.sh
// collects the table of docs/fidelity.md.
func writeVerdict(t *testing.T, name string, v any) {
	dir := os.Getenv("TWIN_OUT")
	if dir == "" {
		return
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// timeFigures are the figures a Time criterion is judged on: the band of
// the replica count over the case's statistics span and whether it hunts
// (a swing over 30 % of the pods needed, Definition 5).
type timeFigures struct {
	// Orders are the orders of the opening, the first openingSpan
	// seconds: before the first new pod consumes, the backlog and so every
	// order follow from the demand alone ("count 5 → 10 → 20 at the first
	// two syncs; 80 ordered by 60 s; ceiling 100 by 90 s" in F3). Only a
	// case whose essay states them has them (timeCase.opening).
	Orders []sim.ScaleEvent `json:"orders,omitempty"`
	Min    int32            `json:"min"`
	Max    int32            `json:"max"`
	Hunts  bool             `json:"hunts"`
}

// timeVerdict is one Time case's line of docs/fidelity.md.
type timeVerdict struct {
	Case      string      `json:"case"`
	From      int64       `json:"from"`
	To        int64       `json:"to"`
	Predicted timeFigures `json:"predicted"`
	Observed  timeFigures `json:"observed"`
	// SyncOffsets are where in its model second each sync of the opening
	// fell (see sizeVerdict).
	SyncOffsets []float64 `json:"syncOffsets"`
	Agree       bool      `json:"agree"`
	Why         []string  `json:"why,omitempty"`
}

// openingSpan is the span of seconds after the step in which no pod
// ordered since consumes: the kit's dead time.
const openingSpan = 90

// bandSlack is how far apart the twin's and the model's band edges may be,
// in pods: 15 % of the 20 pods the kit needs. The twin's pods start a
// fraction of a model second after the model's (the ReplicaSet
// controller's and kwok's own latency, magnified by the compression), and
// a hunting loop's extremes move with its phase.
const bandSlack = 3

// checkTime compares a run with analyze/sim's prediction over the same
// span: the same verdict (rests or hunts), band edges within bandSlack.
func checkTime(t *testing.T, r *timeRun) {
	t.Helper()
	o := r.c.options()
	var opening []sim.ScaleEvent
	o.OnSync = func(s sim.SyncRecord) {
		if s.T < openingSpan && s.Desired != s.Replicas {
			opening = append(opening, sim.ScaleEvent{T: s.T, From: s.Replicas, To: s.Desired})
		}
	}
	pred, err := sim.SimulateTime(o)
	if err != nil {
		t.Fatalf("%s: %v", r.c.name, err)
	}
	v := timeVerdict{Case: r.c.name, From: r.c.statsFrom, To: r.horizon,
		Predicted: timeFigures{Orders: opening, Min: pred.Min, Max: pred.Max, Hunts: pred.Hunts}}
	span := r.replicas[r.c.statsFrom:]
	v.Observed = timeFigures{Orders: within(r.orders, openingSpan-1), Min: slices.Min(span), Max: slices.Max(span)}
	v.SyncOffsets = syncOffsets(r.run, openingSpan-1)
	t.Logf("%s: the opening's orders: predicted %v, observed %v", r.c.name, v.Predicted.Orders, v.Observed.Orders)
	if !r.c.opening {
		v.Predicted.Orders, v.Observed.Orders = nil, nil
	}
	v.Observed.Hunts = float64(v.Observed.Max-v.Observed.Min) > sim.HuntingSwing*pred.NeededReplicas
	if r.c.opening && !slices.Equal(v.Predicted.Orders, v.Observed.Orders) {
		v.Why = append(v.Why, "the opening's orders differ")
	}
	if v.Predicted.Hunts != v.Observed.Hunts {
		v.Why = append(v.Why, "one rests, the other hunts")
	}
	if n := extraRequests(r.run, r.clock.Duration(15)); n > 0 {
		v.Why = append(v.Why, fmt.Sprintf("%d backlog requests were no sync of the controller's", n))
	}
	if abs(v.Predicted.Min-v.Observed.Min) > bandSlack || abs(v.Predicted.Max-v.Observed.Max) > bandSlack {
		v.Why = append(v.Why, fmt.Sprintf("band edges more than %d pods apart", bandSlack))
	}
	v.Agree = len(v.Why) == 0
	if !v.Agree {
		t.Errorf("%s: the twin disagrees with the prediction (%v): predicted %+v, observed %+v", r.c.name, v.Why, v.Predicted, v.Observed)
	}
	t.Logf("%s: predicted %+v, observed %+v over %d…%d s; the opening's sync offsets %.2f", r.c.name, v.Predicted, v.Observed, v.From, v.To, v.SyncOffsets)
	writeVerdict(t, "time-"+r.c.name, v)
}

// extraRequests counts the backlog requests of a run, from the step on,
// that came sooner than half a sync period after the one before: KEDA's
// polls, or anything else that is not the HPA controller's read. The run
// names its orders by the syncs it saw, so there must be none.
func extraRequests(r *run, period time.Duration) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i := 1; i < len(r.syncs); i++ {
		if r.syncs[i].After(r.clock.Origin) && r.syncs[i].Sub(r.syncs[i-1]) < period/2 {
			n++
		}
	}
	return n
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
