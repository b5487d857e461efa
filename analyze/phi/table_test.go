package phi

import (
	"math"
	"testing"

	"github.com/capreport/capreport/internal/testutil"
)

// Grid points re-derived exactly: a stale table (generator or integrator
// changed without regenerating) fails here. Run `go generate ./analyze/phi`.
func TestTableMatchesIntegrator(t *testing.T) {
	testutil.SkipIfShort(t)
	t.Parallel()
	for _, i := range []int{0, 30, 50, len(tableW) - 1} {
		if got := Bisect(tableW[i]); got != tablePhi[i] {
			t.Errorf("table point w=%g: %v, integrator %v; regenerate", tableW[i], tablePhi[i], got)
		}
	}
}

// Off-grid points, where the interpolation is doing the work, against a
// fresh bisection. The points are whole Euler steps (w·300 an integer), as
// the integrator sees them. The tolerance is the integrator's own jitter:
// from one step count to the next its Φ wobbles by up to 0.2 % around a
// smooth curve (the crossing the half-cycle test sees moves by one step).
func TestInterpolationBetweenGridPoints(t *testing.T) {
	testutil.SkipIfShort(t)
	t.Parallel()
	for _, w := range []float64{0.07, 0.3, 1.5, 3.1, 7, 50, 250} {
		want := Bisect(w)
		if got := Phi(w); !relClose(got, want, 0.002) {
			t.Errorf("Phi(%g) = %.5f, integrator %.5f", w, got, want)
		}
	}
}

// Beyond the table the matched long-window form still tracks the
// integrator (the pinned horizon covers two window lengths at w = 1500).
func TestBeyondTable(t *testing.T) {
	testutil.SkipIfShort(t)
	t.Parallel()
	want := Bisect(1500)
	if got := Phi(1500); !relClose(got, want, 0.01) {
		t.Errorf("Phi(1500) = %.4f, integrator %.4f", got, want)
	}
}

// Below the table the power-law extension goes to 0 and joins the table.
func TestBelowTable(t *testing.T) {
	w0 := tableW[0]
	if got := Phi(w0 * (1 - 1e-12)); !relClose(got, tablePhi[0], 1e-9) {
		t.Errorf("Phi just below the table = %g, want %g", got, tablePhi[0])
	}
	// A power law through the origin with the exponent of the first
	// interval (about 0.8: Φ/w grows as w shrinks, as the computed points
	// 0.119 at 0.1 and 0.069 at 0.05 already show).
	p := math.Log10(Phi(1e-5) / Phi(1e-6))
	if !(p > 0.6 && p < 1) {
		t.Errorf("exponent below the table = %.3f, want about 0.8", p)
	}
	if got := Phi(1e-300); !(got > 0 && got < 1e-200) {
		t.Errorf("Phi(1e-300) = %g, want a tiny positive value", got)
	}
}

func TestTableMonotoneBelowCeiling(t *testing.T) {
	for i := range tablePhi {
		if !(tablePhi[i] > 0 && tablePhi[i] < Ceiling) {
			t.Errorf("tablePhi[%d] = %g outside (0, e)", i, tablePhi[i])
		}
		if i > 0 && !(tableW[i] > tableW[i-1] && tablePhi[i] > tablePhi[i-1]) {
			t.Errorf("table not increasing at %d", i)
		}
	}
	// The interpolant too, densely, from far below to far beyond the table.
	prev := 0.0
	for lw := -8.0; lw <= 30; lw += 0.001 {
		w := math.Pow(10, lw)
		p := Phi(w)
		if !(p >= prev) || !(p < Ceiling) {
			t.Fatalf("Phi(%g) = %g after %g: not increasing below e", w, p, prev)
		}
		prev = p
	}
	if got := Phi(math.Inf(1)); got != Ceiling {
		t.Errorf("Phi(+Inf) = %g, want e", got)
	}
	for _, w := range []float64{-1, math.NaN()} {
		if got := Phi(w); !math.IsNaN(got) {
			t.Errorf("Phi(%g) = %g, want NaN", w, got)
		}
	}
}
