// Package analyze finds the autoscalers among rendered objects and gathers,
// for each, what the simulation needs: the effective autoscaling/v2 HPA spec
// (HPAs of every API version normalized, KEDA ScaledObjects translated into
// the HPA KEDA would create), the scale target with its pod resources, the
// signal each metric carries, and the assumptions the manifests cannot say,
// each with where it came from.
//
// Extract is pure: objects and configuration in, an Inventory out. It never
// fails; whatever is wrong with the input becomes a Finding.
//
// Annotations read, on the autoscaler or on its target workload (the
// autoscaler's win):
//
//	capreport.io/<key>              an assumption (config.AllKeys: dead-time,
//	                                pod-rate, latency-target, overload, demand,
//	                                step, metric-window, saturated-efficiency,
//	                                signal); a bad value is an invalid-annotation
//	                                finding and the next layer applies
//	capreport.io/partitions         ScaledObject only: the Kafka topic's
//	                                partition count, which caps what a kafka
//	                                trigger can ask for
//	ignore-check.capreport.io/<ID>  "<reason>": the check ID is waived for this
//	                                autoscaler; the reason is required
//
// and KEDA's own autoscaling.keda.sh/paused, paused-replicas,
// paused-scale-in and paused-scale-out on a ScaledObject. Any other
// capreport.io/ key is an unknown-annotation finding (usually a typo).
//
// Assumptions are layered: autoscaler annotation, target annotation,
// .capreport.yaml workloads entries (later entries win), .capreport.yaml
// defaults, built-in defaults (see Assumptions).
//
// The simulation core lives below this package (analyze/hpa, analyze/sim,
// analyze/phi, analyze/laws) and knows nothing of YAML.
package analyze

import "github.com/capreport/capreport/analyze/inventory"

// What Extract finds is analyze/inventory's; these names keep it readable
// as analyze's to the packages that price and print it.
type (
	Signal             = inventory.Signal
	Inventory          = inventory.Inventory
	SkippedObject      = inventory.SkippedObject
	Autoscaler         = inventory.Autoscaler
	Metric             = inventory.Metric
	Trigger            = inventory.Trigger
	KEDA               = inventory.KEDA
	KEDAFallback       = inventory.KEDAFallback
	Ref                = inventory.Ref
	Target             = inventory.Target
	ContainerResources = inventory.ContainerResources
	Assumed[T any]     = inventory.Assumed[T]
	Assumptions        = inventory.Assumptions
)

// Signals.
const (
	SignalSaturating = inventory.SignalSaturating
	SignalBacklog    = inventory.SignalBacklog
	SignalRate       = inventory.SignalRate
	SignalUnknown    = inventory.SignalUnknown
)

// Kinds of autoscaler.
const (
	KindHPA          = inventory.KindHPA
	KindScaledObject = inventory.KindScaledObject
)

// Provenance of an assumed value.
const (
	FromAnnotation = inventory.FromAnnotation
	FromConfig     = inventory.FromConfig
	FromMeasured   = inventory.FromMeasured
	FromCluster    = inventory.FromCluster
	FromDefault    = inventory.FromDefault
	FromInferred   = inventory.FromInferred
)

// Built-in assumption defaults and the annotations read.
const (
	DefaultDeadTime               = inventory.DefaultDeadTime
	DefaultPodRateSaturating      = inventory.DefaultPodRateSaturating
	DefaultPodRateOther           = inventory.DefaultPodRateOther
	DefaultStep                   = inventory.DefaultStep
	DefaultMetricWindow           = inventory.DefaultMetricWindow
	DefaultSaturatedEfficiency    = inventory.DefaultSaturatedEfficiency
	DefaultKEDAMaxReplicas        = inventory.DefaultKEDAMaxReplicas
	DefaultKEDAPollingInterval    = inventory.DefaultKEDAPollingInterval
	DefaultKEDACooldownPeriod     = inventory.DefaultKEDACooldownPeriod
	DefaultHPACPUUtilization      = inventory.DefaultHPACPUUtilization
	AnnotationPrefix              = inventory.AnnotationPrefix
	IgnoreAnnotationPrefix        = inventory.IgnoreAnnotationPrefix
	PartitionsAnnotation          = inventory.PartitionsAnnotation
	KEDAPausedAnnotation          = inventory.KEDAPausedAnnotation
	KEDAPausedReplicasAnnotation  = inventory.KEDAPausedReplicasAnnotation
	KEDAPausedScaleInAnnotation   = inventory.KEDAPausedScaleInAnnotation
	KEDAPausedScaleOutAnnotation  = inventory.KEDAPausedScaleOutAnnotation
	KEDAForceActivationAnnotation = inventory.KEDAForceActivationAnnotation
)

// DefaultOverloads are the design overloads of the Size row.
func DefaultOverloads() []float64 { return inventory.DefaultOverloads() }
