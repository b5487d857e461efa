package rules

import (
	"testing"

	"github.com/capreport/capreport/analyze/sim"
)

// Down-sampling keeps both the troughs and the peaks of the replica count,
// in time order, and reads every series at the same seconds.
func TestDownsampleKeepsExtremes(t *testing.T) {
	s := &sim.Series{Start: 100}
	for i := 0; i < 10_000; i++ {
		r := int32(20)
		switch i % 500 {
		case 123:
			r = 6 // a one-second trough
		case 377:
			r = 35 // a one-second peak
		}
		s.Replicas = append(s.Replicas, r)
		s.Serving = append(s.Serving, r)
		s.Backlog = append(s.Backlog, float64(i))
		s.Wait = append(s.Wait, 0)
	}
	tl := downsample(s, 0, len(s.Replicas))
	if len(tl.T) > 2*timelineBuckets {
		t.Fatalf("%d points, want at most %d", len(tl.T), 2*timelineBuckets)
	}
	var lo, hi int32 = 1 << 30, 0
	for i := range tl.T {
		if i > 0 && tl.T[i] <= tl.T[i-1] {
			t.Fatalf("times not increasing at %d: %d after %d", i, tl.T[i], tl.T[i-1])
		}
		lo, hi = min(lo, tl.Replicas[i]), max(hi, tl.Replicas[i])
		// The backlog of second i is i: a point's values belong to its second.
		if sec := tl.T[i] - 100; tl.Backlog[i] != float64(sec) || tl.Serving[i] != tl.Replicas[i] {
			t.Fatalf("point %d at second %d carries backlog %v and serving %d", i, sec, tl.Backlog[i], tl.Serving[i])
		}
	}
	if lo != 6 || hi != 35 {
		t.Errorf("kept %d..%d pods; want 6..35", lo, hi)
	}
	if tl.T[0] != 100 {
		t.Errorf("first point at %d, want the series start 100", tl.T[0])
	}
}
