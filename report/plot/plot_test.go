package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/capreport/capreport/analyze/phi"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/testutil"
	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/report/plot/internal/sample"
)

// panelCase states what one panel of a built figure must hold.
type panelCase struct {
	titleHas []string // substrings of the title
	xLabel   string   // the X axis label as the reader sees it
	yLabel   string
	legend   []string // every legend entry, in order
	xLog     bool
	yLog     bool
}

func (c panelCase) run(t *testing.T, p *panel) {
	t.Helper()
	for _, s := range c.titleHas {
		if !strings.Contains(p.plot.Title.Text, s) {
			t.Errorf("title %q lacks %q", p.plot.Title.Text, s)
		}
	}
	xl := p.plot.X.Label.Text
	if p.xLabel != "" {
		xl = p.xLabel
	}
	if xl != c.xLabel {
		t.Errorf("X label = %q, want %q", xl, c.xLabel)
	}
	if p.plot.Y.Label.Text != c.yLabel {
		t.Errorf("Y label = %q, want %q", p.plot.Y.Label.Text, c.yLabel)
	}
	if !slices.Equal(p.legend, c.legend) {
		t.Errorf("legend =\n  %q\nwant\n  %q", p.legend, c.legend)
	}
	if _, log := p.plot.X.Scale.(plot.LogScale); log != c.xLog {
		t.Errorf("X log scale = %v, want %v", log, c.xLog)
	}
	if _, log := p.plot.Y.Scale.(plot.LogScale); log != c.yLog {
		t.Errorf("Y log scale = %v, want %v", log, c.yLog)
	}
}

// find returns the named series.
func (p *panel) find(name string) (series, bool) {
	for _, s := range p.series {
		if s.name == name {
			return s, true
		}
	}
	return series{}, false
}

func mustSeries(t *testing.T, p *panel, name string) plotter.XYs {
	t.Helper()
	s, ok := p.find(name)
	if !ok {
		names := make([]string, len(p.series))
		for i, s := range p.series {
			names[i] = s.name
		}
		t.Fatalf("no series %q; have %q", name, names)
	}
	return s.xys
}

// yAt returns the Y of the point at x.
func yAt(t *testing.T, xys plotter.XYs, x float64) float64 {
	t.Helper()
	for _, p := range xys {
		if math.Abs(p.X-x) < 1e-9 {
			return p.Y
		}
	}
	t.Fatalf("no point at x = %v", x)
	return 0
}

// stepAt evaluates a PostStep series at x: the value of the last point at
// or before x.
func stepAt(xys plotter.XYs, x float64) (float64, bool) {
	y, ok := 0.0, false
	for _, p := range xys {
		if p.X > x {
			break
		}
		y, ok = p.Y, true
	}
	return y, ok
}

