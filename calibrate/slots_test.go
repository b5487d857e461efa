package calibrate

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// The sparse slots keep what the dense grid before issue 31 kept: the
// finite samples on the grid, series of one key summed slot by slot in the
// order they came, and every key seen, even with no sample on the grid.
func TestSlotsBuilder(t *testing.T) {
	start := time.Unix(1764583200, 0)
	g := grid{start: start, step: time.Minute, n: 4}
	at := func(slot float64, v float64) model.SamplePair {
		return model.SamplePair{Timestamp: model.TimeFromUnixNano(start.Add(time.Duration(slot * float64(time.Minute))).UnixNano()), Value: model.SampleValue(v)}
	}
	b := newSlotsBuilder(g)
	b.add("a", []model.SamplePair{at(0, 1), at(1.2, 2), at(2, math.NaN()), at(3, math.Inf(1)), at(4, 9), at(-1, 9)})
	b.add("b", []model.SamplePair{at(5, 1)})
	b.add("a", []model.SamplePair{at(1, 0.1), at(0, 1), at(0, 1e16)}) // 1+1+1e16 is 1e16+2; 1e16+1+1 would be 1e16
	b.add("c", []model.SamplePair{at(2, math.Copysign(0, -1))})
	got := b.done()
	want := perPod{
		"a": {{0, 1e16 + 2}, {1, 2 + 0.1}},
		"b": {},
		"c": {{2, 0}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if math.Signbit(got["c"][0].v) {
		t.Error("-0 kept its sign; 0 + -0 was +0")
	}
	c := cursor{s: got["a"]}
	for i, want := range []float64{1e16 + 2, 2.1, math.NaN(), math.NaN()} {
		if v := c.at(i); v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
			t.Errorf("at(%d) = %g, want %g", i, v, want)
		}
	}
}
