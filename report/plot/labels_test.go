package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/analyze/sim"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/rules"
)

// closeRounds is a Size bill with rounds of r seconds and a run per
// overload in ks, each from warmup seconds before the step to end after
// it: the count doubles every round from 10 pods until it meets k × 10.
// Its rounds curve holds every k of ks, whose design labels then sit as
// close as the overloads are.
func closeRounds(r, warmup, end int, ks ...float64) contract.Workload {
	dt := max(1, (warmup+end)/400)
	size := &contract.SizeBill{GrowthFactor: 2, RoundSeconds: r}
	var names []string
	for _, k := range ks {
		names = append(names, fmtK(k))
		need := int32(math.Ceil(10 * k))
		rounds := int(math.Ceil(math.Log2(k)))
		o := contract.SizeOverload{K: k, Rounds: ptr(rounds), RoundsBound: ptr(rounds), TimeToCapacitySeconds: ptr(rounds * r),
			NeededReplicas: int(need), Timeline: &contract.Timeline{}}
		for t := -warmup; t <= end; t += dt {
			n := int32(10)
			if t >= 0 {
				n = min(need, 10<<min(t/r+1, 20))
			}
			o.Timeline.T = append(o.Timeline.T, t)
			o.Timeline.Replicas = append(o.Timeline.Replicas, n)
			o.PeakReplicas = max(o.PeakReplicas, int(n))
		}
		size.Overloads = append(size.Overloads, o)
		size.RoundsCurve = append(size.RoundsCurve, contract.RoundsPoint{K: k, Rounds: ptr(rounds), Bound: ptr(rounds)})
	}
	return contract.Workload{
		ID:         fmt.Sprintf("close/r%d-from%d-to%d-%s", r, -warmup, end, strings.Join(names, ",")),
		Autoscaler: contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "close", Namespace: "test"},
		Signal:     "saturating",
		Size:       size,
	}
}

// shortRounds is a Size bill priced by capreport's own model with a round
// of dead time + window = 5 + 15 s and a growth factor of 1/0.9 (limit =
// request, 90 % target), so that the 30x run takes dozens of rounds.
func shortRounds(t *testing.T) contract.Workload {
	t.Helper()
	cfg := hpa.DefaultConfig()
	cfg.SyncPeriod = 5e9
	bill, err := rules.PriceSize(rules.SizeModel{
		Run: sim.SizeOptions{
			Controller: sim.Controller{Config: cfg, MinReplicas: 2, MaxReplicas: 100_000},
			Pods:       2, RequestMilli: 500, LimitMilli: 500, Target: 90,
			PodRate: 50, DeadTime: 5, MetricWindow: 15, Series: true,
		},
		Overloads:   []float64{3, 30},
		RoundsCurve: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return contract.Workload{
		ID:         "model/short-rounds",
		Autoscaler: contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "short-rounds", Namespace: "test"},
		Signal:     "saturating",
		Size:       bill,
	}
}

// No two texts of a Size or Rounds figure overlap, and none is outside the
// canvas, when rounds are many and close: rounds of 1 s to 2 min over runs
// of 10 min to 6 h, a long warm-up before three rounds (where the labels
// of a real 3x panel read "roundro1nd2nd3"), design overloads close
// together, figures 5 to 20 in wide, and a bill from the model with 20-s
// rounds.
func TestCloseRoundLabels(t *testing.T) {
	ws := []contract.Workload{
		closeRounds(20, 3600, 60, 3, 30),
		closeRounds(15, 60, 600, 2, 2.5, 3, 4, 5, 30),
		shortRounds(t),
	}
	for _, r := range []int{1, 5, 15, 60, 120} {
		for _, span := range [][2]int{{60, 600}, {600, 3600}, {60, 21600}} {
			if r*3600 >= span[1] { // not 21600 lines a panel
				ws = append(ws, closeRounds(r, span[0], span[1], 3, 30))
			}
		}
	}
	widths := []vg.Length{5 * vg.Inch, figWidth, 20 * vg.Inch}
	if testing.Short() {
		widths = []vg.Length{figWidth}
	}
	for _, w := range ws {
		for kind, build := range map[string]func(contract.Workload) (*figure, error){KindSize: buildSize, KindRounds: buildRounds} {
			for _, width := range widths {
				fig, err := build(w)
				if err != nil {
					t.Fatalf("%s %s: %v", w.ID, kind, err)
				}
				fig.width = width
				checkText(t, fmt.Sprintf("%s-%s-%.0fin", w.ID, kind, width/vg.Inch), fig)
			}
		}
	}
}

// The thinning rule: every round named in full when all fit, else the
// first in full and the others by their number at the least step of 1, 2,
// 5, 10… that fits, with the last round when it fits too.
func TestRoundLabels(t *testing.T) {
	// 5 pt a character: "round 1" is 35 pt, "12" 10 pt.
	width := func(s string) vg.Length { return vg.Length(5 * len(s)) }
	starts := func(n int, d vg.Length) []roundStart {
		var s []roundStart
		for i := range n {
			s = append(s, roundStart{n: i + 1, x: vg.Length(i) * d})
		}
		return s
	}
	texts := func(ls []roundLabel) []string {
		var out []string
		for _, l := range ls {
			out = append(out, l.text)
		}
		return out
	}
	for _, tc := range []struct {
		n     int
		d     vg.Length
		right vg.Length
		want  []string
	}{
		{3, 50, 1000, []string{"round 1", "round 2", "round 3"}},
		// round 3 would run past the right edge.
		{3, 50, 120, []string{"round 1", "round 2"}},
		// "round 10" is 40 pt, past the 50-pt spacing less the gap.
		{12, 45, 1000, []string{"round 1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}},
		// 12 pt apart: the numbers need a step of 2, "round 1" one of 5.
		{23, 12, 1000, []string{"round 1", "5", "10", "15", "20", "23"}},
		// 21 is too close to 20 to be added.
		{21, 12, 1000, []string{"round 1", "5", "10", "15", "20"}},
		{100, 3, 1000, []string{"round 1", "20", "40", "60", "80", "100"}},
		{5, 0.5, 1000, []string{"round 1"}},
	} {
		got := texts(roundLabels(starts(tc.n, tc.d), width, tc.right))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d rounds %v pt apart: %q, want %q", tc.n, tc.d, got, tc.want)
		}
	}
	// Lines 3 pt apart are drawn at every 5th round (15 pt), 1 pt apart
	// at every 10th.
	for _, tc := range []struct {
		n    int
		d    vg.Length
		want []int
	}{
		{4, 10, []int{1, 2, 3, 4}},
		{12, 3, []int{1, 5, 10}},
		{31, 1, []int{1, 10, 20, 30}},
	} {
		var got []int
		for _, s := range roundLines(starts(tc.n, tc.d)) {
			got = append(got, s.n)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("lines of %d rounds %v pt apart: %v, want %v", tc.n, tc.d, got, tc.want)
		}
	}
	for k, want := range map[int]int{1: 2, 2: 5, 5: 10, 10: 20, 20: 50, 50: 100} {
		if got := nextStep(k); got != want {
			t.Errorf("nextStep(%d) = %d, want %d", k, got, want)
		}
	}
}
