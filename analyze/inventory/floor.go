package inventory

// KEDAForceActivationAnnotation makes KEDA treat a ScaledObject as active
// whatever its triggers say (v2.18+): it never drops to its idle floor.
const KEDAForceActivationAnnotation = "autoscaling.keda.sh/force-activation"

// Floor is the fewest replicas the autoscaler keeps. For an HPA it is
// minReplicas (the API's 1 when unset). For a ScaledObject it is the count
// KEDA's operator scales to when no trigger is active: idleReplicaCount
// when set (the webhook keeps it below the minimum), else minReplicaCount,
// 0 when unset (keda.md §1, §1.2). The generated HPA never goes below 1
// (HPAFloor); KEDA itself moves the count between that and the floor.
func (a *Autoscaler) Floor() int32 {
	if a.KEDA != nil {
		return a.KEDA.Floor()
	}
	return a.HPAFloor()
}

// HPAFloor is the effective HPA's minReplicas, the floor the controller
// (and the simulation) acts within while the autoscaler is active.
func (a *Autoscaler) HPAFloor() int32 {
	if a.HPA.MinReplicas == nil {
		return 1
	}
	return *a.HPA.MinReplicas
}

// MinReplicas is minReplicaCount with KEDA's default of 0.
func (k *KEDA) MinReplicas() int32 {
	if k.MinReplicaCount == nil {
		return 0
	}
	return *k.MinReplicaCount
}

// Floor is the count KEDA scales to once no trigger has been active for
// cooldownPeriod: idleReplicaCount when set, else minReplicaCount. A
// negative count is never reached (the API refuses an idle count below
// zero, and KEDA scales in only for a minimum of exactly 0), so the HPA's
// floor of 1 holds instead.
func (k *KEDA) Floor() int32 {
	if k.IdleReplicaCount != nil && *k.IdleReplicaCount >= 0 {
		return *k.IdleReplicaCount
	}
	if m := k.MinReplicas(); m >= 0 {
		return m
	}
	return 1
}

// ScalesToZero reports whether KEDA's operator takes the target to zero
// replicas after an idle period, so that the next message waits for a pod
// to be ordered: the floor is 0 and nothing stops the scale-in (a paused
// scale-in skips it; forced activation never lets the object go idle).
func (k *KEDA) ScalesToZero() bool {
	return k.Floor() == 0 && !k.Paused && !k.PausedScaleIn && !k.ForceActivation
}

// ActivationOf is the activation threshold in milli-units that gates the
// 0 → 1 step on metric m, one of the autoscaler's metrics, and the field
// that sets it: the scalingModifiers activationTarget when a formula
// composes the metrics (KEDA then ignores each trigger's own threshold),
// else the threshold of the trigger behind m.
func (k *KEDA) ActivationOf(m Metric) (milli int64, field string) {
	if k.Formula != "" {
		return k.ActivationTargetMilli, "advanced.scalingModifiers.activationTarget"
	}
	if m.Trigger != nil {
		return m.Trigger.ActivationMilli, m.Trigger.ActivationParam
	}
	return 0, ""
}
