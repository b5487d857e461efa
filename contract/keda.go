package contract

// KEDA is what a ScaledObject sets beyond the HPA KEDA generates for it:
// the floor KEDA's operator keeps, and how it moves the count between that
// floor and the HPA's. The report's workloads and the inventory's
// autoscalers carry it alike.
type KEDA struct {
	// MinReplicaCount with KEDA's default of 0 when the manifest leaves it
	// out; MinReplicaCountFrom says which ("manifest" or "default").
	MinReplicaCount     int32  `json:"minReplicaCount"`
	MinReplicaCountFrom string `json:"minReplicaCountFrom"`
	// IdleReplicaCount is what KEDA scales to when no trigger is active,
	// instead of minReplicaCount; absent when unset.
	IdleReplicaCount *int32 `json:"idleReplicaCount,omitempty"`
	// HPAMinReplicas is the generated HPA's minReplicas, max(1,
	// minReplicaCount): the HPA never goes below it, and KEDA's operator
	// alone moves the count between it and the idle floor.
	HPAMinReplicas int32 `json:"hpaMinReplicas"`
	// PollingIntervalSeconds is how often KEDA's operator reads the
	// triggers to decide activation (30 by default).
	PollingIntervalSeconds float64 `json:"pollingIntervalSeconds"`
	// CooldownPeriodSeconds is how long after the last active poll KEDA
	// scales to the idle floor (300 by default).
	CooldownPeriodSeconds float64 `json:"cooldownPeriodSeconds"`
	// ScalesToZero is true when an idle period takes the target to zero
	// replicas: the floor is 0, and neither paused-scale-in nor
	// force-activation stops it.
	ScalesToZero bool `json:"scalesToZero"`
	// Activations are the triggers that can activate the object (cpu and
	// memory never do), each with its threshold, in trigger order.
	Activations []KEDAActivation `json:"activations"`
	// ActivationTarget is scalingModifiers.activationTarget: with a
	// formula, KEDA activates on the composite value alone and ignores
	// each trigger's threshold. Absent without a formula.
	ActivationTarget *float64 `json:"activationTarget,omitempty"`
}

// KEDAActivation is one trigger's activation threshold: KEDA counts the
// trigger active when its metric is strictly above it.
type KEDAActivation struct {
	// Trigger is the trigger's index in spec.triggers.
	Trigger int    `json:"trigger"`
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	// Param is the metadata key that sets the threshold, e.g.
	// activationLagThreshold; absent for trigger types capreport does not
	// model.
	Param     string  `json:"param,omitempty"`
	Threshold float64 `json:"threshold"`
}

// ScaleFromZero prices the first message after an idle period of a
// ScaledObject that scales to zero: no pod is left to consume it, the HPA
// does nothing at zero replicas, and only KEDA's operator orders the first
// pod, at a poll that finds the trigger active.
type ScaleFromZero struct {
	// FirstMessageWaitSeconds is the longest that message waits:
	// activation wait + polling interval + dead time.
	FirstMessageWaitSeconds float64 `json:"firstMessageWaitSeconds"`
	// ActivationMessages is how many messages lift the count above the
	// activation threshold (1 at the default 0), and
	// ActivationWaitSeconds how long they take to arrive at the demand.
	ActivationMessages    float64 `json:"activationMessages"`
	ActivationWaitSeconds float64 `json:"activationWaitSeconds"`
	// PollingIntervalSeconds: at worst they arrive just after a poll.
	PollingIntervalSeconds float64 `json:"pollingIntervalSeconds"`
	// DeadTimeSeconds: the first pod serves a dead time after its order.
	DeadTimeSeconds float64 `json:"deadTimeSeconds"`
	// IdleAfterSeconds is the quiet spell after which the target has
	// certainly been scaled to zero: cooldownPeriod + polling interval.
	IdleAfterSeconds float64 `json:"idleAfterSeconds"`
}
