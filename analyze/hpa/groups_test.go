package hpa

import (
	"testing"
	"time"
)

// groupCase is one TestGroupPods row (§14.4): a single pod, its sample and
// the bucket it must land in.
type groupCase struct {
	name     string
	pod      Pod
	metric   *PodMetric
	resource string
	want     string // ready, unready, missing, ignored
}

func (c groupCase) run(t *testing.T) {
	t.Helper()
	c.pod.Name = "bentham"
	metrics := PodMetrics{}
	if c.metric != nil {
		metrics[c.pod.Name] = *c.metric
	}
	g := GroupPods([]Pod{c.pod}, metrics, c.resource, 2*time.Minute, 10*time.Second, testNow)
	got := "ready"
	switch {
	case g.Unready[c.pod.Name]:
		got = "unready"
	case g.Missing[c.pod.Name]:
		got = "missing"
	case g.Ignored[c.pod.Name]:
		got = "ignored"
	}
	n := len(g.Unready) + len(g.Missing) + len(g.Ignored) + int(g.ReadyCount)
	if got != c.want || n != 1 {
		t.Errorf("bucket %s (ready %d, %d entries), want %s", got, g.ReadyCount, n, c.want)
	}
}

func ago(d time.Duration) *time.Time { t := testNow.Add(-d); return &t }

func ready(status bool, since time.Duration) *ReadyCondition {
	return &ReadyCondition{Status: status, LastTransitionTime: testNow.Add(-since)}
}

func TestGroupPods(t *testing.T) {
	one := &PodMetric{Value: 1}
	cases := []groupCase{
		{name: "SucceededNoConditionsMemory", pod: Pod{Phase: PodSucceeded}, metric: &PodMetric{Value: 1, Window: time.Minute}, resource: "memory", want: "ready"},
		{name: "SucceededNoReadyConditionCPU", pod: Pod{Phase: PodSucceeded, StartTime: ago(0)}, metric: one, resource: "cpu", want: "unready"},
		{name: "ReadyFullWindowSinceTransition", pod: Pod{Phase: PodRunning, StartTime: ago(time.Minute), Ready: ready(true, 30*time.Second)},
			metric: &PodMetric{Value: 1, Timestamp: testNow, Window: 30 * time.Second}, resource: "cpu", want: "ready"},
		{name: "ReadyWindowNotElapsed", pod: Pod{Phase: PodRunning, StartTime: ago(time.Minute), Ready: ready(true, 30*time.Second)},
			metric: &PodMetric{Value: 1, Timestamp: testNow, Window: time.Minute}, resource: "cpu", want: "unready"},
		{name: "NeverReady", pod: Pod{Phase: PodRunning, StartTime: ago(10 * time.Minute), Ready: ready(false, 9*time.Minute+54*time.Second)}, metric: one, resource: "cpu", want: "unready"},
		{name: "ReadyPastInitPeriod", pod: Pod{Phase: PodRunning, StartTime: ago(3 * time.Minute), Ready: ready(true, 3*time.Minute)},
			metric: &PodMetric{Value: 1, Timestamp: testNow.Add(-2 * time.Minute), Window: time.Minute}, resource: "cpu", want: "ready"},
		{name: "WasReadyOnce", pod: Pod{Phase: PodRunning, StartTime: ago(10 * time.Minute), Ready: ready(false, 9*time.Minute)}, metric: one, resource: "cpu", want: "ready"},
		// start + delay == transition: not strictly after, so ready
		{name: "ReadinessDelayBoundary", pod: Pod{Phase: PodRunning, StartTime: ago(10 * time.Minute), Ready: ready(false, 9*time.Minute+50*time.Second)}, metric: one, resource: "cpu", want: "ready"},
		{name: "NoMetric", pod: Pod{Phase: PodRunning, StartTime: ago(3 * time.Minute), Ready: ready(true, 3*time.Minute)}, resource: "cpu", want: "missing"},
		{name: "PendingNoMetric", pod: Pod{Phase: PodPending}, resource: "cpu", want: "unready"},
		{name: "PendingDeleting", pod: Pod{Phase: PodPending, Deleting: true}, metric: one, resource: "cpu", want: "ignored"},
		{name: "Failed", pod: Pod{Phase: PodFailed}, metric: one, resource: "cpu", want: "ignored"},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestGroupPodsCohortCounts: ReadyCount is a pod count, the sets hold names.
func TestGroupPodsCohortCounts(t *testing.T) {
	pods := []Pod{
		{Name: "a", Count: 7, Phase: PodRunning},
		{Name: "b", Count: 3, Phase: PodRunning},
		{Name: "c", Count: 5, Phase: PodPending},
		{Name: "d", Phase: PodRunning}, // Count 0 means 1
	}
	metrics := PodMetrics{"a": {Value: 1}, "d": {Value: 1}, "stray": {Value: 1}}
	g := GroupPods(pods, metrics, "memory", 0, 0, testNow)
	if g.ReadyCount != 8 || !g.Missing["b"] || !g.Unready["c"] || len(g.Missing) != 1 || len(g.Unready) != 1 || len(g.Ignored) != 0 {
		t.Errorf("got %+v", g)
	}
}
