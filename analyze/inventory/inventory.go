// Package inventory is what analyze finds and rules prices: each
// autoscaler (an HPA, or a KEDA ScaledObject with the HPA KEDA would
// create) with its metrics and their signals, its scale target and pods,
// and the assumptions the manifests cannot say, each with where it came
// from. It holds the types, the built-in defaults and the annotation names,
// and the floors an autoscaler keeps; finding and translating them is
// analyze's job, pricing them rules'.
package inventory

import (
	"strconv"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/render"
)

// Signal is re-exported from config: the capreport.io/signal annotation and
// .capreport.yaml share its parser.
type Signal = config.Signal

// Signals.
const (
	SignalSaturating = config.SignalSaturating
	SignalBacklog    = config.SignalBacklog
	SignalRate       = config.SignalRate
	SignalUnknown    = config.SignalUnknown
)

// Kinds of autoscaler.
const (
	KindHPA          = "HorizontalPodAutoscaler"
	KindScaledObject = "ScaledObject"
)

// Inventory is everything Extract found.
type Inventory struct {
	// Autoscalers in a stable order: by ID, then by origin.
	Autoscalers []Autoscaler `json:"autoscalers"`
	// Skipped are objects recognized as autoscaling-related that produce no
	// HPA (ScaledJob, TriggerAuthentication, the KEDA v1 schema, HPAs that
	// cannot be decoded), each with the reason.
	Skipped []SkippedObject `json:"skipped"`
	// Findings that belong to no single autoscaler.
	Findings []check.Finding `json:"findings"`
}

// SkippedObject is an object recognized and deliberately not priced.
type SkippedObject struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Name       string        `json:"name"`
	Namespace  string        `json:"namespace,omitempty"`
	Origin     render.Origin `json:"origin"`
	Reason     string        `json:"reason"`
}

// Autoscaler is one HPA or ScaledObject, with what it scales and on what.
type Autoscaler struct {
	// ID is "namespace/Kind/name" of the autoscaler, stable between a base
	// and a head render. An object rendered without a namespace (plain YAML,
	// Kustomize without one, a chart template that omits it) lands in the
	// namespace of whoever applies it; Namespace keeps the rendered "" and
	// the ID says "default", which is where `kubectl apply` would put it.
	ID         string        `json:"id"`
	Kind       string        `json:"kind"`
	APIVersion string        `json:"apiVersion"`
	Name       string        `json:"name"`
	Namespace  string        `json:"namespace,omitempty"`
	Origin     render.Origin `json:"origin"`
	// HPA is the effective autoscaling/v2 spec the controller acts on: for an
	// HPA, its spec converted to v2 with API defaulting (minReplicas 1, an
	// empty metric list becomes cpu 80 % Utilization); for a ScaledObject,
	// the HPA KEDA generates. Behavior defaults are not filled in: the
	// controller port does that when Behavior != nil.
	HPA autoscalingv2.HorizontalPodAutoscalerSpec `json:"hpa"`
	// HPAName is the name of the HPA object: the autoscaler's own name, or
	// keda-hpa-<name> (or the configured name) for a ScaledObject.
	HPAName string `json:"hpaName"`
	// Metrics describe HPA.Spec.Metrics one for one, in the same order.
	Metrics []Metric `json:"metrics"`
	// Signal is the autoscaler's overall signal (analyze's overallSignal has
	// the rule), after any capreport.io/signal override.
	Signal Signal `json:"signal"`
	// Unpriced, when non-empty, says why the autoscaler cannot be priced
	// (paused, target missing, signal unknown, broken trigger, ...).
	Unpriced string `json:"unpriced,omitempty"`
	// KEDA carries the ScaledObject-only settings; nil for an HPA.
	KEDA   *KEDA  `json:"keda,omitempty"`
	Target Target `json:"target"`
	// Assumptions are the values the manifests cannot say, with provenance.
	Assumptions Assumptions `json:"assumptions"`
	// Ignores maps check IDs to the reasons given in
	// ignore-check.capreport.io/<ID> annotations (autoscaler over target).
	// Whether they are honoured is config.Checks.AllowIgnores.
	Ignores map[string]string `json:"ignores,omitempty"`
	// Findings about this autoscaler.
	Findings []check.Finding `json:"findings"`
}

