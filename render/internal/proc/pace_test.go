package proc

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestPacedLimit(t *testing.T) {
	for _, c := range []struct {
		live    uint64
		ceiling int64
		want    int64
	}{
		{0, 384 << 20, paceFloor},             // a fresh worker: the floor
		{20 << 20, 384 << 20, paceFloor},      // 1.5 × 20 + 8 = 38 MiB is under it
		{64 << 20, 384 << 20, 104 << 20},      // 1.5 × 64 + 8
		{300 << 20, 384 << 20, 384 << 20},     // never above the budget's limit
		{300 << 20, math.MaxInt64, 458 << 20}, // no budget
		{0, 16 << 20, 16 << 20},               // a budget under the floor wins
	} {
		if got := PacedLimit(c.live, c.ceiling); got != c.want {
			t.Errorf("PacedLimit(%d MiB, %d) = %d MiB, want %d MiB", c.live>>20, c.ceiling, got>>20, c.want>>20)
		}
	}
}

// A paced render sets the limit from the live heap and follows it; its
// end puts the worker's own limit back. An unpaced one (a Kustomize
// build) leaves the limit alone.
func TestPacerSetsAndRestoresTheLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	ceiling := int64(384 << 20)
	debug.SetMemoryLimit(ceiling)
	p := &HeapPacer{Ceiling: ceiling}
	p.Begin(true, 0)
	if got := debug.SetMemoryLimit(-1); got != paceFloor {
		t.Errorf("a paced render of a small heap set the limit to %d MiB, want the floor", got>>20)
	}
	p.Observe(64<<20, 90<<20)
	if got := debug.SetMemoryLimit(-1); got != 104<<20 {
		t.Errorf("after a sample of 64 MiB live the limit is %d MiB, want 104", got>>20)
	}
	if held := p.End(); held != 90<<20 {
		t.Errorf("end reported %d MiB held, want the sample's 90", held>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Errorf("after the render the limit is %d MiB, want the worker's %d", got>>20, ceiling>>20)
	}
	p.Begin(false, 64<<20)
	p.Observe(64<<20, 1)
	if got := debug.SetMemoryLimit(-1); got != ceiling {
		t.Errorf("an unpaced render changed the limit to %d MiB", got>>20)
	}
	p.End()
}
