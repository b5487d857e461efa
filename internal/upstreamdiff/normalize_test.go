package upstreamdiff

import (
	"math/rand/v2"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v2defaults "k8s.io/kubernetes/pkg/apis/autoscaling/v2"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/internal/upstreamdiff/podautoscaler"
)

// apiDefaulted is the HPA as the API server stores it: behavior defaulted
// field by field, the scale-down window still unset if the user left it.
func apiDefaulted(b *autoscalingv2.HorizontalPodAutoscalerBehavior) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{Behavior: b.DeepCopy()}}
	v2defaults.SetDefaults_HorizontalPodAutoscalerBehavior(h)
	return h
}

func defaultBehaviorCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	window := g.downscaleWindow()
	var b *autoscalingv2.HorizontalPodAutoscalerBehavior
	if g.chance(0.9) {
		b = g.behavior()
	}
	input := map[string]any{"behavior": b, "window": window.String()}
	port := hpa.DefaultBehavior(b.DeepCopy(), int32(window/time.Second))
	// The controller fills an unset scale-down window from its flag.
	h := apiDefaulted(b)
	podautoscaler.NewController(0.1, window).MaybeInitScaleDownStabilizationWindow(h)
	up := h.Spec.Behavior
	return diff(input, port, up)
}

// step is one reconcile of a normalization sequence: the wait before it,
// the current replicas and the metrics' proposal.
type step struct {
	Wait     time.Duration
	Current  int32
	Proposal int32
}

// outcome is what one reconcile decides and leaves behind.
type outcome struct {
	Desired                   int32
	AbleToScale, ScaleLimited string
	State                     state
}

// normalizeCase runs a short sequence of reconciles on both sides, so that
// the stored recommendations and scale events of one step feed the next,
// and compares every step's decision and state. Waits advance the bubble's
// clock. Only the metric branch of reconcileAutoscaler is driven (current
// within [min, max] and not a scaled-to-zero target), as upstream's
// normalizers are only reached there.
func normalizeCase(withBehavior bool) caseFunc {
	return func(r *rand.Rand, now time.Time) string {
		g := gen{r: r, now: now}
		cfg := hpa.DefaultConfig()
		cfg.DownscaleStabilizationWindow = g.downscaleWindow()
		minR := int32(g.between(0, 4))
		maxR := max(minR, 1) + int32(g.between(0, 25))
		var b *autoscalingv2.HorizontalPodAutoscalerBehavior
		if withBehavior {
			b = g.behavior()
		}
		port := hpa.NewAutoscaler(cfg, &minR, maxR, b.DeepCopy())
		ctl := podautoscaler.NewController(cfg.Tolerance, cfg.DownscaleStabilizationWindow)
		if g.chance(0.5) {
			g.seedHistory(port, ctl)
		}
		input := map[string]any{"window": cfg.DownscaleStabilizationWindow.String(), "min": minR, "max": maxR, "behavior": b,
			"history": state{upRecs(port.Recommendations), upEvents(port.ScaleUpEvents), upEvents(port.ScaleDownEvents)}}
		current := minR + int32(g.between(0, int(maxR-minR)))
		var steps []step
		for i := range g.between(1, 6) {
			s := g.nextStep(i, current, minR, maxR, cfg.DownscaleStabilizationWindow)
			steps = append(steps, s)
			input["steps"] = steps
			time.Sleep(s.Wait)
			p, u := portStep(port, s), upstreamStep(ctl, b, s, minR, maxR)
			if d := diff(input, p, u); d != "" {
				return d
			}
			current = p.Desired
		}
		return ""
	}
}

// seedHistory gives both sides the same earlier recommendations and events,
// as if the HPA had been reconciled before.
func (g gen) seedHistory(port *hpa.Autoscaler, ctl podautoscaler.Controller) {
	port.Recommendations = g.recommendations()
	port.ScaleUpEvents, port.ScaleDownEvents = g.events(), g.events()
	if len(port.Recommendations) == 0 {
		port.Recommendations = nil
	}
	ctl.SetState(upRecs(port.Recommendations), upEvents(port.ScaleUpEvents), upEvents(port.ScaleDownEvents))
}

// nextStep mostly keeps the replicas the last step decided, as the target
// would, and sometimes has them moved (by hand or a slow rollout) within
// [min, max]. Waits are sync periods, the window itself, or none.
func (g gen) nextStep(i int, current, minR, maxR int32, window time.Duration) step {
	s := step{Current: current, Proposal: int32(g.between(-2, int(2*maxR)+5))}
	if i > 0 {
		s.Wait = []time.Duration{0, 15 * time.Second, 15 * time.Second, 30 * time.Second, window, time.Duration(g.between(1, 400)) * time.Second}[g.intn(6)]
	}
	if g.chance(0.2) {
		s.Current = minR + int32(g.between(0, int(maxR-minR)))
	}
	return s
}

func portStep(a *hpa.Autoscaler, s step) outcome {
	d := a.Reconcile(time.Now(), s.Current, []hpa.MetricProposal{{Replicas: s.Proposal}})
	return outcome{d.Desired, d.StabilizationReason, d.Reason,
		state{upRecs(a.Recommendations), upEvents(a.ScaleUpEvents), upEvents(a.ScaleDownEvents)}}
}

// upstreamStep is reconcileAutoscaler's metric branch around the
// normalizer: the initial recommendation, the proposal floored at 0 (the
// desired count starts at 0 and takes the proposal only if higher), the
// normalizer, and the scale event of a rescale. The HPA is a fresh copy
// each time, as reconcileAutoscaler deep-copies the informer's object.
func upstreamStep(ctl podautoscaler.Controller, b *autoscalingv2.HorizontalPodAutoscalerBehavior, s step, minR, maxR int32) outcome {
	h := apiDefaulted(b)
	h.Spec.MaxReplicas = maxR
	ctl.RecordInitialRecommendation(s.Current)
	desired := max(0, s.Proposal)
	if b == nil {
		desired = ctl.NormalizeDesiredReplicas(h, s.Current, desired, minR)
	} else {
		desired = ctl.NormalizeDesiredReplicasWithBehaviors(h, s.Current, desired, minR)
	}
	if desired != s.Current {
		ctl.StoreScaleEvent(h.Spec.Behavior, s.Current, desired)
	}
	recs, up, down := ctl.State()
	return outcome{desired, reasonOf(h, autoscalingv2.AbleToScale), reasonOf(h, autoscalingv2.ScalingLimited), state{recs, up, down}}
}

func reasonOf(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) string {
	for _, c := range h.Status.Conditions {
		if c.Type == t {
			return c.Reason
		}
	}
	return ""
}
