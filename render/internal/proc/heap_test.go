package proc

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// A worker whose live heap stays large is not made to mark it again after
// a render that ran no cycle and left little garbage; one that left much
// garbage, or during which a cycle ran, is.
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
	runtime.GC() // a cycle the render ran
	before = ForcedCycles()
	s.Settle()
	if got := ForcedCycles() - before; got != 1 {
		t.Errorf("a cycle ran during the render: %d forced collections, want 1", got)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(garbage)
}
