package sim

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// Every overload run from a shared trunk is the run SimulateSize makes on
// its own: series, waits, work and budget errors included.
func TestSizeTrunkMatchesSimulateSize(t *testing.T) {
	testutil.SkipIfShort(t)
	for _, c := range decidedCases() {
		tr := NewSizeTrunk(c.o)
		if tr == nil {
			t.Fatalf("%s: no trunk", c.name)
		}
		for _, k := range []float64{1.5, 3, 30, 300} {
			for _, variant := range []func(*SizeOptions){
				func(*SizeOptions) {},
				func(o *SizeOptions) { o.Series = false },
				func(o *SizeOptions) { o.Series, o.RoundsOnly = false, true },
				func(o *SizeOptions) { o.MaxWork = 30_000 },
				func(o *SizeOptions) { o.MaxWork = 100 }, // exceeded in the warm-up
				func(o *SizeOptions) { o.MaxReads = 500 },
			} {
				o := c.o
				o.Overload = k
				variant(&o)
				want, wantErr := SimulateSize(o)
				got, err := tr.Simulate(o)
				name := fmt.Sprintf("%s, %gx, %+v", c.name, k, o)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s: err %v, want %v", name, err, wantErr)
					continue
				}
				if err != nil {
					continue
				}
				if o.RoundsOnly {
					// The trunk kept the warm-up's waits, which a
					// RoundsOnly run leaves out and nobody reads.
					got.PeakWait, want.PeakWait = 0, 0
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
				}
			}
		}
	}
}

// A nil trunk (invalid options) and options the trunk was not made for
// fall back to SimulateSize.
func TestSizeTrunkFallsBack(t *testing.T) {
	bad := specimen(10)
	bad.Pods = 0
	if NewSizeTrunk(bad) != nil {
		t.Error("a trunk of invalid options")
	}
	var none *SizeTrunk
	if _, err := none.Simulate(bad); err == nil {
		t.Error("a nil trunk priced invalid options")
	}
	tr := NewSizeTrunk(specimen(3))
	other := specimen(10)
	other.DeadTime = 60
	got, err := tr.Simulate(other)
	want, _ := SimulateSize(other)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("other options: %v, %+v, want %+v", err, got, want)
	}
}