// Metric describes one HPA metric: what it measures and the signal it is.
type Metric struct {
	// Type is the HPA metric source type (Resource, ContainerResource, Pods,
	// Object, External).
	Type autoscalingv2.MetricSourceType `json:"type"`
	// Name is the resource name ("cpu") or the metric name ("s0-kafka-orders").
	Name string `json:"name"`
	// Container for ContainerResource metrics.
	Container string `json:"container,omitempty"`
	// TargetType is Utilization, AverageValue or Value.
	TargetType autoscalingv2.MetricTargetType `json:"targetType"`
	// Utilization is the target percentage for Utilization targets.
	Utilization int32 `json:"utilization,omitempty"`
	// TargetMilli is the AverageValue or Value target in milli-units;
	// 0 with TargetKnown false when capreport could not tell the threshold.
	TargetMilli int64 `json:"targetMilli,omitempty"`
	TargetKnown bool  `json:"targetKnown"`
	// Target is the target as Kubernetes prints it ("80%", "512Mi", "100500m").
	Target string `json:"target,omitempty"`
	Signal Signal `json:"signal"`
	// Reason explains an unknown signal, or how a signal was guessed.
	Reason string `json:"reason,omitempty"`
	// Trigger is the KEDA trigger behind an External metric (nil for HPAs
	// and for KEDA's cpu/memory triggers, whose source is the trigger too;
	// see KEDA.Triggers for all of them).
	Trigger *Trigger `json:"trigger,omitempty"`
	// ReplicaCap bounds what this metric alone can ask for, when capreport
	// knows one: a Kafka trigger cannot usefully ask for more consumers than
	// partitions (capreport.io/partitions) unless allowIdleConsumers is on.
	ReplicaCap *int32 `json:"replicaCap,omitempty"`
}

// Short renders the metric the way corpus/README.md lists them:
// "cpu:80%", "Pods:packets-per-second", "External:s0-kafka-orders".
func (m Metric) Short() string {
	switch {
	case (m.Type == autoscalingv2.ResourceMetricSourceType || m.Type == autoscalingv2.ContainerResourceMetricSourceType) &&
		m.TargetType == autoscalingv2.UtilizationMetricType:
		return m.Name + ":" + strconv.FormatInt(int64(m.Utilization), 10) + "%"
	case m.Type == autoscalingv2.ResourceMetricSourceType || m.Type == autoscalingv2.ContainerResourceMetricSourceType:
		return m.Name + ":" + m.Target
	}
	return string(m.Type) + ":" + m.Name
}

