package sim

import (
	"testing"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/internal/replicaset"
)

func TestFleetServingAndRemoval(t *testing.T) {
	f := newFleet(90, 10, -1000)
	f.advance(0)
	f.add(0, 5)
	f.add(15, 3)
	f.add(15, 2) // same second: one cohort
	if f.total != 20 || f.serving != 10 || len(f.live()) != 3 {
		t.Fatalf("total %d serving %d cohorts %d", f.total, f.serving, len(f.live()))
	}
	f.advance(90)
	if f.serving != 15 {
		t.Fatalf("at 90 s serving %d, want 15 (the pods ordered at 0)", f.serving)
	}
	// Scale-down takes the newest first: the pending pods ordered at 15 s,
	// then the newest serving ones.
	f.scaleTo(90, 12)
	if f.total != 12 || f.serving != 12 {
		t.Fatalf("after scale-down total %d serving %d, want 12/12", f.total, f.serving)
	}
	f.retire(0)
	if f.veterans != 12 || len(f.live()) != 0 {
		t.Fatalf("veterans %d live %d", f.veterans, len(f.live()))
	}
	f.scaleTo(100, 4)
	if f.total != 4 || f.serving != 4 || f.veterans != 4 {
		t.Fatalf("veterans after removal %d", f.veterans)
	}
}

// The fleet's newest-first removal is the ReplicaSet's order for pods that
// differ only in age and readiness (model.md pins it; replicaset.DeleteFirst
// is the port of ActivePodsWithRanks).
func TestFleetRemovalMatchesReplicaSetOrder(t *testing.T) {
	now := at(1000)
	veteran := replicaset.RankedPod{UID: "a", Assigned: true, Phase: hpa.PodRunning, Ready: true, ReadySince: at(-5000), Created: at(-5090)}
	serving := replicaset.RankedPod{UID: "b", Assigned: true, Phase: hpa.PodRunning, Ready: true, ReadySince: at(950), Created: at(860)}
	starting := replicaset.RankedPod{UID: "c", Assigned: true, Phase: hpa.PodRunning, Ready: false, Created: at(990)}
	pending := replicaset.RankedPod{UID: "d", Phase: hpa.PodPending, Created: at(995)}
	order := []replicaset.RankedPod{pending, starting, serving, veteran} // newest first
	for i := 0; i+1 < len(order); i++ {
		if !replicaset.DeleteFirst(order[i], order[i+1], now) || replicaset.DeleteFirst(order[i+1], order[i], now) {
			t.Errorf("ReplicaSet would not delete %s before %s", order[i].UID, order[i+1].UID)
		}
	}
}

func TestFifoWait(t *testing.T) {
	var q fifoWait
	var waits []float64
	q.done = func(_ int64, w float64) { waits = append(waits, w) }
	q.step(0, 10, 10) // served within its own second
	q.step(1, 10, 5)  // half waits
	q.step(2, 0, 5)   // the rest leaves at the end of second 2
	if len(waits) != 2 || waits[0] != 0 || waits[1] != 1 || q.peak != 1 {
		t.Fatalf("waits %v peak %v, want [0 1] and 1", waits, q.peak)
	}
	q.step(3, 10, 0)
	q.flush(10)
	if q.peak != 7 {
		t.Fatalf("unserved work at the end counts its age: peak %v, want 7", q.peak)
	}
}
