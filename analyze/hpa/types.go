// Package hpa is a port of the Kubernetes v1.34 HorizontalPodAutoscaler
// arithmetic (pkg/controller/podautoscaler): pod grouping, the replica
// calculations per metric type, reconcile and both normalization paths.
//
// Everything here is a pure function of plain values and an explicit `now`:
// no YAML, no wall clock, no I/O. Metric values are milli-units (int64), as
// upstream's Quantity.MilliValue().
//
// Pods may be passed as cohorts: a Pod with Count n stands for n identical
// pods (same phase, readiness, start time, requests and metric), so that a
// simulation of thousands of pods costs one entry per order, not per pod.
package hpa

import (
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// PodPhase mirrors core/v1 PodPhase.
type PodPhase string

const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// ReadyCondition is the pod's Ready condition. Status false stands for
// ConditionFalse; ConditionUnknown is not modelled.
type ReadyCondition struct {
	Status             bool
	LastTransitionTime time.Time
}

// Container carries what calculateRequests reads of a container.
type Container struct {
	Name string
	// Requests in milli-units by resource name ("cpu", "memory"); a missing
	// key means the container sets no request for that resource.
	Requests map[string]int64
	// RestartableInit marks an entry of Pod.InitContainers with
	// restartPolicy Always (a sidecar). API validation forbids the field on
	// spec.containers, so it means nothing in Pod.Containers.
	RestartableInit bool
}

// Pod is one pod, or Count identical pods (Count 0 means 1). Names are
// unique within a pod list, as pod names are within a namespace.
type Pod struct {
	Name      string
	Count     int32
	Phase     PodPhase
	Deleting  bool            // deletionTimestamp set
	Ready     *ReadyCondition // nil: no Ready condition
	StartTime *time.Time      // nil: status.startTime unset
	// Containers is spec.containers.
	Containers []Container
	// InitContainers is spec.initContainers, in spec order: sidecars
	// (RestartableInit) and regular init containers interleaved as listed,
	// since a regular init container runs beside the sidecars listed
	// before it and not beside those after it (effectiveRequest).
	//
	// The container path sums the sidecars with the containers and skips
	// regular init containers; only the pod-level path (below) counts a
	// regular init container, when it asks for more than the rest.
	InitContainers []Container
	// PodRequests are pod-level requests (spec.resources.requests, KEP-2837;
	// PodLevelResources is beta/on in v1.34). When one of them is of a
	// supported resource (cpu, memory, hugepages-*) and the metric names no
	// container, the request is the pod's effective request: the
	// containers' aggregate (init containers included) with the supported
	// pod-level values put over it, plus Overhead (effectiveRequest).
	PodRequests map[string]int64
	// Overhead is spec.overhead (filled from the RuntimeClass at
	// admission). It is added on the pod-level path only, as upstream.
	Overhead map[string]int64
}

// size is the number of pods the entry stands for: Count, or 1 when Count
// is zero (or negative, which the simulator never means).
func (p Pod) size() int64 {
	if p.Count <= 0 {
		return 1
	}
	return int64(p.Count)
}

// PodMetric is one pod's metric sample (per pod, milli-units).
type PodMetric struct {
	Value     int64
	Timestamp time.Time
	Window    time.Duration
}

// PodMetrics maps pod name to its sample; an entry applies to every pod of
// the named cohort. Entries for names not in the pod list are "superfluous"
// metrics and count as one pod each, as upstream.
type PodMetrics map[string]PodMetric

// Tolerances are the per-direction tolerances (KEP-4951).
type Tolerances struct {
	ScaleDown float64
	ScaleUp   float64
}

// Config is the kube-controller-manager configuration the port needs.
type Config struct {
	SyncPeriod                     time.Duration // 15s
	Tolerance                      float64       // 0.1
	CPUInitializationPeriod        time.Duration // 5m
	InitialReadinessDelay          time.Duration // 30s
	DownscaleStabilizationWindow   time.Duration // 5m
	ConfigurableToleranceFeatureOn bool          // HPAConfigurableTolerance gate, off in v1.34
}

// DefaultConfig returns the controller-manager defaults of v1.34.
func DefaultConfig() Config {
	return Config{
		SyncPeriod:                   15 * time.Second,
		Tolerance:                    0.1,
		CPUInitializationPeriod:      5 * time.Minute,
		InitialReadinessDelay:        30 * time.Second,
		DownscaleStabilizationWindow: 5 * time.Minute,
	}
}

// Compile-time reminder that the behavior types are upstream's.
var _ *autoscalingv2.HorizontalPodAutoscalerBehavior
