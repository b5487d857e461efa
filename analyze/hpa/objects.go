package hpa

import (
	"errors"
	"fmt"
	"math"
)

// errNoExternalMetrics is the metrics client's answer when the External
// metrics API returns no series (GetExternalMetric); both External
// calculations fail with it before any arithmetic.
var errNoExternalMetrics = errors.New("no metrics returned from external metrics API")

// externalSeries is what GetExternalMetric hands the calculator: the
// series, or an error when there are none.
func externalSeries(usages []int64) ([]int64, error) {
	if len(usages) == 0 {
		return nil, fmt.Errorf("unable to get external metric: %w", errNoExternalMetrics)
	}
	return usages, nil
}

// ObjectMetricReplicas is GetObjectMetricReplicas (§9): an Object metric
// with a Value target. current is spec replicas; the answer scales the
// Running+Ready pod count, not current. Returns the usage for status.
func (c Calculator) ObjectMetricReplicas(current int32, usage, target int64, pods []Pod) (int32, int64, error) {
	r, err := c.usageRatioReplicas(current, float64(usage)/float64(target), pods)
	return r, usage, err
}

// ExternalMetricReplicas is GetExternalMetricReplicas (§9): the series are
// summed with plain int64 addition (the v1.35 saturating sum is not in
// v1.34) and compared with the Value target. No series is an error.
func (c Calculator) ExternalMetricReplicas(current int32, usages []int64, target int64, pods []Pod) (int32, int64, error) {
	usages, err := externalSeries(usages)
	if err != nil {
		return 0, 0, err
	}
	var usage int64
	for _, v := range usages {
		usage += v
	}
	r, err := c.usageRatioReplicas(current, float64(usage)/float64(target), pods)
	return r, usage, err
}

// ObjectPerPodMetricReplicas is GetObjectPerPodMetricReplicas (§9): the
// tolerance check uses status replicas, the answer is usage/target rounded
// up with no pod count at all. Returns the per-pod average for status.
func (c Calculator) ObjectPerPodMetricReplicas(statusReplicas int32, usage, targetPerPod int64) (int32, int64, error) {
	replicas := statusReplicas
	ratio := float64(usage) / (float64(targetPerPod) * float64(statusReplicas))
	if !c.Tolerances.isWithin(ratio) {
		replicas = ceilReplicas(float64(usage) / float64(targetPerPod))
	}
	return replicas, int64(math.Ceil(float64(usage) / float64(statusReplicas))), nil
}

// ExternalPerPodMetricReplicas is GetExternalPerPodMetricReplicas (§9),
// including the v1.34 overflow guard (#127050): a sum that turns negative
// saturates at MaxInt64, the count saturates at MaxInt32 and so does the
// reported average. No series is an error.
func (c Calculator) ExternalPerPodMetricReplicas(statusReplicas int32, usages []int64, targetPerPod int64) (int32, int64, error) {
	usages, err := externalSeries(usages)
	if err != nil {
		return 0, 0, err
	}
	var usage int64
	for _, v := range usages {
		usage += v
		if usage < 0 {
			usage = math.MaxInt64
			break
		}
	}
	replicas := statusReplicas
	ratio := float64(usage) / (float64(targetPerPod) * float64(statusReplicas))
	if !c.Tolerances.isWithin(ratio) {
		n := math.Ceil(float64(usage) / float64(targetPerPod))
		if n > math.MaxInt32 {
			replicas = math.MaxInt32
		} else {
			replicas = int32(n)
		}
	}
	if float64(usage) >= math.MaxInt64 {
		return replicas, math.MaxInt64, nil
	}
	return replicas, int64(math.Ceil(float64(usage) / float64(statusReplicas))), nil
}

// usageRatioReplicas is getUsageRatioReplicaCount. With current 0 (only
// reachable with minReplicas 0) it skips tolerance and pod counting so that
// a zero-sized target can wake up.
func (c Calculator) usageRatioReplicas(current int32, ratio float64, pods []Pod) (int32, error) {
	if current == 0 {
		return ceilReplicas(ratio), nil
	}
	if c.Tolerances.isWithin(ratio) {
		return current, nil
	}
	ready, err := ReadyPodsCount(pods)
	if err != nil {
		return 0, fmt.Errorf("unable to calculate ready pods: %w", err)
	}
	return ceilReplicas(ratio * float64(ready)), nil
}

// ReadyPodsCount is getReadyPodsCount: Running pods whose Ready condition
// is true, with multiplicity. Readiness delays and CPU rules do not apply.
func ReadyPodsCount(pods []Pod) (int64, error) {
	if len(pods) == 0 {
		return 0, errNoPods
	}
	var n int64
	for _, p := range pods {
		if p.Phase == PodRunning && p.Ready != nil && p.Ready.Status {
			n += p.size()
		}
	}
	return n, nil
}
