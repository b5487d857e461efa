// This file is not upstream's: it is the differential test's window into the
// byte-identical copies beside it (see UPSTREAM.sha256). Upstream keeps the
// normalization logic on unexported methods of HorizontalController and the
// tolerance fields unexported, so only code inside the package can reach
// them. Everything here forwards to upstream without adding logic.

package podautoscaler

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	metricsclient "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"
)

// NewTolerances builds the Tolerances value GetXxxReplicas take.
func NewTolerances(scaleDown, scaleUp float64) Tolerances {
	return Tolerances{scaleDown: scaleDown, scaleUp: scaleUp}
}

// TolerancePair reads a Tolerances value back.
func TolerancePair(t Tolerances) (scaleDown, scaleUp float64) {
	return t.scaleDown, t.scaleUp
}

// Rec is timestampedRecommendation with exported fields.
type Rec struct {
	Replicas int32
	At       time.Time
}

// Event is timestampedScaleEvent with exported fields.
type Event struct {
	Change   int32
	At       time.Time
	Outdated bool
}

// Key is the single HPA key the test controller keeps state under.
const Key = "ns/hpa"

// Controller wraps a HorizontalController that holds only what the
// normalization methods read: the tolerance, the downscale window and the
// per-key state maps. Its other fields stay nil, which none of these paths
// dereference.
type Controller struct{ c *HorizontalController }

// NewController returns a controller with empty state.
func NewController(tolerance float64, downscaleWindow time.Duration) Controller {
	return Controller{c: &HorizontalController{
		tolerance:                    tolerance,
		downscaleStabilisationWindow: downscaleWindow,
		recommendations:              map[string][]timestampedRecommendation{},
		scaleUpEvents:                map[string][]timestampedScaleEvent{},
		scaleDownEvents:              map[string][]timestampedScaleEvent{},
	}}
}

// SetState replaces the controller's state for Key. A nil slice leaves the
// map entry absent, as for an HPA the controller has not seen.
func (c Controller) SetState(recs []Rec, up, down []Event) {
	if recs != nil {
		r := make([]timestampedRecommendation, len(recs))
		for i, x := range recs {
			r[i] = timestampedRecommendation{x.Replicas, x.At}
		}
		c.c.recommendations[Key] = r
	}
	if up != nil {
		c.c.scaleUpEvents[Key] = toEvents(up)
	}
	if down != nil {
		c.c.scaleDownEvents[Key] = toEvents(down)
	}
}

// State reads the controller's state for Key.
func (c Controller) State() (recs []Rec, up, down []Event) {
	for _, x := range c.c.recommendations[Key] {
		recs = append(recs, Rec{x.recommendation, x.timestamp})
	}
	return recs, fromEvents(c.c.scaleUpEvents[Key]), fromEvents(c.c.scaleDownEvents[Key])
}

func toEvents(in []Event) []timestampedScaleEvent {
	out := make([]timestampedScaleEvent, len(in))
	for i, e := range in {
		out[i] = timestampedScaleEvent{e.Change, e.At, e.Outdated}
	}
	return out
}

func fromEvents(in []timestampedScaleEvent) []Event {
	var out []Event
	for _, e := range in {
		out = append(out, Event{e.replicaChange, e.timestamp, e.outdated})
	}
	return out
}

// RecordInitialRecommendation forwards to recordInitialRecommendation.
func (c Controller) RecordInitialRecommendation(current int32) {
	c.c.recordInitialRecommendation(current, Key)
}

// NormalizeDesiredReplicas forwards to normalizeDesiredReplicas.
func (c Controller) NormalizeDesiredReplicas(hpa *autoscalingv2.HorizontalPodAutoscaler, current, prenormalized, minReplicas int32) int32 {
	return c.c.normalizeDesiredReplicas(hpa, Key, current, prenormalized, minReplicas)
}

