package phi

import "testing"

var sink float64

func BenchmarkPhi(b *testing.B) {
	ws := []float64{0.02, 0.3, 3.1, 47, 2000}
	for i := 0; b.Loop(); i++ {
		sink += Phi(ws[i%len(ws)])
	}
}

// One integration run at the default window, near the boundary.
func BenchmarkIntegrate(b *testing.B) {
	for b.Loop() {
		sink += Integrate(1/0.916, 3.33, DefaultOptions()).AmplitudeRatio
	}
}

func BenchmarkBisect(b *testing.B) {
	for b.Loop() {
		sink += Bisect(3.33)
	}
}
