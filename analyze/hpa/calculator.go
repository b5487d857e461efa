package hpa

import (
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// Calculator mirrors upstream's ReplicaCalculator: the tuning values only.
// Pods and metrics come in per call, so every method is a pure function.
//
// The simulation calls ResourceReplicas, RawResourceReplicas and
// ExternalPerPodMetricReplicas. The Pods, Object and External Value
// methods are kept although nothing in capreport calls them yet: with them
// the port covers every calculation of replica_calculator.go, and
// internal/upstreamdiff holds each to the genuine one.
type Calculator struct {
	Tolerances                    Tolerances
	CPUInitializationPeriod       time.Duration
	DelayOfInitialReadinessStatus time.Duration
}

// NewCalculator builds the calculator the controller would use for one HPA.
func NewCalculator(cfg Config, behavior *autoscalingv2.HorizontalPodAutoscalerBehavior) Calculator {
	return Calculator{
		Tolerances:                    TolerancesFor(cfg, behavior),
		CPUInitializationPeriod:       cfg.CPUInitializationPeriod,
		DelayOfInitialReadinessStatus: cfg.InitialReadinessDelay,
	}
}

var (
	errNoPods         = errors.New("no pods returned by selector while calculating replica count")
	errNoReadyMetrics = errors.New("did not receive metrics for targeted pods (pods might be unready)")
)

// ResourceResult is GetResourceReplicas' answer plus the second-pass
// utilization, which upstream computes but never reports; the simulator
// shows it ("utilization over all pods").
type ResourceResult struct {
	Replicas int32
	// Utilization and RawAverage are the first-pass values that upstream
	// writes to status (ready pods only).
	Utilization int32
	RawAverage  int64
	// SecondPass is set when missing or unready pods were re-added;
	// AdjustedUtilization is then the whole-percent utilization over them.
	SecondPass          bool
	AdjustedUtilization int32
}

// ResourceReplicas is GetResourceReplicas (§7): Resource or ContainerResource
// metrics with an Utilization target. pods and metrics are not modified.
func (c Calculator) ResourceReplicas(current int32, targetUtilization int32, resource, container string, pods []Pod, metrics PodMetrics, now time.Time) (replicas int32, utilization int32, rawAverage int64, err error) {
	r, err := c.ResourceReplicasDetail(current, targetUtilization, resource, container, pods, metrics, now)
	return r.Replicas, r.Utilization, r.RawAverage, err
}

// ResourceReplicasDetail is ResourceReplicas with the second pass exposed.
func (c Calculator) ResourceReplicasDetail(current int32, targetUtilization int32, resource, container string, pods []Pod, metrics PodMetrics, now time.Time) (ResourceResult, error) {
	if len(metrics) == 0 {
		return ResourceResult{}, fmt.Errorf("unable to get metrics for resource %s: no metrics returned from resource metrics API", resource)
	}
	if len(pods) == 0 {
		return ResourceResult{}, errNoPods
	}
	g := GroupPods(pods, metrics, resource, c.CPUInitializationPeriod, c.DelayOfInitialReadinessStatus, now)
	s := newSamples(pods, metrics)
	s.drop(g.Ignored)
	s.drop(g.Unready)
	if len(s) == 0 {
		return ResourceResult{}, errNoReadyMetrics
	}
	requests, err := podRequests(pods, container, resource)
	if err != nil {
		return ResourceResult{}, err
	}
	ratio, util, raw, err := resourceUtilization(s, requests, targetUtilization)
	if err != nil {
		return ResourceResult{}, err
	}
	res := ResourceResult{Replicas: current, Utilization: util, RawAverage: raw}

	scaleUpWithUnready := len(g.Unready) > 0 && ratio > 1
	if !scaleUpWithUnready && len(g.Missing) == 0 {
		if !c.Tolerances.isWithin(ratio) {
			res.Replicas = ceilReplicas(ratio * float64(g.ReadyCount))
		}
		return res, nil
	}

	size := cohortSizes(pods)
	if len(g.Missing) > 0 {
		if ratio < 1 {
			// Scale-down: assume a silent pod uses its whole request, or
			// the target when that is above 100 %, so that it holds the
			// count up rather than down.
			fallback := int64(max(100, targetUtilization))
			s.set(g.Missing, size, func(n string) int64 { return requests[n] * fallback / 100 })
		} else if ratio > 1 {
			s.set(g.Missing, size, func(string) int64 { return 0 })
		}
	}
	if scaleUpWithUnready {
		s.set(g.Unready, size, func(string) int64 { return 0 })
	}
	newRatio, newUtil, _, err := resourceUtilization(s, requests, targetUtilization)
	if err != nil {
		return ResourceResult{Utilization: util, RawAverage: raw}, err
	}
	res.SecondPass, res.AdjustedUtilization = true, newUtil
	res.Replicas = c.secondPass(current, ratio, newRatio, s.count())
	return res, nil
}

// secondPass holds the count when the adjusted ratio is within tolerance or
// points the other way, and when the adjusted count would move against the
// ratio's direction.
func (c Calculator) secondPass(current int32, ratio, newRatio float64, pods int64) int32 {
	if c.Tolerances.isWithin(newRatio) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1) {
		return current
	}
	n := ceilReplicas(newRatio * float64(pods))
	if (newRatio < 1 && n > current) || (newRatio > 1 && n < current) {
		return current
	}
	return n
}

