// Package phi computes Φ(w), the standing delay (in dead times) that a
// backlog-scaled loop with a downscale window of w dead times needs in order
// to rest after an upward step in demand ("The Delay a Window Demands",
// Proposition 4: the loop rests iff D ≥ τ·Φ(W/τ)).
//
// Φ has no closed form. It is defined by integrating the idealized min-max
// loop and bisecting on the gain (Integrate, CriticalGain, BisectWith),
// which costs a fraction of a second per value. Phi answers from a table that
// the generator in ./gen computes once with exactly that integrator; the
// tests re-derive sample points to keep the table honest. The two published
// approximations (Proposition 5a's harmonic balance and the long-window
// form) and the reference lines of Propositions 3 and 5 are here as
// cross-checks, never as substitutes.
//
// Everything is a pure function of its arguments.
package phi

//go:generate go run ./gen -o table.go
