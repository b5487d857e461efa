package hpa

import (
	"errors"
	"math"
)

// errNoMatchedPods is upstream's error when no sample belongs to a listed pod.
var errNoMatchedPods = errors.New("no metrics returned matched known pods")

// sample is one metric entry during a calculation: value per pod, and the
// number of pods it stands for.
type sample struct {
	pods  int64
	value int64
}

// samples is the calculator's working copy of the metric map, keyed by pod
// (cohort) name. Entries are added and removed exactly where upstream edits
// its PodMetricsInfo, so len-based counts become sums of pods.
type samples map[string]sample

// newSamples copies metrics with multiplicity from the pod list; entries for
// names not in the list (superfluous metrics) stand for one pod.
func newSamples(pods []Pod, metrics PodMetrics) samples {
	size := cohortSizes(pods)
	s := make(samples, len(metrics))
	for name, m := range metrics {
		n, ok := size[name]
		if !ok {
			n = 1
		}
		s[name] = sample{pods: n, value: m.Value}
	}
	return s
}

// drop removes the samples of the named cohorts.
func (s samples) drop(names map[string]bool) {
	for name := range names {
		delete(s, name)
	}
}

// set overrides every named cohort's value (per pod), re-adding it if it was
// dropped; size gives the cohort's pod count.
func (s samples) set(names map[string]bool, size map[string]int64, value func(name string) int64) {
	for name := range names {
		s[name] = sample{pods: size[name], value: value(name)}
	}
}

// count is upstream's len(metrics), with multiplicity.
func (s samples) count() int64 {
	var n int64
	for _, e := range s {
		n += e.pods
	}
	return n
}

// resourceUtilization is GetResourceUtilizationRatio (§5): entries with no
// known request (superfluous pods) are skipped, utilization is truncated to a
// whole percent before the ratio is taken, the raw average is an integer
// division.
func resourceUtilization(s samples, requests map[string]int64, target int32) (ratio float64, utilization int32, rawAverage int64, err error) {
	var sumUsage, sumRequest, n int64
	for name, e := range s {
		req, ok := requests[name]
		if !ok {
			continue
		}
		sumUsage += e.value * e.pods
		sumRequest += req * e.pods
		n += e.pods
	}
	if sumRequest == 0 {
		return 0, 0, 0, errNoMatchedPods
	}
	utilization = int32(sumUsage * 100 / sumRequest)
	return float64(utilization) / float64(target), utilization, sumUsage / n, nil
}

// plainUsage is GetMetricUsageRatio (§5): the integer average over every
// entry, superfluous ones included.
func plainUsage(s samples, target int64) (ratio float64, average int64) {
	var sum, n int64
	for _, e := range s {
		sum += e.value * e.pods
		n += e.pods
	}
	average = sum / n
	return float64(average) / float64(target), average
}

// ceilReplicas is upstream's int32(math.Ceil(x)): no clamp in v1.34, so an
// out-of-range x converts however the platform converts it.
func ceilReplicas(x float64) int32 {
	return int32(math.Ceil(x))
}

// cohortSizes maps each listed name to the number of pods it stands for.
func cohortSizes(pods []Pod) map[string]int64 {
	m := make(map[string]int64, len(pods))
	for _, p := range pods {
		m[p.Name] = p.size()
	}
	return m
}
