package upstreamdiff

import (
	"math/rand/v2"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"

	"github.com/capreport/capreport/analyze/hpa"
	"github.com/capreport/capreport/internal/upstreamdiff/podautoscaler"
)

// upRecs converts port recommendations; empty becomes nil on both sides so
// that "no history" compares equal however each side spells it.
func upRecs(in []hpa.Recommendation) []podautoscaler.Rec {
	var out []podautoscaler.Rec
	for _, r := range in {
		out = append(out, podautoscaler.Rec{Replicas: r.Replicas, At: r.At})
	}
	return out
}

func upEvents(in []hpa.ScaleEvent) []podautoscaler.Event {
	var out []podautoscaler.Event
	for _, e := range in {
		out = append(out, podautoscaler.Event{Change: e.Change, At: e.At, Outdated: e.Outdated})
	}
	return out
}

// state is one side's per-HPA memory after a call.
type state struct {
	Recs     []podautoscaler.Rec
	Up, Down []podautoscaler.Event
}

func toleranceCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	cfg := hpa.DefaultConfig()
	cfg.Tolerance = []float64{0.1, 0, 0.25}[g.intn(3)]
	cfg.ConfigurableToleranceFeatureOn = utilfeature.DefaultFeatureGate.Enabled(features.HPAConfigurableTolerance)
	var b *autoscalingv2.HorizontalPodAutoscalerBehavior
	if g.chance(0.8) {
		b = g.behavior()
	}
	t := hpa.TolerancesFor(cfg, b)
	ctl := podautoscaler.NewController(cfg.Tolerance, cfg.DownscaleStabilizationWindow)
	down, up := podautoscaler.TolerancePair(ctl.TolerancesForHpa(&autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{Behavior: b}}))
	return diff(map[string]any{"config": cfg, "behavior": b}, [2]float64{t.ScaleDown, t.ScaleUp}, [2]float64{down, up})
}

func legacyClampCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	in := [4]int32{int32(g.between(0, 60)), int32(g.between(-5, 200)), int32(g.between(0, 10)), int32(g.between(0, 100))}
	n, reason := hpa.ConvertDesiredReplicasWithRules(in[0], in[1], in[2], in[3])
	un, ureason := podautoscaler.ConvertDesiredReplicasWithRules(in[0], in[1], in[2], in[3])
	return diff(in, []any{n, reason}, []any{un, ureason})
}

// rateCase is the input of the rate-limit group.
type rateCase struct {
	Current, Desired, Min, Max int32
	Behavior                   *autoscalingv2.HorizontalPodAutoscalerBehavior
	Up, Down                   []hpa.ScaleEvent
	Period                     int32
}

// rateLimitCase compares the two limit calculations, the per-period sum and
// convertDesiredReplicasWithBehaviorRate on one drawn history.
func rateLimitCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	c := rateCase{Current: int32(g.between(0, 40)), Desired: int32(g.between(0, 80)), Min: int32(g.between(0, 5)), Max: int32(g.between(1, 60))}
	c.Behavior, c.Up, c.Down, c.Period = g.defaulted(g.windowSeconds(600)), g.events(), g.events(), g.windowSeconds(1800)
	b := c.Behavior
	pn, preason := hpa.ConvertDesiredReplicasWithBehaviorRate(c.Current, c.Desired, c.Min, c.Max, b.ScaleUp, b.ScaleDown, c.Up, c.Down, now)
	port := []any{
		hpa.CalculateScaleUpLimitWithScalingRules(c.Current, c.Up, c.Down, b.ScaleUp, now),
		hpa.CalculateScaleDownLimitWithBehaviors(c.Current, c.Up, c.Down, b.ScaleDown, now),
		hpa.ReplicasChangePerPeriod(c.Period, c.Up, now), pn, preason,
	}
	ctl := podautoscaler.NewController(0.1, 5*time.Minute)
	ctl.SetState(nil, upEvents(c.Up), upEvents(c.Down))
	un, ureason := ctl.ConvertDesiredReplicasWithBehaviorRate(podautoscaler.NormalizationArg{
		ScaleUpBehavior: b.ScaleUp, ScaleDownBehavior: b.ScaleDown,
		MinReplicas: c.Min, MaxReplicas: c.Max, CurrentReplicas: c.Current, DesiredReplicas: c.Desired,
	})
	up := []any{
		podautoscaler.CalculateScaleUpLimitWithScalingRules(c.Current, upEvents(c.Up), upEvents(c.Down), b.ScaleUp),
		podautoscaler.CalculateScaleDownLimitWithBehaviors(c.Current, upEvents(c.Up), upEvents(c.Down), b.ScaleDown),
		podautoscaler.GetReplicasChangePerPeriod(c.Period, upEvents(c.Up)), un, ureason,
	}
	return diff(c, port, up)
}

func stabilizeCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	recs, window, proposal := g.recommendations(), g.downscaleWindow(), int32(g.between(0, 30))
	input := map[string]any{"recs": upRecs(recs), "window": window.String(), "proposal": proposal}
	ctl := podautoscaler.NewController(0.1, window)
	ctl.SetState(upRecs(recs), nil, nil)
	un := ctl.StabilizeRecommendation(proposal)
	uRecs, _, _ := ctl.State()
	n, pRecs := hpa.StabilizeRecommendation(recs, proposal, window, now)
	return diff(input, []any{n, upRecs(pRecs)}, []any{un, uRecs})
}

func stabilizeBehaviorsCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	b := g.defaulted(g.windowSeconds(600))
	recs, current, desired := g.recommendations(), int32(g.between(0, 30)), int32(g.between(0, 30))
	input := map[string]any{"recs": upRecs(recs), "behavior": b, "current": current, "desired": desired}
	ctl := podautoscaler.NewController(0.1, 5*time.Minute)
	ctl.SetState(upRecs(recs), nil, nil)
	un, ureason := ctl.StabilizeRecommendationWithBehaviors(podautoscaler.NormalizationArg{
		ScaleUpBehavior: b.ScaleUp, ScaleDownBehavior: b.ScaleDown, CurrentReplicas: current, DesiredReplicas: desired,
	})
	uRecs, _, _ := ctl.State()
	n, reason, pRecs := hpa.StabilizeRecommendationWithBehaviors(recs, current, desired, b.ScaleUp, b.ScaleDown, now)
	return diff(input, []any{n, reason, upRecs(pRecs)}, []any{un, ureason, uRecs})
}

func storeEventCase(r *rand.Rand, now time.Time) string {
	g := gen{r: r, now: now}
	var b *autoscalingv2.HorizontalPodAutoscalerBehavior
	if g.chance(0.9) {
		b = g.defaulted(300)
	}
	upEv, downEv, prev, next := g.events(), g.events(), int32(g.between(0, 30)), int32(g.between(0, 30))
	input := map[string]any{"behavior": b, "up": upEvents(upEv), "down": upEvents(downEv), "prev": prev, "next": next}
	ctl := podautoscaler.NewController(0.1, 5*time.Minute)
	ctl.SetState(nil, upEvents(upEv), upEvents(downEv))
	ctl.StoreScaleEvent(b, prev, next)
	_, uUp, uDown := ctl.State()
	pUp, pDown := hpa.StoreScaleEvent(b, upEv, downEv, prev, next, now)
	return diff(input, state{Up: upEvents(pUp), Down: upEvents(pDown)}, state{Up: uUp, Down: uDown})
}

func TestUpstreamHorizontal(t *testing.T) {
	runGroup(t, "TolerancesGateOff", toleranceCase)
	runGroup(t, "LegacyClamp", legacyClampCase)
	runGroup(t, "RateLimits", rateLimitCase)
	runGroup(t, "StabilizeRecommendation", stabilizeCase)
	runGroup(t, "StabilizeRecommendationWithBehaviors", stabilizeBehaviorsCase)
	runGroup(t, "StoreScaleEvent", storeEventCase)
	runGroup(t, "DefaultBehavior", defaultBehaviorCase)
	runGroup(t, "NormalizeDesiredReplicas", normalizeCase(false))
	runGroup(t, "NormalizeDesiredReplicasWithBehaviors", normalizeCase(true))
}

// TestUpstreamTolerancesGateOn runs the tolerance group with the alpha
// HPAConfigurableTolerance gate on, where behavior tolerances apply.
func TestUpstreamTolerancesGateOn(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.HPAConfigurableTolerance, true)
	runGroup(t, "TolerancesGateOn", toleranceCase)
}
