package laws

import "testing"

var sink float64

func BenchmarkRequiredStandingDelay(b *testing.B) {
	for b.Loop() {
		sink += RequiredStandingDelay(90, 300)
	}
}

// The remedies search the table: tens of lookups, still microseconds.
func BenchmarkWindowToRest(b *testing.B) {
	for b.Loop() {
		w, _ := WindowToRest(60, 90)
		sink += w
	}
}

func BenchmarkDeadTimeToRest(b *testing.B) {
	for b.Loop() {
		tau, _ := DeadTimeToRest(60, 120)
		sink += tau
	}
}
