package gcpace

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

var (
	keep [][]byte
	sink []byte // what the garbage is written to, so that it is allocated
)

// Under the limit nothing is collected; once the live heap passes half of
// it, the default pacing is back.
func TestStart(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	runtime.GC()
	const limit = 64 << 20
	Start(limit)
	before := cycles()
	for range 1000 { // 16 MiB of garbage, far past Go's 4 MiB first goal
		sink = make([]byte, 16<<10)
	}
	if n := cycles() - before; n != 0 {
		t.Errorf("%d collections under the limit", n)
	}
	for range 48 { // 48 MiB live: past half the limit
		keep = append(keep, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the cleanup runs after the cycle
		if debug.SetGCPercent(100) == 100 {
			break
		}
		debug.SetGCPercent(-1)
		if time.Now().After(deadline) {
			t.Fatal("the default pacing never came back")
		}
	}
	if got := debug.SetMemoryLimit(-1); got < 1<<62 {
		t.Errorf("memory limit %d left after the default pacing came back", got)
	}
	keep = nil
}

// A GOGC in the environment is the user's: Start changes nothing.
func TestStartLeavesTheUsersPacing(t *testing.T) {
	t.Setenv("GOGC", "50")
	old := debug.SetGCPercent(77)
	defer debug.SetGCPercent(old)
	Start(64 << 20)
	if got := debug.SetGCPercent(old); got != 77 {
		t.Errorf("GC percent %d, want the 77 set before", got)
	}
}

// SetPercent while Start holds the pacing takes effect when the default
// pacing returns, and at once after; a GOGC in the environment wins.
func TestSetPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer SetPercent(100)
	Start(64 << 20)
	SetPercent(50)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent %d while Start holds the pacing, want -1", got)
	}
	check(0) // the live heap is past half of a limit of 0: the pacing returns
	if got := debug.SetGCPercent(50); got != 50 {
		t.Errorf("GC percent %d once the pacing returned, want SetPercent's 50", got)
	}
	SetPercent(70)
	if got := debug.SetGCPercent(70); got != 70 {
		t.Errorf("GC percent %d after SetPercent(70) with the pacing returned", got)
	}
	t.Setenv("GOGC", "90")
	SetPercent(30)
	if got := debug.SetGCPercent(70); got != 70 {
		t.Errorf("GC percent %d: SetPercent overrode the environment's GOGC", got)
	}
}

// SetLimit while Start holds the pacing takes effect when the default
// pacing returns (in place of no limit), and at once after; a GOMEMLIMIT
// in the environment wins.
func TestSetLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer SetLimit(math.MaxInt64)
	Start(64 << 20)
	SetLimit(600 << 20)
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("memory limit %d while Start holds the pacing, want Start's %d", got, 64<<20)
	}
	check(0)
	if got := debug.SetMemoryLimit(-1); got != 600<<20 {
		t.Errorf("memory limit %d once the pacing returned, want SetLimit's %d", got, 600<<20)
	}
	SetLimit(700 << 20)
	if got := debug.SetMemoryLimit(-1); got != 700<<20 {
		t.Errorf("memory limit %d after SetLimit with the pacing returned", got)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	SetLimit(300 << 20)
	if got := debug.SetMemoryLimit(-1); got != 700<<20 {
		t.Errorf("memory limit %d: SetLimit overrode the environment's GOMEMLIMIT", got)
	}
}