// NormalizeDesiredReplicasWithBehaviors forwards to
// normalizeDesiredReplicasWithBehaviors.
func (c Controller) NormalizeDesiredReplicasWithBehaviors(hpa *autoscalingv2.HorizontalPodAutoscaler, current, prenormalized, minReplicas int32) int32 {
	return c.c.normalizeDesiredReplicasWithBehaviors(hpa, Key, current, prenormalized, minReplicas)
}

// StoreScaleEvent forwards to storeScaleEvent.
func (c Controller) StoreScaleEvent(behavior *autoscalingv2.HorizontalPodAutoscalerBehavior, prev, next int32) {
	c.c.storeScaleEvent(behavior, Key, prev, next)
}

// StabilizeRecommendation forwards to stabilizeRecommendation.
func (c Controller) StabilizeRecommendation(prenormalized int32) int32 {
	return c.c.stabilizeRecommendation(Key, prenormalized)
}

// StabilizeRecommendationWithBehaviors forwards to
// stabilizeRecommendationWithBehaviors; args.Key is set to Key.
func (c Controller) StabilizeRecommendationWithBehaviors(args NormalizationArg) (int32, string) {
	args.Key = Key
	r, reason, _ := c.c.stabilizeRecommendationWithBehaviors(args)
	return r, reason
}

// ConvertDesiredReplicasWithBehaviorRate forwards to
// convertDesiredReplicasWithBehaviorRate; args.Key is set to Key.
func (c Controller) ConvertDesiredReplicasWithBehaviorRate(args NormalizationArg) (int32, string) {
	args.Key = Key
	r, reason, _ := c.c.convertDesiredReplicasWithBehaviorRate(args)
	return r, reason
}

// MaybeInitScaleDownStabilizationWindow forwards to
// maybeInitScaleDownStabilizationWindow.
func (c Controller) MaybeInitScaleDownStabilizationWindow(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	c.c.maybeInitScaleDownStabilizationWindow(hpa)
}

// TolerancesForHpa forwards to tolerancesForHpa.
func (c Controller) TolerancesForHpa(hpa *autoscalingv2.HorizontalPodAutoscaler) Tolerances {
	return c.c.tolerancesForHpa(hpa)
}

// ConvertDesiredReplicasWithRules forwards to convertDesiredReplicasWithRules.
func ConvertDesiredReplicasWithRules(current, desired, minReplicas, maxReplicas int32) (int32, string) {
	r, reason, _ := convertDesiredReplicasWithRules(current, desired, minReplicas, maxReplicas)
	return r, reason
}

// CalculateScaleUpLimitWithScalingRules forwards to
// calculateScaleUpLimitWithScalingRules.
func CalculateScaleUpLimitWithScalingRules(current int32, up, down []Event, rules *autoscalingv2.HPAScalingRules) int32 {
	return calculateScaleUpLimitWithScalingRules(current, toEvents(up), toEvents(down), rules)
}

// CalculateScaleDownLimitWithBehaviors forwards to
// calculateScaleDownLimitWithBehaviors.
func CalculateScaleDownLimitWithBehaviors(current int32, up, down []Event, rules *autoscalingv2.HPAScalingRules) int32 {
	return calculateScaleDownLimitWithBehaviors(current, toEvents(up), toEvents(down), rules)
}

// GetReplicasChangePerPeriod forwards to getReplicasChangePerPeriod.
func GetReplicasChangePerPeriod(periodSeconds int32, events []Event) int32 {
	return getReplicasChangePerPeriod(periodSeconds, toEvents(events))
}

// GroupPods forwards to groupPods.
func GroupPods(pods []*v1.Pod, metrics metricsclient.PodMetricsInfo, resource v1.ResourceName, cpuInit, readinessDelay time.Duration) (int, sets.Set[string], sets.Set[string], sets.Set[string]) {
	return groupPods(pods, metrics, resource, cpuInit, readinessDelay)
}
