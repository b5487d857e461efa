package twin

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"

	"github.com/capreport/capreport/analyze/laws"
)

// A zeroCase checks the scale-from-zero law (analyze/laws/zero.go) on the
// twin with KEDA's operator: a ScaledObject at zero replicas, messages
// arriving at demand per second from the first one, the activating
// message (the one that lifts the count above the activation threshold)
// timed to arrive a given offset after one of KEDA's polls. The first
// message then waits, by the law's terms, the activation wait, what is
// left of that polling interval, and the dead time; and never more than
// W₀ = ⌊A⌋/λ + P + τ. Everything runs in real time: KEDA's polling
// interval is whole seconds.
type zeroCase struct {
	name       string
	activation float64 // activationTargetValue, messages
	demand     float64 // messages per second
	polling    int64   // pollingInterval, seconds
	deadTime   int64   // seconds
	after      float64 // the activating message arrives this long after a poll
}

// bound is W₀, the ledger's first-message wait for the case.
func (c zeroCase) bound() float64 {
	return laws.FirstMessageWait(float64(c.polling), float64(c.deadTime), c.activation, c.demand)
}

// zeroCases: the default threshold and a threshold of 3 messages, with
// the activating message just after a poll (the wait near its supremum
// W₀) and just before one (near its least).
var zeroCases = []zeroCase{
	{name: "z-a0-late", activation: 0, demand: 2, polling: 5, deadTime: 10, after: 0.3},
	{name: "z-a3-late", activation: 3, demand: 2, polling: 5, deadTime: 10, after: 0.3},
	{name: "z-a3-early", activation: 3, demand: 2, polling: 5, deadTime: 10, after: 4.2},
}

// zeroSlack is how much longer than the law's wait the twin's may be: the
// time the law counts as none (KEDA's scale request, the Deployment and
// ReplicaSet controllers creating the pod, kwok starting it), a few
// tenths of a second on the loopback.
const zeroSlack = 1.0

// TestFirstMessage runs the zero cases side by side on one plane with
// KEDA.
func TestFirstMessage(t *testing.T) {
	cases := selected(t, zeroCases, func(c zeroCase) string { return c.name })
	if len(cases) == 0 {
		t.Log("TWIN_CASES selects no scale-from-zero case")
		return
	}
	zs := &zeroRuns{byNS: map[string]*zeroRun{}}
	for _, c := range cases {
		zs.byNS[c.name] = &zeroRun{c: c}
	}
	plane := StartPlane(t, PlaneOptions{SyncPeriod: 15 * time.Second, Metrics: newRuns(),
		KEDA: true, Backlog: zs.backlogMilli, ObserveMetricsCalls: zs.observe})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	factory := informers.NewSharedInformerFactory(plane.Client, 0)
	pods := factory.Core().V1().Pods().Lister()
	deployments := factory.Apps().V1().Deployments().Lister()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	var wg sync.WaitGroup
	for _, c := range cases {
		z := zs.byNS[c.name]
		z.run = &run{ns: c.name, pods: pods, clock: &Clock{Compression: 1}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runZero(ctx, plane, z, func() int32 {
				d, err := deployments.Deployments(c.name).Get(app)
				if err != nil || d.Spec.Replicas == nil {
					return 0
				}
				return *d.Spec.Replicas
			}); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
		}()
	}
	wg.Wait()
	for _, c := range cases {
		checkZero(t, zs.byNS[c.name])
	}
}

// zeroRun is one zero case on the twin: KEDA's polls (its backlog
// requests), the first message, KEDA's order and the first ready pod.
type zeroRun struct {
	*run
	c zeroCase

	mu      sync.Mutex
	polls   []time.Time
	first   time.Time // the first message; zero until it is set
	ordered time.Time // the Deployment left zero replicas
	ready   time.Time // its first pod turned ready
}

// zeroRuns is the backlog of every zero run, by namespace.
type zeroRuns struct {
	byNS map[string]*zeroRun
}