// stepValue evaluates a drawn PostStep series at x.
func stepValue(t *testing.T, xys plotter.XYs, x float64) float64 {
	t.Helper()
	y, ok := stepAt(xys, x)
	if !ok {
		t.Fatalf("step series starts after x = %v", x)
	}
	return y
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSizeFigure(t *testing.T) {
	w := sample.Specimen()
	fig, err := buildSize(w)
	if err != nil {
		t.Fatal(err)
	}
	// One staircase per overload (each on its own pod axis, so the 3x is
	// not flattened by the 10x), then the waiting times.
	if len(fig.panels) != 3 {
		t.Fatalf("panels = %d, want 3 (3x and 10x staircases, waiting time)", len(fig.panels))
	}
	first, top, bottom := fig.panels[0], fig.panels[1], fig.panels[2]
	key := []string{"ordered", "ready (serving)", "needed at target", "scale event (new count)", "capacity meets demand", "round start (1 round = 2 min)"}
	panelCase{
		titleHas: []string{"Size bill: shop/HorizontalPodAutoscaler/web", "3x overload: capacity at 105 s (1 round, bound 1)"},
		yLabel:   "replicas (pods)",
		legend:   append([]string{"3x overload"}, key...),
	}.run(t, first)
	if p := first.plot; p.Y.Min != 0 || p.Y.Max > 60 {
		t.Errorf("3x pod axis = [%v, %v], want a linear axis fitted to its 10..40 pods", p.Y.Min, p.Y.Max)
	}
	panelCase{
		titleHas: []string{"10x overload: capacity at 5 min 45 s (3 rounds, bound 3)", "peak 317 pods vs 100 needed"},
		xLabel:   "",
		yLabel:   "replicas (pods)",
		legend:   append([]string{"10x overload"}, key...),
		yLog:     true, // 10 to 317 pods
	}.run(t, top)
	panelCase{
		xLabel: "time after the demand step (min)",
		yLabel: "waiting time (s)",
		legend: []string{
			"3x: peak wait " + units.Duration(w.Size.Overloads[0].PeakWaitSeconds),
			"10x: peak wait " + units.Duration(w.Size.Overloads[1].PeakWaitSeconds),
			"latency target 30 s",
		},
	}.run(t, bottom)

	// The staircase is the timeline: at every sample, the drawn step
	// function has the sample's value.
	tl := w.Size.Overloads[1].Timeline
	ordered := mustSeries(t, top, "10x ordered")
	for i, x := range tl.T {
		if got := stepValue(t, ordered, float64(x)); got != float64(tl.Replicas[i]) {
			t.Fatalf("10x ordered at %d s = %v, want %d", x, got, tl.Replicas[i])
		}
	}
	if n := len(ordered); n >= len(tl.T) || ordered[n-1].X != float64(tl.T[len(tl.T)-1]) {
		t.Errorf("10x ordered: %d points ending at %v; want the steps only, to the end of the timeline", n, ordered[n-1].X)
	}
	for _, c := range []struct{ t, want float64 }{{0, 10}, {15, 16}, {30, 20}, {135, 32}, {150, 40}, {255, 64}, {390, 317}, {720, 317}} {
		if got := stepValue(t, ordered, c.t); got != c.want {
			t.Errorf("10x ordered at %v s = %v, want %v", c.t, got, c.want)
		}
	}
	// The 64 pods ordered at 255 s serve from 345 s.
	ready := mustSeries(t, top, "10x ready")
	if got := stepValue(t, ready, 340); got != 40 {
		t.Errorf("10x ready at 340 s = %v, want 40", got)
	}
	if got := stepValue(t, ready, 345); got != 64 {
		t.Errorf("10x ready at 345 s = %v, want 64", got)
	}
	if got := stepValue(t, mustSeries(t, top, "10x needed"), 100); got != 100 {
		t.Errorf("10x needed at 100 s = %v, want 100", got)
	}
	events := mustSeries(t, top, "10x scale events")
	want := plotter.XYs{{X: 15, Y: 16}, {X: 30, Y: 20}, {X: 135, Y: 32}, {X: 150, Y: 40}, {X: 255, Y: 64}, {X: 270, Y: 80}, {X: 375, Y: 160}, {X: 390, Y: 317}}
	if !slices.Equal(events, want) {
		t.Errorf("10x scale events = %v, want %v", events, want)
	}
	wait := mustSeries(t, bottom, "10x wait")
	if len(wait) != len(tl.Wait) || wait[len(wait)-1].Y != tl.Wait[len(tl.Wait)-1] {
		t.Errorf("10x wait does not follow the timeline")
	}
	// Both panels share the time axis.
	if top.plot.X.Min != bottom.plot.X.Min || top.plot.X.Max != bottom.plot.X.Max || top.plot.X.Min != -60 || top.plot.X.Max != 720 {
		t.Errorf("time axes: top [%v, %v], bottom [%v, %v], want both [-60, 720]",
			top.plot.X.Min, top.plot.X.Max, bottom.plot.X.Min, bottom.plot.X.Max)
	}
	if _, ok := top.find("30x ordered"); ok {
		t.Error("the 30x overload has no timeline and must not be drawn")
	}
}

func TestSizeFigureSmallRangeAndNoWait(t *testing.T) {
	w := sample.Specimen()
	o := w.Size.Overloads[0] // 3x: 10..40 pods
	tl := *o.Timeline
	tl.Wait = nil
	tl.Serving = []int32{0} // an unready start: 0 pods on a linear axis
	o.Timeline = &tl
	w.Size.Overloads = []contract.SizeOverload{o}
	w.Size.RoundSeconds = 0
	fig, err := buildSize(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.panels) != 1 {
		t.Fatalf("panels = %d, want 1 without waiting times", len(fig.panels))
	}
	panelCase{
		titleHas: []string{"3x overload: capacity at 105 s (1 round, bound 1)"},
		xLabel:   "time after the demand step (min)",
		yLabel:   "replicas (pods)",
		legend: []string{"3x overload", "ordered", "ready (serving)", "needed at target",
			"scale event (new count)", "capacity meets demand"},
	}.run(t, fig.panels[0])
	if p := fig.panels[0].plot; p.Y.Min != 0 || p.Y.Max < 40 {
		t.Errorf("linear Y axis = [%v, %v], want from 0 past 40", p.Y.Min, p.Y.Max)
	}
}

func TestTimeFigure(t *testing.T) {
	w := sample.Hunting()
	fig, err := buildTime(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.panels) != 2 {
		t.Fatalf("panels = %d, want 2 (replicas, backlog)", len(fig.panels))
	}
	top, bottom := fig.panels[0], fig.panels[1]
	tb := w.Time
	panelCase{
		titleHas: []string{"Time bill: jobs/ScaledObject/invoice-consumer", "hunts: 6–35 pods vs 20 needed", "swing 145 %", "standing delay 60 s vs"},
		yLabel:   "replicas (pods)",
		legend: []string{
			"rest band: need ± 15 % (a wider swing is a hunt)",
			"replicas (min 6, max 35, mean " + fmtNum(tb.ReplicasMean) + "; p5 " + fmtNum(tb.ReplicasP5) + ", p95 " + fmtNum(tb.ReplicasP95) + ")",
			"needed: 20 pods",
		},
	}.run(t, top)
	panelCase{
		xLabel: "time after the demand step (h)",
		yLabel: "backlog (messages)",
		legend: []string{"backlog (standing delay 60 s at rest)"},
	}.run(t, bottom)

	// The last hour of a 20-hour run, in hours (it read "1140-1200 min").
	reps := mustSeries(t, top, timeReplicas)
	if reps[0].X != 68400.0/3600 || reps[len(reps)-1].X != 72000.0/3600 {
		t.Fatalf("replicas span %v..%v h, want 19..20", reps[0].X, reps[len(reps)-1].X)
	}
	for i, x := range tb.Timeline.T {
		if got := stepValue(t, reps, float64(x)/3600); got != float64(tb.Timeline.Replicas[i]) {
			t.Fatalf("replicas at %d s = %v, want %d", x, got, tb.Timeline.Replicas[i])
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range reps {
		lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
	}
	if lo != 6 || hi != 35 {
		t.Errorf("replicas range %v..%v, want 6..35", lo, hi)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{timeNeeded, 20}, {timeBandLow, 17}, {timeBandHigh, 23}} {
		for _, p := range mustSeries(t, top, c.name) {
			if !near(p.Y, c.want, 1e-9) {
				t.Fatalf("%s = %v at %v, want %v", c.name, p.Y, p.X, c.want)
			}
		}
	}
	if b := mustSeries(t, bottom, timeBacklog); len(b) != len(tb.Timeline.Backlog) {
		t.Errorf("backlog has %d points, want %d", len(b), len(tb.Timeline.Backlog))
	}
}

func TestTimeFigureNeedFromBill(t *testing.T) {
	w := sample.Hunting()
	tl := *w.Time.Timeline
	tl.Needed, tl.Backlog = nil, nil
	tl.T, tl.Replicas = tl.T[:40], tl.Replicas[:40] // ten minutes: seconds
	w.Time.Timeline = &tl
	fig, err := buildTime(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.panels) != 1 {
		t.Fatalf("panels = %d, want 1 without a backlog", len(fig.panels))
	}
	p := fig.panels[0]
	if got := p.plot.X.Label.Text; got != "time after the demand step (s)" {
		t.Errorf("X label = %q", got)
	}
	need := mustSeries(t, p, timeNeeded)
	want := plotter.XYs{{X: 68400, Y: 20}, {X: float64(tl.T[39]), Y: 20}}
	if !slices.Equal(need, want) {
		t.Errorf("need = %v, want %v (NeededReplicas across the run)", need, want)
	}
}

func TestPhiFigure(t *testing.T) {
	w := sample.Hunting()
	fig, err := buildPhi(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.panels) != 1 {
		t.Fatalf("panels = %d, want 1", len(fig.panels))
	}
	p := fig.panels[0]
	tb := w.Time
	panelCase{
		titleHas: []string{"Φ curve: jobs/ScaledObject/invoice-consumer", "τ_eff = 100 s", "below the curve: the loop hunts"},
		xLabel:   "window W_eff / τ_eff (dead times, log scale)",
		yLabel:   "standing delay D / τ_eff (dead times)",
		legend: []string{
			"loop rests: D ≥ τ_eff·Φ(W_eff/τ_eff) (Prop. 4)",
			"Φ(w), computed (below it the loop hunts)",
			"harmonic balance, Prop. 5a (w ≥ 1; high by ≤ 3.3 % to w = 3.33)",
			"long-window form e / (1 + 30.6 / ln²(w / 0.07))",
			"ceiling e ≈ 2.72 (Prop. 5: D ≥ e·τ rests at any window)",
			"required: Φ(3.1) = " + fmtNum(tb.Phi) + " → D ≥ " + fmtNum(tb.RequiredStandingDelaySeconds) + " s",
			"invoice-consumer: D = 60 s = 0.6 τ_eff",
		},
		xLog: true,
	}.run(t, p)

	curve := mustSeries(t, p, phiCurve)
	if curve[0].X != 0.05 || !near(curve[len(curve)-1].X, 1000, 1e-9) {
		t.Errorf("Φ curve spans %v..%v, want 0.05..1000", curve[0].X, curve[len(curve)-1].X)
	}
	for i, c := range curve {
		if c.Y != phi.Phi(c.X) {
			t.Fatalf("curve[%d] = %v, want Φ(%v) = %v", i, c.Y, c.X, phi.Phi(c.X))
		}
		if i > 0 && c.Y < curve[i-1].Y {
			t.Fatalf("Φ curve falls at w = %v", c.X)
		}
		if c.Y >= math.E {
			t.Fatalf("Φ(%v) = %v reaches the ceiling", c.X, c.Y)
		}
	}
	// Published points, read back off the drawn curve (5 % tolerance for
	// the interpolation between samples).
	for _, c := range []struct{ w, phi float64 }{{0.1, 0.119}, {1, 0.573}, {3.33, 0.916}, {100, 1.719}} {
		if got := interp(curve, c.w); !near(got, c.phi, 0.05*c.phi) {
			t.Errorf("drawn Φ(%v) = %.3f, want %.3f", c.w, got, c.phi)
		}
	}
	for _, hb := range mustSeries(t, p, phiHB) {
		want, ok := phi.PhiHarmonicBalance(hb.X)
		if !ok || hb.Y != want {
			t.Fatalf("harmonic balance at %v = %v, want %v (defined: %v)", hb.X, hb.Y, want, ok)
		}
	}
	asym := mustSeries(t, p, phiAsym)
	if asym[0].X < 3.33 || asym[len(asym)-1].Y != phi.PhiAsymptotic(asym[len(asym)-1].X) {
		t.Errorf("long-window form starts at %v, want ≥ 3.33 (the default window), and must follow PhiAsymptotic", asym[0].X)
	}
	pt := mustSeries(t, p, phiWorkload)
	if len(pt) != 1 || !near(pt[0].X, 3.1, 1e-9) || !near(pt[0].Y, 0.6, 1e-3) {
		t.Errorf("workload point = %v, want (3.1, 0.6): W_eff/τ_eff = 310/100, D/τ_eff = 60/100", pt)
	}
	req := mustSeries(t, p, phiRequired)
	if len(req) != 1 || req[0] != (plotter.XY{X: tb.WindowInDeadTimes, Y: tb.Phi}) {
		t.Errorf("required point = %v, want (%v, %v)", req, tb.WindowInDeadTimes, tb.Phi)
	}
	if p.plot.Y.Min != 0 || p.plot.Y.Max <= math.E {
		t.Errorf("Y axis [%v, %v] must start at 0 and show the ceiling e", p.plot.Y.Min, p.plot.Y.Max)
	}
}

// interp reads a polyline at x (linear in ln x).
func interp(xys plotter.XYs, x float64) float64 {
	for i := 1; i < len(xys); i++ {
		if xys[i].X >= x {
			a, b := xys[i-1], xys[i]
			f := (math.Log(x) - math.Log(a.X)) / (math.Log(b.X) - math.Log(a.X))
			return a.Y + f*(b.Y-a.Y)
		}
	}
	return math.NaN()
}

func TestPhiFigureWithoutPoint(t *testing.T) {
	w := sample.Hunting()
	w.Time.Phi = 0 // the bill cannot place the workload
	fig, err := buildPhi(w)
	if err != nil {
		t.Fatal(err)
	}
	p := fig.panels[0]
	if _, ok := p.find(phiWorkload); ok {
		t.Error("a workload point without Φ in the bill")
	}
	if !strings.Contains(p.plot.Title.Text, "does not place the workload") {
		t.Errorf("title %q does not say why the point is missing", p.plot.Title.Text)
	}
}

func TestRoundsFigure(t *testing.T) {
	w := sample.Specimen()
	curve := w.Size.RoundsCurve
	curve[len(curve)-1].Rounds = nil // 300x: never met
	fig, err := buildRounds(w)
	if err != nil {
		t.Fatal(err)
	}
	p := fig.panels[0]
	panelCase{
		titleHas: []string{"Rounds to capacity against overload: shop/HorizontalPodAutoscaler/web", "g = 2", "one round = 2 min"},
		xLabel:   "overload k (× steady demand, log scale)",
		yLabel:   "rounds to capacity (× 2 min)",
		legend: []string{"simulated controller", "Prop. 2 bound: ceil(log_g(k·u*·r/ℓ))",
			fmt.Sprintf("capacity never met (maxReplicas %d reached; drawn above the curve)", w.MaxReplicas), "design overloads"},
		xLog: true,
	}.run(t, p)

	bound := mustSeries(t, p, roundsBound)
	if len(bound) != len(curve) {
		t.Fatalf("bound has %d points, want %d", len(bound), len(curve))
	}
	for i, b := range bound {
		if b.X != curve[i].K || b.Y != float64(*curve[i].Bound) {
			t.Fatalf("bound[%d] = %v, want (%v, %d)", i, b, curve[i].K, *curve[i].Bound)
		}
	}
	for _, c := range []struct{ k, want float64 }{{3, 1}, {10, 3}, {30, 4}, {100, 6}} {
		if got := yAt(t, mustSeries(t, p, roundsSimulated), c.k); got != c.want {
			t.Errorf("simulated rounds at %vx = %v, want %v", c.k, got, c.want)
		}
	}
	if sim := mustSeries(t, p, roundsSimulated); len(sim) != len(curve)-1 {
		t.Errorf("simulated has %d points, want %d (300x never met)", len(sim), len(curve)-1)
	}
	never := mustSeries(t, p, roundsNever)
	if len(never) != 1 || never[0].X != 300 || never[0].Y != 9 {
		t.Errorf("never = %v, want one mark at (300, 9): one above the highest count", never)
	}
	design := mustSeries(t, p, roundsDesign)
	want := plotter.XYs{{X: 3, Y: 1}, {X: 10, Y: 3}, {X: 30, Y: 4}}
	if !slices.Equal(design, want) {
		t.Errorf("design overloads = %v, want %v", design, want)
	}
}

func TestNoData(t *testing.T) {
	size, hunt := sample.Specimen(), sample.Hunting()
	noTimeline := sample.Specimen()
	for i := range noTimeline.Size.Overloads {
		noTimeline.Size.Overloads[i].Timeline = nil
	}
	noTimeline.Size.RoundsCurve = nil
	for _, c := range []struct {
		name string
		fn   func(contract.Workload, string) (Figure, error)
		w    contract.Workload
	}{
		{"size of a backlog workload", Size, hunt},
		{"rounds of a backlog workload", Rounds, hunt},
		{"time of a saturating workload", Time, size},
		{"phi of a saturating workload", Phi, size},
		{"size without timelines", Size, noTimeline},
		{"rounds without a curve", Rounds, noTimeline},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.fn(c.w, FormatSVG)
			if !errors.Is(err, ErrNoData) {
				t.Fatalf("err = %v, want ErrNoData", err)
			}
			if !strings.Contains(err.Error(), c.w.ID) {
				t.Errorf("error %q does not name the workload", err)
			}
		})
	}
}

func TestForWorkload(t *testing.T) {
	both := sample.Specimen()
	both.Time = sample.Hunting().Time
	for _, c := range []struct {
		name  string
		w     contract.Workload
		kinds []string
	}{
		{"size", sample.Specimen(), []string{KindSize, KindRounds}},
		{"time", sample.Hunting(), []string{KindTime, KindPhi}},
		{"both", both, []string{KindSize, KindRounds, KindTime, KindPhi}},
		{"unpriced", contract.Workload{ID: "a/HorizontalPodAutoscaler/b", Verdict: contract.VerdictUnpriced}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			figs, err := ForWorkload(c.w, FormatSVG)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, f := range figs {
				kinds = append(kinds, f.Kind)
				if !strings.HasSuffix(f.Name, "-"+f.Kind+".svg") {
					t.Errorf("name %q does not end in -%s.svg", f.Name, f.Kind)
				}
				if f.Title == "" || strings.Contains(f.Title, "\n") {
					t.Errorf("title %q: want the first line of the plot title", f.Title)
				}
			}
			if !slices.Equal(kinds, c.kinds) {
				t.Errorf("kinds = %q, want %q", kinds, c.kinds)
			}
		})
	}
	if _, err := ForWorkload(sample.Specimen(), "pdf"); err == nil || !strings.Contains(err.Error(), `"pdf"`) {
		t.Errorf("ForWorkload(pdf) err = %v, want an unknown-format error", err)
	}
	if _, err := Size(sample.Specimen(), "jpeg"); err == nil {
		t.Error("Size(jpeg) did not fail")
	}
}

