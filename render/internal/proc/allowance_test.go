package proc

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSlowTimeAllowance: a source may take free, and up to the source
// timeout while the run's allowance lasts, drawing on it a step at a time
// as it runs; what a source drew and did not use returns to the run.
func TestSlowTimeAllowance(t *testing.T) {
	const ms = time.Millisecond
	s := &Allowance{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 10 * ms}

	fast := s.Begin(200 * ms) // ends within its free time: draws nothing
	time.Sleep(5 * ms)
	if g := fast.End(); g != 20*ms || s.left != 200*ms {
		t.Errorf("a fast source: granted %s, allowance left %s; want 20ms, 200ms", g, s.left)
	}

	spin := s.Begin(200 * ms) // runs to the source timeout
	<-spin.Expired()
	if g := spin.End(); g != 200*ms || s.left != 20*ms {
		t.Errorf("a source that never ends: granted %s, allowance left %s; want 200ms, 20ms", g, s.left)
	}
	if g := spin.End(); g != 200*ms || s.left != 20*ms {
		t.Errorf("ended twice: granted %s, allowance left %s", g, s.left)
	}

	coarse := &Allowance{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 100 * ms}
	short := coarse.Begin(200 * ms) // draws a step, ends inside it, gives back the rest
	time.Sleep(30 * ms)
	if g := short.End(); g != 120*ms || coarse.left <= 100*ms || coarse.left > 190*ms {
		t.Errorf("a source that ended inside its first step: granted %s, allowance left %s; want 120ms, and back all but the 10ms or more it used", g, coarse.left)
	}

	if err := s.TimeoutError(20*ms, ""); !strings.Contains(err.Error(), "allowance for slow renders (200ms beyond 20ms a source)") {
		t.Errorf("timeout past the allowance: %v", err)
	}
	if err := s.TimeoutError(200*ms, ""); err.Error() != "render did not finish within 200ms" {
		t.Errorf("timeout at the source timeout: %v", err)
	}
	if d := NewAllowance(60 * time.Second); d.free != time.Second || d.left != 60*time.Second {
		t.Errorf("the default timeout: free %s, allowance %s; want 1s, 1m0s", d.free, d.left)
	}
	if d := NewAllowance(200 * ms); d.free != 200*ms {
		t.Errorf("a 200 ms timeout: free %s, want all of it", d.free)
	}
	var none *Allowance
	alone := none.Begin(30 * ms)
	<-alone.Expired()
	if g := alone.End(); g != 30*ms {
		t.Errorf("no allowance: granted %s", g)
	}
	// A zero timeout uses all of its (zero) free time at once; with no
	// allowance there is no count of such sources to keep.
	zero := none.Begin(0)
	<-zero.Expired()
	if g := zero.End(); g != 0 {
		t.Errorf("no allowance, no time: granted %s", g)
	}
}

// TestSlowTimeSharedAsItRuns: two slow sources that start together share
// the allowance between them as they run: each draws on it, and together
// they draw all of it. (Reserved up front, the first would have taken it
// all, and the second been stopped at its free time.)
func TestSlowTimeSharedAsItRuns(t *testing.T) {
	const ms = time.Millisecond
	s := &Allowance{free: 20 * ms, left: 200 * ms, limit: 200 * ms, step: 10 * ms}
	a, b := s.Begin(200*ms), s.Begin(200*ms)
	<-a.Expired()
	<-b.Expired()
	drewA, drewB := a.End()-20*ms, b.End()-20*ms
	if drewA+drewB != 200*ms || s.left != 0 {
		t.Errorf("drew %s and %s, %s left; want 200ms in all, none left", drewA, drewB, s.left)
	}
	if drewA < 20*ms || drewB < 20*ms {
		t.Errorf("drew %s and %s: one source starved the other", drewA, drewB)
	}
}

// TestFreeTimeShrinksAfterManySlowSources: once the allowance is spent,
// the first fullFreeSources sources that spin each take all of free;
// every further one halves it, down to the floor, and a source that
// renders within its free time neither counts nor loses any.
func TestFreeTimeShrinksAfterManySlowSources(t *testing.T) {
	const ms = time.Millisecond
	s := &Allowance{free: 40 * ms, floor: 8 * ms, left: 0, limit: 200 * ms, step: 10 * ms}
	spin := func() time.Duration {
		l := s.Begin(200 * ms)
		<-l.Expired()
		return l.End()
	}
	for i := range fullFreeSources {
		if fast := s.Begin(200 * ms).End(); fast != 40*ms {
			t.Fatalf("a fast source after %d slow ones was granted %s; want 40ms", i, fast)
		}
		if g := spin(); g != 40*ms {
			t.Fatalf("slow source %d was granted %s; want all of free, 40ms", i+1, g)
		}
	}
	var got []time.Duration
	for range 4 {
		got = append(got, spin())
	}
	want := []time.Duration{20 * ms, 10 * ms, 8 * ms, 8 * ms}
	if !slices.Equal(got, want) {
		t.Errorf("the slow sources after %d were granted %v; want %v (halved, down to the floor)", fullFreeSources, got, want)
	}
	if s.used != fullFreeSources+4 {
		t.Errorf("%d sources counted as using all of their free time; want %d", s.used, fullFreeSources+4)
	}
	err := s.TimeoutError(8*ms, " and was stopped").Error()
	if !strings.Contains(err, "10 sources had used all of theirs, so each further one has less (8ms at least)") {
		t.Errorf("the finding of a source stopped at the floor does not say why its free time was short: %s", err)
	}
	if d := NewAllowance(60 * time.Second); d.floor != freeFloor {
		t.Errorf("default floor %s; want %s", d.floor, freeFloor)
	}
	if d := NewAllowance(100 * ms); d.floor != 100*ms || d.free != 100*ms {
		t.Errorf("a 100ms timeout: free %s, floor %s; want both 100ms (the floor is never above free)", d.free, d.floor)
	}
}
