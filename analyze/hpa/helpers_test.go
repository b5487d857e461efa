package hpa

import (
	"fmt"
	"time"
)

// testNow is the fixed clock of every test.
var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// Upstream's calculator tests use a 2 m CPU initialization period and a
// 10 s readiness delay.
var testCalc = Calculator{
	Tolerances:                    Tolerances{ScaleDown: 0.1, ScaleUp: 0.1},
	CPUInitializationPeriod:       2 * time.Minute,
	DelayOfInitialReadinessStatus: 10 * time.Second,
}

const noMetric = -1 // usage entry: the pod has no sample

// podName is upstream's naming of test pods by index.
func podName(i int) string { return fmt.Sprintf("test-pod-%d", i) }

// testPod builds a pod in one of the §14 states:
//
//	R Running, Ready since long ago       U Running, never ready
//	H Running, Ready but started now      h Running, not ready, started now
//	P Pending    F Failed    D Running with a deletion timestamp
//
// request is per pod and split over two containers, as upstream's tests
// (each of which has two); a negative request sets none.
func testPod(name string, state byte, request int64) Pod {
	longAgo := testNow.Add(-time.Hour)
	p := Pod{Name: name, Phase: PodRunning}
	switch state {
	case 'R', 'D':
		p.StartTime = &longAgo
		p.Ready = &ReadyCondition{Status: true, LastTransitionTime: longAgo}
		p.Deleting = state == 'D'
	case 'U':
		p.StartTime = &longAgo
		p.Ready = &ReadyCondition{Status: false, LastTransitionTime: longAgo}
	case 'H', 'h':
		now := testNow
		p.StartTime = &now
		p.Ready = &ReadyCondition{Status: state == 'H', LastTransitionTime: now}
	case 'P':
		p.Phase = PodPending
	case 'F':
		p.Phase = PodFailed
		p.StartTime = &longAgo
	default:
		panic("unknown pod state " + string(state))
	}
	c1 := Container{Name: "c1", Requests: map[string]int64{}}
	c2 := Container{Name: "c2", Requests: map[string]int64{}}
	if request >= 0 {
		c1.Requests["cpu"] = request / 2
		c2.Requests["cpu"] = request - request/2
	}
	p.Containers = []Container{c1, c2}
	return p
}

// testPods builds pods test-pod-i from one state letter per pod and the
// per-pod requests, and their samples (noMetric leaves a pod without one).
// Hot pods' samples carry a zero timestamp, so the CPU rule rejects them.
func testPods(states string, requests, usage []int64) ([]Pod, PodMetrics) {
	pods := make([]Pod, len(states))
	metrics := PodMetrics{}
	for i := range states {
		req := int64(0)
		if i < len(requests) {
			req = requests[i]
		}
		pods[i] = testPod(podName(i), states[i], req)
		if i < len(usage) && usage[i] != noMetric {
			ts := testNow
			if states[i] == 'H' || states[i] == 'h' {
				ts = time.Time{}
			}
			metrics[podName(i)] = PodMetric{Value: usage[i], Timestamp: ts, Window: time.Minute}
		}
	}
	return pods, metrics
}

func rep(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func i32(v int32) *int32 { return &v }