// backlogMilli is the count of messages that arrived evenly at the case's
// demand from the first: ⌊λ(t − t₀)⌋ + 1 from t₀ on, none before.
func (zs *zeroRuns) backlogMilli(ns string) (int64, bool) {
	z := zs.byNS[ns]
	if z == nil {
		return 0, false
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.first.IsZero() || time.Now().Before(z.first) {
		return 0, true
	}
	return 1000 * int64(math.Floor(z.c.demand*time.Since(z.first).Seconds())+1), true
}

// observe records each backlog request: at zero replicas the HPA
// controller reads nothing, so every one is a poll of KEDA's.
func (zs *zeroRuns) observe(_, ns string) {
	if z := zs.byNS[ns]; z != nil {
		z.mu.Lock()
		z.polls = append(z.polls, time.Now())
		z.mu.Unlock()
	}
}

// runZero creates the case's Deployment at zero replicas and its
// ScaledObject (no floor), learns the phase of KEDA's polls from two of
// them, times the first message so that the activating one arrives the
// case's offset after a poll, and waits for the first pod to turn ready.
func runZero(ctx context.Context, p *Plane, z *zeroRun, replicas func() int32) error {
	c := z.c
	if err := createWorkload(ctx, p, z.run, 100, 100, c.deadTime); err != nil {
		return err
	}
	trigger := map[string]any{"type": "metrics-api", "metricType": "AverageValue", "metadata": map[string]any{
		"url": p.BacklogURL + z.ns, "valueLocation": "backlog", "targetValue": "100",
		"activationTargetValue": strconv.FormatFloat(c.activation, 'f', -1, 64)}}
	spec := map[string]any{"minReplicaCount": int64(0), "maxReplicaCount": int64(10),
		"pollingInterval": c.polling, "cooldownPeriod": int64(300), "triggers": []any{trigger}}
	if err := createScaledObject(ctx, p, z.run, spec); err != nil {
		return err
	}
	last, err := z.poll(ctx, 2)
	if err != nil {
		return err
	}
	period := time.Duration(c.polling) * time.Second
	activating := last.Add(period + time.Duration(c.after*float64(time.Second)))
	z.mu.Lock()
	z.first = activating.Add(-time.Duration(laws.ActivationWait(c.activation, c.demand) * float64(time.Second)))
	z.mu.Unlock()
	limit := time.Duration((c.bound() + 10) * float64(time.Second))
	return wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Until(z.first)+limit, true, func(context.Context) (bool, error) {
		now := time.Now()
		z.mu.Lock()
		defer z.mu.Unlock()
		if z.ordered.IsZero() && replicas() > 0 {
			z.ordered = now
		}
		if z.ready.IsZero() && z.run.ready() > 0 {
			z.ready = now
		}
		return !z.ready.IsZero(), nil
	})
}

// poll waits until KEDA has polled n times, and returns the last poll.
func (z *zeroRun) poll(ctx context.Context, n int) (time.Time, error) {
	var last time.Time
	err := wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(context.Context) (bool, error) {
		z.mu.Lock()
		defer z.mu.Unlock()
		if len(z.polls) < n {
			return false, nil
		}
		last = z.polls[len(z.polls)-1]
		return true, nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("KEDA polled fewer than %d times: %w", n, err)
	}
	return last, nil
}

// zeroFigures are the figures a zero case is judged on, in seconds.
type zeroFigures struct {
	// Wait is the first message's wait until a pod is ready: the law's at
	// the phase KEDA's polls had in the run, and the twin's.
	Wait float64 `json:"wait"`
	// Order is when KEDA took the Deployment from zero, after the
	// activating message: the rest of the polling interval by the law.
	Order float64 `json:"order"`
}

// zeroVerdict is one zero case's line of docs/fidelity.md.
type zeroVerdict struct {
	Case string `json:"case"`
	// Bound is W₀, the supremum the ledger prices.
	Bound     float64     `json:"bound"`
	After     float64     `json:"after"` // the activating message, seconds after a poll
	Predicted zeroFigures `json:"predicted"`
	Observed  zeroFigures `json:"observed"`
	Agree     bool        `json:"agree"`
	Why       []string    `json:"why,omitempty"`
}

// checkZero compares a run with the law at the phase KEDA's polls had: the
// poll that found the trigger active is the first at or after the
// activating message, and the law's wait is the activation wait, the time
// to that poll and the dead time. The twin's wait may exceed it by
// zeroSlack, and never W₀ by more.
func checkZero(t *testing.T, z *zeroRun) {
	t.Helper()
	c := z.c
	z.mu.Lock()
	defer z.mu.Unlock()
	v := zeroVerdict{Case: c.name, Bound: c.bound()}
	activationWait := laws.ActivationWait(c.activation, c.demand)
	activating := z.first.Add(time.Duration(activationWait * float64(time.Second)))
	var found time.Time
	for _, p := range z.polls {
		if !p.Before(activating) {
			found = p
			break
		}
	}
	if found.IsZero() || z.ready.IsZero() || z.ordered.IsZero() {
		t.Errorf("%s: no poll after the activating message, or no pod ordered or ready (polls %d)", c.name, len(z.polls))
		return
	}
	toPoll := found.Sub(activating).Seconds()
	v.After = float64(c.polling) - toPoll
	v.Predicted = zeroFigures{Wait: activationWait + toPoll + float64(c.deadTime), Order: toPoll}
	v.Observed = zeroFigures{Wait: z.ready.Sub(z.first).Seconds(), Order: z.ordered.Sub(activating).Seconds()}
	if d := v.Observed.Wait - v.Predicted.Wait; d < 0 || d > zeroSlack {
		v.Why = append(v.Why, fmt.Sprintf("the wait is %.2f s from the law's", d))
	}
	if v.Observed.Wait > v.Bound+zeroSlack {
		v.Why = append(v.Why, "the wait exceeds W₀")
	}
	v.Agree = len(v.Why) == 0
	if !v.Agree {
		t.Errorf("%s: the twin disagrees with the law (%v): %+v", c.name, v.Why, v)
	}
	t.Logf("%s: W₀ %.2f s; the law at this phase %+v, observed %+v; polls at %v", c.name, v.Bound, v.Predicted, v.Observed, z.offsets())
	writeVerdict(t, "zero-"+c.name, v)
}

// offsets are the polls' times in seconds from the first message.
func (z *zeroRun) offsets() []string {
	var out []string
	for _, p := range z.polls {
		out = append(out, fmt.Sprintf("%.2f", p.Sub(z.first).Seconds()))
	}
	return out
}
