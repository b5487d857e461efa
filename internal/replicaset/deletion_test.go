package replicaset

import (
	"testing"
	"time"

	"github.com/capreport/capreport/analyze/hpa"
)

// testNow is the fixed clock of every test.
var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// deletionCase is a pair differing in one rule of DeleteFirst: first must
// be deleted before second, and not the other way round.
type deletionCase struct {
	name          string
	first, second RankedPod
}

func (c deletionCase) run(t *testing.T) {
	t.Helper()
	if !DeleteFirst(c.first, c.second, testNow) {
		t.Errorf("DeleteFirst(first, second) = false, want true")
	}
	if DeleteFirst(c.second, c.first, testNow) {
		t.Errorf("DeleteFirst(second, first) = true, want false")
	}
}

// base is a long-running, ready, scheduled pod.
func base(uid string) RankedPod {
	return RankedPod{UID: uid, Assigned: true, Phase: hpa.PodRunning, Ready: true,
		ReadySince: testNow.Add(-time.Hour), Created: testNow.Add(-time.Hour)}
}

func with(uid string, f func(*RankedPod)) RankedPod {
	p := base(uid)
	f(&p)
	return p
}

func TestDeleteFirst(t *testing.T) {
	cases := []deletionCase{
		{name: "UnassignedFirst", first: with("b", func(p *RankedPod) { p.Assigned = false }), second: base("a")},
		{name: "PendingBeforeUnknown", first: with("b", func(p *RankedPod) { p.Phase = hpa.PodPending }), second: with("a", func(p *RankedPod) { p.Phase = hpa.PodUnknown })},
		{name: "UnknownBeforeRunning", first: with("b", func(p *RankedPod) { p.Phase = hpa.PodUnknown }), second: base("a")},
		{name: "NotReadyFirst", first: with("b", func(p *RankedPod) { p.Ready = false }), second: base("a")},
		{name: "LowerDeletionCostFirst", first: with("b", func(p *RankedPod) { p.DeletionCost = -1 }), second: base("a")},
		{name: "HigherRankFirst", first: with("b", func(p *RankedPod) { p.Rank = 3 }), second: with("a", func(p *RankedPod) { p.Rank = 1 })},
		{name: "RecentlyReadyFirst", first: with("b", func(p *RankedPod) { p.ReadySince = testNow.Add(-10 * time.Second) }),
			second: with("a", func(p *RankedPod) { p.ReadySince = testNow.Add(-30 * time.Second) })},
		// 10 s and 12 s ago share the log2 bucket: the smaller UID goes
		{name: "SameReadyBucketByUID", first: with("a", func(p *RankedPod) { p.ReadySince = testNow.Add(-12 * time.Second) }),
			second: with("b", func(p *RankedPod) { p.ReadySince = testNow.Add(-10 * time.Second) })},
		{name: "ZeroReadyTimeFirst", first: with("b", func(p *RankedPod) { p.ReadySince = time.Time{} }), second: base("a")},
		{name: "MoreRestartsFirst", first: with("b", func(p *RankedPod) { p.MaxRestarts = 4 }), second: base("a")},
		{name: "SidecarRestartsBreakTie", first: with("b", func(p *RankedPod) { p.MaxSidecarRestarts = 2 }), second: base("a")},
		// not both ready: ready times are not compared, restarts decide
		{name: "ReadyTimeIgnoredUnlessBothReady", first: with("b", func(p *RankedPod) { p.Ready, p.MaxRestarts = false, 1 }),
			second: with("a", func(p *RankedPod) { p.Ready, p.ReadySince = false, testNow.Add(-time.Second) })},
		{name: "NewerFirst", first: with("b", func(p *RankedPod) { p.Created = testNow.Add(-time.Minute) }), second: base("a")},
		{name: "SameCreatedBucketByUID", first: with("a", func(p *RankedPod) { p.Created = testNow.Add(-12 * time.Second) }),
			second: with("b", func(p *RankedPod) { p.Created = testNow.Add(-10 * time.Second) })},
		{name: "ZeroCreationFirst", first: with("b", func(p *RankedPod) { p.Created = time.Time{} }), second: base("a")},
		// an earlier rule beats every later one
		{name: "UnassignedBeatsEverything", first: with("z", func(p *RankedPod) { p.Assigned, p.DeletionCost, p.Created = false, 100, testNow.Add(-time.Hour*100) }),
			second: with("a", func(p *RankedPod) { p.Phase, p.Ready, p.Rank = hpa.PodPending, false, 9 })},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
	if a := base("a"); DeleteFirst(a, a, testNow) {
		t.Error("DeleteFirst(a, a) = true, want false")
	}
}
