// Package replicaset is the ReplicaSet controller's deletion order
// (controller.ActivePodsWithRanks.Less, Kubernetes v1.34) as a pure
// function. The simulation never ranks pods: it keeps cohorts in order of
// creation and removes the newest (analyze/sim's fleet). This port is what
// the tests hold that shortcut to: analyze/sim's tests check that the
// fleet's order is DeleteFirst's, and internal/upstreamdiff checks
// DeleteFirst against the genuine Less. It lives here, not in analyze/hpa,
// because only those tests call it.
package replicaset

import (
	"math"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// RankedPod is what ActivePodsWithRanks.Less reads of an active pod.
type RankedPod struct {
	UID      string
	Assigned bool // spec.nodeName set
	Phase    hpa.PodPhase
	Ready    bool
	// ReadySince is the Ready=True condition's last transition; zero when
	// unknown, which sorts as the most recent.
	ReadySince time.Time
	// DeletionCost is the controller.kubernetes.io/pod-deletion-cost
	// annotation (default 0).
	DeletionCost int32
	// Rank is the number of active pods of related ReplicaSets on the
	// same node.
	Rank int
	// MaxRestarts is the highest restart count of regular containers;
	// MaxSidecarRestarts that of restartable init containers, the
	// tiebreak.
	MaxRestarts        int32
	MaxSidecarRestarts int32
	Created            time.Time
}

// DeleteFirst reports whether a should be deleted before b: the first rule
// on which they differ decides. Cheap-to-lose pods go first: unscheduled,
// not yet running, not ready, cheap by annotation, crowded on a node, most
// recently ready, crash-looping, newest.
func DeleteFirst(a, b RankedPod, now time.Time) bool {
	if a.Assigned != b.Assigned {
		return !a.Assigned
	}
	if pa, pb := phaseOrdinal(a.Phase), phaseOrdinal(b.Phase); pa != pb {
		return pa < pb
	}
	if a.Ready != b.Ready {
		return !a.Ready
	}
	if a.DeletionCost != b.DeletionCost {
		return a.DeletionCost < b.DeletionCost
	}
	if a.Rank != b.Rank {
		return a.Rank > b.Rank
	}
	if a.Ready && b.Ready && !a.ReadySince.Equal(b.ReadySince) {
		return newerFirst(a.ReadySince, b.ReadySince, a.UID, b.UID, now)
	}
	if a.MaxRestarts != b.MaxRestarts {
		return a.MaxRestarts > b.MaxRestarts
	}
	if a.MaxSidecarRestarts != b.MaxSidecarRestarts {
		return a.MaxSidecarRestarts > b.MaxSidecarRestarts
	}
	if !a.Created.Equal(b.Created) {
		return newerFirst(a.Created, b.Created, a.UID, b.UID, now)
	}
	return false
}

// phaseOrdinal ranks Pending < Unknown < Running; inactive phases never
// reach the sort and rank with Pending, as upstream's map default.
func phaseOrdinal(p hpa.PodPhase) int {
	switch p {
	case hpa.PodUnknown:
		return 1
	case hpa.PodRunning:
		return 2
	}
	return 0
}

// newerFirst compares two timestamps on a log2 scale of their age
// (LogarithmicScaleDown), so pods of similar age are chosen by UID rather
// than by a few seconds' difference; a zero time counts as newest.
func newerFirst(ta, tb time.Time, uidA, uidB string, now time.Time) bool {
	if now.IsZero() || ta.IsZero() || tb.IsZero() {
		if ta.IsZero() || tb.IsZero() {
			return ta.IsZero()
		}
		return ta.After(tb)
	}
	d := logBucket(now.Sub(ta)) - logBucket(now.Sub(tb))
	if d == 0 {
		return uidA < uidB
	}
	return d < 0
}

// logBucket is floor(log2(age in nanoseconds)), −1 for a non-positive age.
func logBucket(age time.Duration) int64 {
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}