// Trigger is one KEDA trigger as written, with metadata values as strings.
type Trigger struct {
	Index      int               `json:"index"`
	Type       string            `json:"type"`
	Name       string            `json:"name,omitempty"`
	MetricType string            `json:"metricType,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	// Activation is the activation threshold in milli-units (0 by default):
	// KEDA's 0 ↔ 1 gate compares the metric strictly above it.
	ActivationMilli int64 `json:"activationMilli"`
	// ActivationParam is the metadata key that sets it for this scaler
	// (activationLagThreshold, activationQueueLength, ...); "" for
	// triggers capreport does not model and for cpu and memory, which
	// never activate a ScaledObject.
	ActivationParam string `json:"activationParam,omitempty"`
	// UseCachedMetrics serves the value cached at the last polling interval.
	UseCachedMetrics bool `json:"useCachedMetrics,omitempty"`
}

// KEDA holds ScaledObject settings beyond the generated HPA.
type KEDA struct {
	// MinReplicaCount as written (nil: 0); the HPA's floor is max(1, it).
	MinReplicaCount *int32 `json:"minReplicaCount,omitempty"`
	// IdleReplicaCount as written (nil: unset): what KEDA scales to when
	// no trigger is active, instead of minReplicaCount.
	IdleReplicaCount *int32 `json:"idleReplicaCount,omitempty"`
	// PollingInterval and CooldownPeriod with KEDA's defaults (30s, 300s).
	PollingInterval       time.Duration `json:"pollingInterval"`
	CooldownPeriod        time.Duration `json:"cooldownPeriod"`
	InitialCooldownPeriod time.Duration `json:"initialCooldownPeriod"`
	// Paused is true when autoscaling.keda.sh/paused or paused-replicas is
	// set: KEDA deletes the HPA, so nothing scales.
	Paused         bool   `json:"paused,omitempty"`
	PausedReplicas *int32 `json:"pausedReplicas,omitempty"`
	// PausedScaleIn/Out set the HPA's scaleDown/scaleUp selectPolicy to
	// Disabled (already applied to the HPA spec).
	PausedScaleIn  bool `json:"pausedScaleIn,omitempty"`
	PausedScaleOut bool `json:"pausedScaleOut,omitempty"`
	// ForceActivation is autoscaling.keda.sh/force-activation: KEDA treats
	// the ScaledObject as active whatever its triggers say, so it never
	// scales to its idle floor.
	ForceActivation bool `json:"forceActivation,omitempty"`
	// Fallback replicas after FailureThreshold failed reads, nil if unset.
	Fallback *KEDAFallback `json:"fallback,omitempty"`
	// Formula of scalingModifiers, "" without one.
	Formula string `json:"formula,omitempty"`
	// ActivationTargetMilli is scalingModifiers.activationTarget in
	// milli-units (0 by default): with a formula, KEDA activates on the
	// composite value alone and ignores each trigger's own threshold.
	ActivationTargetMilli int64     `json:"activationTargetMilli,omitempty"`
	Triggers              []Trigger `json:"triggers"`
}

// KEDAFallback is spec.fallback.
type KEDAFallback struct {
	FailureThreshold int32  `json:"failureThreshold"`
	Replicas         int32  `json:"replicas"`
	Behavior         string `json:"behavior,omitempty"`
}

// Ref names the scale target as the autoscaler wrote it (defaults applied).
type Ref struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// Target is the autoscaler's scale target as rendered.
type Target struct {
	Ref
	// Found is false when no rendered object has this kind, name and
	// namespace (a dangling-target finding says so).
	Found bool `json:"found"`
	// Replicas is spec.replicas; nil when unset (the API defaults it to 1).
	Replicas *int32 `json:"replicas,omitempty"`
	// Pod sums over the pod template's containers and restartable init
	// containers (sidecars), as the HPA's calculateRequests does. CPU in
	// milli-cores, memory in bytes; 0 when no container sets it.
	CPURequestMilli    int64 `json:"cpuRequestMilli"`
	CPULimitMilli      int64 `json:"cpuLimitMilli"`
	MemoryRequestBytes int64 `json:"memoryRequestBytes"`
	MemoryLimitBytes   int64 `json:"memoryLimitBytes"`
	// Containers lists the same per container (init containers that are not
	// sidecars are left out: they do not run beside the app).
	Containers []ContainerResources `json:"containers,omitempty"`
	// Annotations of the target workload's metadata.
	Annotations map[string]string `json:"annotations,omitempty"`
	Origin      render.Origin     `json:"origin"`
}

// ContainerResources is one container's requests and limits; a value is 0
// when the container does not set it.
type ContainerResources struct {
	Name               string `json:"name"`
	Sidecar            bool   `json:"sidecar,omitempty"` // restartable init container
	CPURequestMilli    int64  `json:"cpuRequestMilli"`
	CPULimitMilli      int64  `json:"cpuLimitMilli"`
	MemoryRequestBytes int64  `json:"memoryRequestBytes"`
	MemoryLimitBytes   int64  `json:"memoryLimitBytes"`
}

// Provenance of an assumed value.
const (
	FromAnnotation = "annotation" // capreport.io/ annotation on the autoscaler or target
	FromConfig     = "config"     // .capreport.yaml workloads or defaults
	FromMeasured   = "measured"   // .capreport.yaml workloads entry written by capreport calibrate (with its measured: record)
	FromCluster    = "cluster"    // .capreport.yaml cluster section
	FromDefault    = "default"    // built into capreport (or Kubernetes)
	FromInferred   = "inferred"   // read off the manifests (the signal)
)

// Assumed is a value with where it came from. Where is the annotated
// object's origin, or the .capreport.yaml line; nil for defaults.
type Assumed[T any] struct {
	Value T              `json:"value"`
	From  string         `json:"from"`
	Where *render.Origin `json:"where,omitempty"`
	// Measured says how calibrate measured the value (From "measured").
	Measured *config.Measurement `json:"measured,omitempty"`
}

// Assumptions are the values the manifests cannot say. Built-in defaults
// (From "default"), chosen to be typical rather than safe, and flagged by an
// assumption-default finding for the two that matter most:
//
//	deadTime            90s   (pod scheduled, image pulled, app warm)
//	podRate             100/s for a saturating signal, 10/s otherwise
//	latencyTarget       0     (none: pass/fail against a target is skipped)
//	overload            3x, 10x, 30x
//	demand              0     (derive: baseline pods at the metric's target)
//	step                4x
//	metricWindow        30s   (metrics-server's default resolution)
//	saturatedEfficiency 1
//
// The controller settings default to kube-controller-manager v1.34's.
type Assumptions struct {
	DeadTime            Assumed[time.Duration] `json:"deadTime"`
	PodRate             Assumed[float64]       `json:"podRate"`
	LatencyTarget       Assumed[time.Duration] `json:"latencyTarget"`
	Overload            Assumed[[]float64]     `json:"overload"`
	Demand              Assumed[float64]       `json:"demand"`
	Step                Assumed[float64]       `json:"step"`
	MetricWindow        Assumed[time.Duration] `json:"metricWindow"`
	SaturatedEfficiency Assumed[float64]       `json:"saturatedEfficiency"`
	// Signal is the overall signal with its provenance: "inferred" from the
	// metrics, or an override.
	Signal Assumed[Signal] `json:"signal"`

	SyncPeriod              Assumed[time.Duration] `json:"syncPeriod"`
	Tolerance               Assumed[float64]       `json:"tolerance"`
	DownscaleStabilization  Assumed[time.Duration] `json:"downscaleStabilization"`
	CPUInitializationPeriod Assumed[time.Duration] `json:"cpuInitializationPeriod"`
	InitialReadinessDelay   Assumed[time.Duration] `json:"initialReadinessDelay"`
	KubeVersion             Assumed[string]        `json:"kubeVersion"`
}

// Built-in assumption defaults (see Assumptions).
const (
	DefaultDeadTime              = 90 * time.Second
	DefaultPodRateSaturating     = 100.0
	DefaultPodRateOther          = 10.0
	DefaultStep                  = 4.0
	DefaultMetricWindow          = 30 * time.Second
	DefaultSaturatedEfficiency   = 1.0
	DefaultKEDAMaxReplicas       = 100
	DefaultKEDAPollingInterval   = 30 * time.Second
	DefaultKEDACooldownPeriod    = 300 * time.Second
	DefaultHPACPUUtilization     = 80
	AnnotationPrefix             = "capreport.io/"
	IgnoreAnnotationPrefix       = "ignore-check.capreport.io/"
	PartitionsAnnotation         = "capreport.io/partitions"
	KEDAPausedAnnotation         = "autoscaling.keda.sh/paused"
	KEDAPausedReplicasAnnotation = "autoscaling.keda.sh/paused-replicas"
	KEDAPausedScaleInAnnotation  = "autoscaling.keda.sh/paused-scale-in"
	KEDAPausedScaleOutAnnotation = "autoscaling.keda.sh/paused-scale-out"
)

// DefaultOverloads are the design overloads of the Size row.
func DefaultOverloads() []float64 { return []float64{3, 10, 30} }
