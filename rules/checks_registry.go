package rules

// Stable check IDs. They appear in reports, SARIF rule IDs, the config's
// include/exclude lists and ignore-check.capreport.io/<ID> annotations:
// never rename one.
const (
	CheckDeadBand                = "dead-band"
	CheckRecoveryTooSlow         = "recovery-too-slow"
	CheckPeakWaitOverTarget      = "peak-wait-over-target"
	CheckHunting                 = "hunting"
	CheckLatencyFloor            = "latency-floor"
	CheckStandingDelayOverTarget = "standing-delay-over-target"
	CheckAssumptionDefault       = "assumption-default"
	CheckDanglingTarget          = "dangling-target"
	CheckDuplicateAutoscaler     = "duplicate-autoscaler"
	CheckKafkaPartitionCap       = "kafka-partition-cap"
	CheckMaxReplicasBelowNeed    = "max-replicas-below-need"
	CheckMinEqualsMax            = "min-equals-max"
	CheckUnpriced                = "unpriced"
	CheckRenderFailed            = "render-failed"
	CheckInvalidInput            = "invalid-input"
	CheckIgnoreWithoutReason     = "ignore-without-reason"
)

// CheckInfo is the registry entry of one check: what the SARIF rule
// metadata, the README's checks table and `capreport explain` print.
type CheckInfo struct {
	ID          string
	Title       string
	Severity    string // default severity
	Description string
	Remediation string
}

var registry = []CheckInfo{
	{CheckDeadBand, "Saturated CPU never scales", SeverityError,
		"The growth factor g = limit/(request·target) lies inside the tolerance band: with every ready pod at its limit the ratio is within 1 ± tolerance, so the controller holds its count however large the overload (Corollary 1; targets of 91 % and above with limit = request).",
		"Lower the target below 100·(limit/request)/(1 + tolerance) %, or raise the CPU limit above the request."},
	{CheckRecoveryTooSlow, "Recovery slower than its target", SeverityError,
		"At a design overload, serving capacity meets demand later than the recovery target: a saturated metric grows ready pods by at most g per round of dead time plus metric window (Proposition 2).",
		"Cut the dead time (image size, start-up, warm pools), lower the target to the hottest target that meets the overload in time, or raise the CPU limit."},
	{CheckPeakWaitOverTarget, "Peak wait beyond the latency target", SeverityError,
		"During a design overload the backlog built while capacity was short makes some requests wait longer than the latency target.",
		"Shorten the dead time, lower the target (raise g), or plan capacity for the overload ahead of time."},
	{CheckHunting, "Backlog loop hunts", SeverityError,
		"Over the last hour of a 20-hour run after a demand step the replica count swings by more than 30 % of the pods needed: the standing delay T/c is below τ_eff·Φ(W_eff/τ_eff) (Proposition 4), so the loop never rests and pays for its peaks in pods.",
		"Raise the threshold to the one that rests, shorten the downscale stabilization window, or cut the dead time."},
	{CheckLatencyFloor, "Latency target below the floor", SeverityError,
		"A backlog-scaled consumer rests only if every message waits at least τ_eff·Φ(W_eff/τ_eff) (Corollary 3): the latency target cannot be held at rest with this dead time and window.",
		"Relax the latency target, shorten the window, or cut the dead time; no threshold can fix it."},
	{CheckStandingDelayOverTarget, "Standing delay above the latency target", SeverityWarning,
		"At rest every message waits D = threshold / pod rate (Little's law), which is longer than the latency target.",
		"Lower the threshold, as far as the latency floor allows."},
	{CheckAssumptionDefault, "Assumption left at its default", SeverityWarning,
		"The dead time or pod rate is not annotated and was not configured, so the bill rests on a built-in default.",
		"Measure it and annotate the autoscaler (capreport.io/dead-time, capreport.io/pod-rate) or set it in .capreport.yaml."},
	{CheckDanglingTarget, "Scale target not found", SeverityError,
		"The autoscaler's scaleTargetRef names no rendered Deployment, StatefulSet, ReplicaSet or Rollout in its namespace.",
		"Fix scaleTargetRef, or render the source that holds the workload."},
	{CheckDuplicateAutoscaler, "Two autoscalers on one target", SeverityError,
		"More than one HPA or ScaledObject targets the same workload; the controller refuses to scale pods selected by several HPAs.",
		"Keep one autoscaler per workload (with KEDA, move the HPA's metrics into the ScaledObject)."},
	{CheckKafkaPartitionCap, "Kafka partitions below the need", SeverityError,
		"KEDA's Kafka scaler does not ask for more consumers than partitions (without allowIdleConsumers), and the design demand needs more.",
		"Add partitions, or make each consumer faster."},
	{CheckMaxReplicasBelowNeed, "maxReplicas below the need", SeverityError,
		"The design overload needs more replicas at the target than maxReplicas allows, so capacity never meets demand.",
		"Raise maxReplicas to at least the needed count, or plan for shedding load above it."},
	{CheckMinEqualsMax, "minReplicas equals maxReplicas", SeverityWarning,
		"The autoscaler cannot change the replica count.",
		"Remove the autoscaler or widen the range."},
	{CheckUnpriced, "Autoscaler not priced", SeverityInfo,
		"capreport cannot price this autoscaler's signal (a rate, a schedule, an unknown metric) or lacks what the model needs.",
		"Set capreport.io/signal if the metric is really a backlog or a saturating utilization."},
	{CheckRenderFailed, "Source failed to render", SeverityError,
		"A chart, overlay or manifest could not be rendered; its autoscalers are not in the report.",
		"Fix the render error shown, or list the source with working values in .capreport.yaml."},
	{CheckInvalidInput, "Invalid capreport input", SeverityError,
		"An annotation or configuration value could not be parsed; the default was used instead.",
		"Fix the value at the file and line shown."},
	{CheckIgnoreWithoutReason, "Ignore without a reason", SeverityError,
		"An ignore-check.capreport.io/<ID> annotation has no reason, or ignores are forbidden by the config.",
		"Give the reason as the annotation's value, or fix the finding."},
}

// Checks returns the registry of every check, in a stable order.
func Checks() []CheckInfo { return append([]CheckInfo(nil), registry...) }

// LookupCheck returns the registry entry of id.
func LookupCheck(id string) (CheckInfo, bool) {
	for _, c := range registry {
		if c.ID == id {
			return c, true
		}
	}
	return CheckInfo{}, false
}
