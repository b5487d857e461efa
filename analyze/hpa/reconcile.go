package hpa

import (
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// AbleToScale reasons reported by the normalizers.
const (
	ReasonReadyForNewScale    = "ReadyForNewScale"
	ReasonScaleUpStabilized   = "ScaleUpStabilized"
	ReasonScaleDownStabilized = "ScaleDownStabilized"
)

// Autoscaler is the per-HPA in-memory state horizontal.go keeps
// (recommendations, scale events) plus the spec fields reconcile reads. Like
// upstream's maps it lives as long as the HPA (or the controller process).
type Autoscaler struct {
	Config      Config
	MinReplicas *int32 // nil: API default 1
	MaxReplicas int32
	// Behavior nil selects the legacy path. A non-nil one is defaulted by
	// NewAutoscaler (and lazily by Reconcile if it was set by hand).
	Behavior        *autoscalingv2.HorizontalPodAutoscalerBehavior
	Recommendations []Recommendation
	ScaleUpEvents   []ScaleEvent
	ScaleDownEvents []ScaleEvent
}

// NewAutoscaler returns the state of a freshly created HPA: no history yet,
// behavior defaulted as the API server and controller would.
func NewAutoscaler(cfg Config, minReplicas *int32, maxReplicas int32, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior) *Autoscaler {
	return &Autoscaler{
		Config:      cfg,
		MinReplicas: minReplicas,
		MaxReplicas: maxReplicas,
		Behavior:    DefaultBehavior(behavior, downscaleWindowSeconds(cfg)),
	}
}

// Calculator is the replica calculator this HPA's metrics are computed with
// (its tolerances depend on the behavior block and the feature gate).
func (a *Autoscaler) Calculator() Calculator {
	return NewCalculator(a.Config, a.Behavior)
}

// MetricProposal is one metric's computed replica count, or its error (an
// invalid metric).
type MetricProposal struct {
	Replicas int32
	Err      error
}

// Decision is the outcome of one reconcile.
type Decision struct {
	// Desired is the new spec replicas; equal to current when !Rescale.
	Desired int32
	Rescale bool
	// Reason is the ScalingLimited reason of the normalizer
	// (DesiredWithinRange, ScaleUpLimit, ScaleDownLimit, TooManyReplicas,
	// TooFewReplicas), TooManyReplicas/TooFewReplicas for a current count
	// outside [min, max], ScalingDisabled for a target scaled to zero, or
	// FailedComputeMetricsReplicas when the metrics allow no decision.
	Reason string
	// Err is set when some metric failed, even if scaling proceeded.
	Err error
	// Proposed is max(0, highest valid proposal), before normalization;
	// Stabilized is after stabilization, before rate limits. Both are
	// zero outside the metrics branch.
	Proposed, Stabilized int32
	// StabilizationReason is the AbleToScale reason of the normalizer.
	StabilizationReason string
}

// Reconcile is reconcileAutoscaler's decision (§10) for spec replicas
// current, given this cycle's metric proposals. It records the initial
// recommendation, stabilizes, limits, and on a rescale with a behavior
// block stores the scale event.
func (a *Autoscaler) Reconcile(now time.Time, current int32, proposals []MetricProposal) Decision {
	if len(a.Recommendations) == 0 {
		// Seeded with the current count, so that a (re)started controller
		// waits a full window before it scales down.
		a.Recommendations = []Recommendation{{Replicas: current, At: now}}
	}
	if a.Behavior != nil && !isDefaulted(a.Behavior) {
		a.Behavior = DefaultBehavior(a.Behavior, downscaleWindowSeconds(a.Config))
	}
	minReplicas := int32(1)
	if a.MinReplicas != nil {
		minReplicas = *a.MinReplicas
	}

	var d Decision
	switch {
	case current == 0 && minReplicas != 0:
		// Someone scaled the target to zero by hand: autoscaling is off.
		return Decision{Desired: current, Reason: ReasonScalingDisabled}
	case current > a.MaxReplicas:
		d = Decision{Desired: a.MaxReplicas, Reason: ReasonTooMany}
	case current < minReplicas:
		d = Decision{Desired: minReplicas, Reason: ReasonTooFew}
	default:
		proposed, ok, err := combineProposals(current, proposals)
		if !ok {
			return Decision{Desired: current, Reason: ReasonFailedMetrics, Err: err}
		}
		d.Err = err
		d.Proposed = max(0, proposed)
		if a.Behavior == nil {
			a.normalizeLegacy(&d, now, current, minReplicas)
		} else {
			a.normalizeWithBehaviors(&d, now, current, minReplicas)
		}
	}

	d.Rescale = d.Desired != current
	if !d.Rescale {
		d.Desired = current
		return d
	}
	a.ScaleUpEvents, a.ScaleDownEvents = StoreScaleEvent(a.Behavior, a.ScaleUpEvents, a.ScaleDownEvents, current, d.Desired, now)
	return d
}

// combineProposals is the tail of computeReplicasForMetrics: the highest
// valid proposal wins. With every metric invalid, or with some invalid and
// the valid ones pointing below current, there is no decision: a broken
// metric must never cause a scale-down.
func combineProposals(current int32, proposals []MetricProposal) (int32, bool, error) {
	if len(proposals) == 0 {
		return 0, false, errors.New("no metrics to compute replicas from")
	}
	var (
		replicas int32
		invalid  int
		firstErr error
	)
	for _, p := range proposals {
		if p.Err != nil {
			if invalid == 0 {
				firstErr = p.Err
			}
			invalid++
			continue
		}
		if replicas == 0 || p.Replicas > replicas {
			replicas = p.Replicas
		}
	}
	if invalid == 0 {
		return replicas, true, nil
	}
	err := fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", invalid, len(proposals), firstErr)
	if invalid >= len(proposals) || replicas < current {
		return 0, false, err
	}
	return replicas, true, err
}

// normalizeLegacy is normalizeDesiredReplicas (§11).
func (a *Autoscaler) normalizeLegacy(d *Decision, now time.Time, current, minReplicas int32) {
	d.Stabilized, a.Recommendations = StabilizeRecommendation(a.Recommendations, d.Proposed, a.Config.DownscaleStabilizationWindow, now)
	d.StabilizationReason = ReasonReadyForNewScale
	if d.Stabilized != d.Proposed {
		d.StabilizationReason = ReasonScaleDownStabilized
	}
	d.Desired, d.Reason = ConvertDesiredReplicasWithRules(current, d.Stabilized, minReplicas, a.MaxReplicas)
}

// normalizeWithBehaviors is normalizeDesiredReplicasWithBehaviors (§12).
func (a *Autoscaler) normalizeWithBehaviors(d *Decision, now time.Time, current, minReplicas int32) {
	b := a.Behavior
	var reason string
	d.Stabilized, reason, a.Recommendations = StabilizeRecommendationWithBehaviors(a.Recommendations, current, d.Proposed, b.ScaleUp, b.ScaleDown, now)
	d.StabilizationReason = ReasonReadyForNewScale
	if d.Stabilized != d.Proposed {
		d.StabilizationReason = reason
	}
	d.Desired, d.Reason = ConvertDesiredReplicasWithBehaviorRate(current, d.Stabilized, minReplicas, a.MaxReplicas, b.ScaleUp, b.ScaleDown, a.ScaleUpEvents, a.ScaleDownEvents, now)
}

func downscaleWindowSeconds(cfg Config) int32 {
	return int32(cfg.DownscaleStabilizationWindow / time.Second)
}