// RawResourceReplicas is GetRawResourceReplicas (§8): Resource or
// ContainerResource with an AverageValue target (milli). The CPU readiness
// rule applies when resource is "cpu". container only names whose usage the
// caller put in metrics; requests are not read.
func (c Calculator) RawResourceReplicas(current int32, targetAverage int64, resource, container string, pods []Pod, metrics PodMetrics, now time.Time) (replicas int32, usage int64, err error) {
	if len(metrics) == 0 {
		return 0, 0, fmt.Errorf("unable to get metrics for resource %s: no metrics returned from resource metrics API", resource)
	}
	return c.plainReplicas(current, targetAverage, resource, pods, metrics, now)
}

// MetricReplicas is GetMetricReplicas (§8): a Pods metric with an
// AverageValue target (milli); readiness is not consulted.
func (c Calculator) MetricReplicas(current int32, targetAverage int64, pods []Pod, metrics PodMetrics, now time.Time) (replicas int32, usage int64, err error) {
	if len(metrics) == 0 {
		return 0, 0, errors.New("unable to get metric: no metrics returned from custom metrics API")
	}
	return c.plainReplicas(current, targetAverage, "", pods, metrics, now)
}

// plainReplicas is calcPlainMetricReplicas: §7 with the plain average and
// missing pods counted at exactly the target on a scale-down.
func (c Calculator) plainReplicas(current int32, target int64, resource string, pods []Pod, metrics PodMetrics, now time.Time) (int32, int64, error) {
	if len(pods) == 0 {
		return 0, 0, errNoPods
	}
	g := GroupPods(pods, metrics, resource, c.CPUInitializationPeriod, c.DelayOfInitialReadinessStatus, now)
	s := newSamples(pods, metrics)
	s.drop(g.Ignored)
	s.drop(g.Unready)
	if len(s) == 0 {
		return 0, 0, errNoReadyMetrics
	}
	ratio, usage := plainUsage(s, target)

	scaleUpWithUnready := len(g.Unready) > 0 && ratio > 1
	if !scaleUpWithUnready && len(g.Missing) == 0 {
		if c.Tolerances.isWithin(ratio) {
			return current, usage, nil
		}
		return ceilReplicas(ratio * float64(g.ReadyCount)), usage, nil
	}

	size := cohortSizes(pods)
	if len(g.Missing) > 0 {
		if ratio < 1 {
			s.set(g.Missing, size, func(string) int64 { return target })
		} else if ratio > 1 {
			s.set(g.Missing, size, func(string) int64 { return 0 })
		}
	}
	if scaleUpWithUnready {
		s.set(g.Unready, size, func(string) int64 { return 0 })
	}
	newRatio, _ := plainUsage(s, target)
	return c.secondPass(current, ratio, newRatio, s.count()), usage, nil
}