func TestPNG(t *testing.T) {
	both := sample.Specimen()
	both.Time = sample.Hunting().Time
	want := map[string][2]int{
		// Size: two overload panels of 3.2 in and the waiting time's 2.6 in.
		// Time and Φ: wider than 10 in, so that their legends take at most
		// maxLegendShare of the width.
		KindSize: {960, 864}, KindTime: {1026, 768}, KindPhi: {1260, 576}, KindRounds: {960, 576},
	}
	figs, err := ForWorkload(both, FormatPNG)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 4 {
		t.Fatalf("%d figures, want 4", len(figs))
	}
	for _, f := range figs {
		img, err := png.Decode(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		b := img.Bounds()
		if got := [2]int{b.Dx(), b.Dy()}; got != want[f.Kind] {
			t.Errorf("%s: %dx%d px, want %dx%d", f.Name, got[0], got[1], want[f.Kind][0], want[f.Kind][1])
		}
		// Not a blank canvas: count the non-white pixels.
		ink := 0
		for y := b.Min.Y; y < b.Max.Y; y += 4 {
			for x := b.Min.X; x < b.Max.X; x += 4 {
				if r, g, bb, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bb < 0xf000 {
					ink++
				}
			}
		}
		if ink < 500 {
			t.Errorf("%s: only %d inked samples: blank figure?", f.Name, ink)
		}
	}
}

func TestSVG(t *testing.T) {
	both := sample.Specimen()
	both.Time = sample.Hunting().Time
	figs, err := ForWorkload(both, FormatSVG)
	if err != nil {
		t.Fatal(err)
	}
	builders := map[string]func(contract.Workload) (*figure, error){
		KindSize: buildSize, KindTime: buildTime, KindPhi: buildPhi, KindRounds: buildRounds,
	}
	for _, f := range figs {
		t.Run(f.Kind, func(t *testing.T) {
			texts := svgTexts(t, f.Data)
			fig, err := builders[f.Kind](both)
			if err != nil {
				t.Fatal(err)
			}
			// Every title line, axis label and legend entry is in the SVG.
			var want []string
			want = append(want, strings.Split(fig.title(), "\n")...)
			for _, p := range fig.panels {
				want = append(want, p.legend...)
				for _, l := range []string{p.plot.X.Label.Text, p.xLabel, p.plot.Y.Label.Text} {
					if strings.TrimSpace(l) != "" {
						want = append(want, l)
					}
				}
			}
			for _, s := range want {
				if !slices.Contains(texts, s) {
					t.Errorf("SVG lacks the text %q", s)
				}
			}
		})
	}
}

// svgTexts checks that data is well-formed XML with an <svg> root and
// returns the content of its <text> elements.
func svgTexts(t *testing.T, data []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	var root string
	inText := false
	var cur strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tk.Name.Local
			}
			if tk.Name.Local == "text" {
				inText = true
				cur.Reset()
			}
		case xml.CharData:
			if inText {
				cur.Write(tk)
			}
		case xml.EndElement:
			if tk.Name.Local == "text" {
				inText = false
				texts = append(texts, html.UnescapeString(cur.String()))
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts
}

func TestFileName(t *testing.T) {
	for _, c := range []struct {
		ref  contract.Ref
		kind string
		want string
	}{
		{contract.Ref{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop"}, KindSize, "shop-HorizontalPodAutoscaler-web-size.svg"},
		{contract.Ref{Kind: "ScaledObject", Name: "a/b c:d", Namespace: ""}, KindPhi, "ScaledObject-a_b_c_d-phi.svg"},
		{contract.Ref{Kind: "ScaledObject", Name: "..", Namespace: "ns"}, KindTime, "ns-ScaledObject-__-time.svg"},
		{contract.Ref{}, KindRounds, "workload-rounds.svg"},
	} {
		if got := FileName(contract.Workload{Autoscaler: c.ref}, c.kind, FormatSVG); got != c.want {
			t.Errorf("FileName(%+v) = %q, want %q", c.ref, got, c.want)
		}
	}
}

// BenchmarkForWorkload renders all four SVG figures of one workload; it
// must cost far less than a simulation (target < 5 ms).
func BenchmarkForWorkload(b *testing.B) {
	w := sample.Specimen()
	w.Time = sample.Hunting().Time
	for _, format := range []string{FormatSVG, FormatPNG} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := testutil.CPUTime()
			for b.Loop() {
				figs, err := ForWorkload(w, format)
				if err != nil || len(figs) != 4 {
					b.Fatalf("%d figures, %v", len(figs), err)
				}
			}
			// CPU time (user + system, GC included) per op: unlike ns/op it
			// does not grow when other processes share the cores.
			if cpu := testutil.CPUTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

func TestCompactSteps(t *testing.T) {
	in := plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 1}, {X: 2, Y: 3}, {X: 3, Y: 3}, {X: 4, Y: 3}, {X: 5, Y: 1}, {X: 6, Y: 1}}
	want := plotter.XYs{{X: 0, Y: 1}, {X: 2, Y: 3}, {X: 5, Y: 1}, {X: 6, Y: 1}}
	got := compactSteps(in)
	if !slices.Equal(got, want) {
		t.Fatalf("compactSteps = %v, want %v", got, want)
	}
	for x := 0.0; x <= 6; x += 0.5 {
		a, _ := stepAt(in, x)
		b, _ := stepAt(got, x)
		if a != b {
			t.Errorf("at %v: %v before compaction, %v after", x, a, b)
		}
	}
}

// A linear axis labels its ticks with the step's decimals: the hunting
// sample's hours read "19.200000000000003", wider than the tick spacing.
func TestLinearTickLabels(t *testing.T) {
	var got []string
	for _, tk := range (linTicks{}).Ticks(18, 20) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := []string{"18", "18.25", "18.5", "18.75", "19", "19.25", "19.5", "19.75", "20"}; !slices.Equal(got, want) {
		t.Errorf("ticks over [18, 20] = %q, want %q", got, want)
	}
	for _, c := range []struct {
		v, step float64
		want    string
	}{{96 * 0.2, 0.2, "19.2"}, {97 * 0.2, 0.2, "19.4"}, {3 * 0.1, 0.1, "0.3"}, {-0.5, 0.25, "-0.5"}, {1500, 500, "1500"}} {
		if got := stepLabel(c.v, c.step); got != c.want {
			t.Errorf("stepLabel(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

// Odd but possible bills render or report ErrNoData; none panics.
func TestDegenerateBills(t *testing.T) {
	one := &contract.Timeline{T: []int{0}, Replicas: []int32{3}, Serving: []int32{0}, Needed: []float64{math.NaN()}, Wait: []float64{0}, Backlog: []float64{0}}
	for _, c := range []struct {
		name string
		w    contract.Workload
	}{
		{"single-sample size timeline", contract.Workload{ID: "a/HPA/one", Size: &contract.SizeBill{
			Overloads: []contract.SizeOverload{{K: 2, Timeline: one}}}}},
		{"zero pods on the staircase", contract.Workload{ID: "a/HPA/zero", Size: &contract.SizeBill{RoundSeconds: 60,
			Overloads: []contract.SizeOverload{{K: 50, Timeline: &contract.Timeline{T: []int{0, 60, 120}, Replicas: []int32{0, 1, 100}}}}}}},
		{"timeline without replicas", contract.Workload{ID: "a/HPA/empty", Size: &contract.SizeBill{
			Overloads: []contract.SizeOverload{{K: 2, Timeline: &contract.Timeline{T: []int{0, 15}}}}}}},
		{"single-point rounds curve", contract.Workload{ID: "a/HPA/k", Size: &contract.SizeBill{
			RoundsCurve: []contract.RoundsPoint{{K: 10, Bound: ptr(3)}}}}},
		{"single-sample time timeline", contract.Workload{ID: "a/SO/one", Time: &contract.TimeBill{
			NeededReplicas: 4, Timeline: one}}},
		{"time bill far off the curve", contract.Workload{ID: "a/SO/far", Time: &contract.TimeBill{
			StandingDelaySeconds: 1000, RequiredStandingDelaySeconds: 50, Phi: 0.5, WindowInDeadTimes: 5000}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, format := range []string{FormatSVG, FormatPNG} {
				for _, fn := range []func(contract.Workload, string) (Figure, error){Size, Rounds, Time, Phi} {
					f, err := fn(c.w, format)
					if err != nil && !errors.Is(err, ErrNoData) {
						t.Fatalf("%v", err)
					}
					if err == nil && len(f.Data) == 0 {
						t.Fatalf("%s: empty figure", f.Kind)
					}
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
