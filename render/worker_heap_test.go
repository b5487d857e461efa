package render

import (
	"runtime"
	"runtime/metrics"
	"testing"
)

// After a large render the next source must start from the heap goal a
// fresh process has, not from twice the large render's live set.
func TestSettleHeapResetsGoal(t *testing.T) {
	goal := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	big := make([][]byte, 0, 96)
	for range 96 {
		big = append(big, make([]byte, 1<<20)) // a large render: 96 MB live
	}
	runtime.GC() // a cycle in the middle of the render
	runtime.KeepAlive(big)
	if g := goal(); g < 96<<20 {
		t.Fatalf("the goal with 96 MB live is %d MB: the test measures nothing", g>>20)
	}
	big = nil
	settleHeap()
	if g := goal(); g > 48<<20 {
		t.Errorf("after the render the goal is %d MB, want a fresh process's few MB", g>>20)
	}
}
