package laws

import (
	"math"
	"testing"
)

// zeroCase is one first-message wait: KEDA's polling interval P, the dead
// time τ, the activation threshold A and the demand λ, in seconds and
// messages.
type zeroCase struct {
	name                       string
	poll, tau, activation, lam float64
	messages, activationWait   float64
	want                       float64
}

func (c zeroCase) run(t *testing.T) {
	t.Helper()
	if got := ActivationMessages(c.activation); got != c.messages {
		t.Errorf("%s: ActivationMessages(%v) = %v, want %v", c.name, c.activation, got, c.messages)
	}
	if got := ActivationWait(c.activation, c.lam); math.Abs(got-c.activationWait) > 1e-9 {
		t.Errorf("%s: ActivationWait = %v, want %v", c.name, got, c.activationWait)
	}
	if got := FirstMessageWait(c.poll, c.tau, c.activation, c.lam); math.Abs(got-c.want) > 1e-9 {
		t.Errorf("%s: FirstMessageWait = %v, want %v", c.name, got, c.want)
	}
	// The law is the worst case over where the polls fall: replay KEDA's
	// loop at every phase and check the worst wait approaches W₀ from
	// below, within one phase step.
	if worst, step := worstPolledWait(c); worst > c.want+1e-9 || worst < c.want-step-1e-9 {
		t.Errorf("%s: replayed worst wait %v, law %v (phase step %v)", c.name, worst, c.want, step)
	}
}

// worstPolledWait replays the operator: messages arrive from t = 0 every
// 1/λ; polls fall at φ + kP; the first poll at which the count is above A
// orders the pod, which serves τ later. It returns the worst wait of the
// message at t = 0 over phases φ in (0, P], and the phase step.
func worstPolledWait(c zeroCase) (worst, step float64) {
	const phases = 1000
	step = c.poll / phases
	n := ActivationMessages(c.activation)
	arrival := 0.0 // of the message that lifts the count above A
	if n > 1 {
		arrival = (n - 1) / c.lam
	}
	for i := 1; i <= phases; i++ {
		phi := float64(i) * step
		// The first poll φ + kP at or after the arrival.
		k := math.Max(0, math.Ceil((arrival-phi)/c.poll))
		poll := phi + k*c.poll
		worst = math.Max(worst, poll+c.tau)
	}
	return worst, step
}

func TestFirstMessageWait(t *testing.T) {
	for _, c := range []zeroCase{
		// KEDA's defaults (30-s polls, activation 0) with the essays' 90-s
		// dead time: two minutes, more than the 89.6-s latency floor of the
		// same consumer at rest.
		{name: "defaults", poll: 30, tau: 90, activation: 0, lam: 50, messages: 1, want: 120},
		{name: "5-s polls", poll: 5, tau: 20, activation: 0, lam: 5, messages: 1, want: 25},
		// Strictly above 9: the tenth message, 9/λ after the first.
		{name: "activation 9 at 5/s", poll: 5, tau: 20, activation: 9, lam: 5, messages: 10, activationWait: 1.8, want: 26.8},
		// A fractional threshold (rabbitmq, prometheus) rounds down.
		{name: "activation 2.5", poll: 10, tau: 60, activation: 2.5, lam: 1, messages: 3, activationWait: 2, want: 72},
	} {
		c.run(t)
	}
}

func TestActivationEdges(t *testing.T) {
	// A negative threshold is always exceeded: no message is needed.
	if n, w := ActivationMessages(-1), ActivationWait(-1, 5); n != 0 || w != 0 {
		t.Errorf("negative threshold: %v messages, %v s; want 0, 0", n, w)
	}
	// More than one message needed and none arrive: it never activates.
	if w := ActivationWait(3, 0); !math.IsInf(w, 1) {
		t.Errorf("no demand: activation wait %v, want +Inf", w)
	}
	// The default threshold needs no demand at all.
	if w := ActivationWait(0, 0); w != 0 {
		t.Errorf("threshold 0, no demand: %v, want 0", w)
	}
	if got := IdleAfter(300, 30); got != 330 {
		t.Errorf("IdleAfter(300, 30) = %v, want 330", got)
	}
}
