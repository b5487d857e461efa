package proc

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// A worker whose live heap stays large is not made to mark it again after
// a render that ran no cycle and left little garbage, nor after one whose
// cycle found no more live than the worker kept; one that left much
// garbage, or whose cycle found a larger live set, is.
func TestSettleSkipsASettledHeap(t *testing.T) {
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	old := debug.SetGCPercent(400) // no cycle of its own while the test allocates
	defer debug.SetGCPercent(old)
	var s HeapSettler
	var garbage []byte
	runtime.GC()
	s.cycles = gcCycles()
	before := ForcedCycles()
	s.Settle()
	if got := ForcedCycles() - before; got != 0 {
		t.Errorf("a settled heap of 64 MB with no garbage: %d forced collections, want 0", got)
	}
	for range 32 {
		garbage = make([]byte, 1<<20)
	}
	before = ForcedCycles()
	s.Settle()
	if got := ForcedCycles() - before; got != 1 {
		t.Errorf("32 MB of garbage left: %d forced collections, want 1", got)
	}
	runtime.KeepAlive(garbage)
	garbage = nil
	runtime.GC() // a cycle the render ran, finding what the worker keeps
	before = ForcedCycles()
	s.Settle()
	if got := ForcedCycles() - before; got != 0 {
		t.Errorf("a cycle during the render found the settled heap: %d forced collections, want 0", got)
	}
	more := make([][]byte, 32)
	for i := range more {
		more[i] = make([]byte, 1<<20)
	}
	runtime.GC() // a cycle in the middle of a render that holds 32 MB more
	runtime.KeepAlive(more)
	before = ForcedCycles()
	s.Settle()
	if got := ForcedCycles() - before; got != 1 {
		t.Errorf("a cycle during the render found 32 MB more live: %d forced collections, want 1", got)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(garbage)
}
