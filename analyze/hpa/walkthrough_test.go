package hpa

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// saturated is model.md's walked-through sync: a cohort of 10 ready pods
// reading 1000 m against a 1000 m request, plus `pending` pods on order.
func saturated(pending int32) ([]Pod, PodMetrics) {
	longAgo := testNow.Add(-time.Hour)
	cpu := []Container{{Name: "app", Requests: map[string]int64{"cpu": 1000}}}
	pods := []Pod{{
		Name: "order-0", Count: 10, Phase: PodRunning, StartTime: &longAgo,
		Ready: &ReadyCondition{Status: true, LastTransitionTime: longAgo}, Containers: cpu,
	}}
	if pending > 0 {
		pods = append(pods, Pod{Name: "order-1", Count: pending, Phase: PodPending, Containers: cpu})
	}
	return pods, PodMetrics{"order-0": {Value: 1000, Timestamp: testNow, Window: 30 * time.Second}}
}

type walkCase struct {
	name         string
	pending      int32
	want         int32
	wantAdjusted int32 // utilization over all pods; 0: no second pass
}

func (c walkCase) run(t *testing.T) {
	t.Helper()
	pods, metrics := saturated(c.pending)
	calc := NewCalculator(DefaultConfig(), nil)
	r, err := calc.ResourceReplicasDetail(10+c.pending, 50, "cpu", "", pods, metrics, testNow)
	if err != nil {
		t.Fatal(err)
	}
	// status always shows the ready pods' first pass
	if r.Replicas != c.want || r.Utilization != 100 || r.RawAverage != 1000 || r.AdjustedUtilization != c.wantAdjusted || r.SecondPass != (c.wantAdjusted != 0) {
		t.Errorf("got %+v, want %d replicas, adjusted %d%%", r, c.want, c.wantAdjusted)
	}
}

func TestWalkedThroughSync(t *testing.T) {
	cases := []walkCase{
		{name: "NothingOnOrder", pending: 0, want: 20},
		// ceil(1.24 × 16) = 20
		{name: "SixOnOrder", pending: 6, want: 20, wantAdjusted: 62},
		// 55 % is exactly 1.1 × target: within tolerance, hold
		{name: "EightOnOrderHolds", pending: 8, want: 18, wantAdjusted: 55},
		// 25 %: the re-added pods point down, the direction hold keeps 40
		{name: "ThirtyOnOrderHolds", pending: 30, want: 40, wantAdjusted: 25},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestNewPodReadyAfterOneWindow is model.md's readiness rule: a pod ordered
// at s and ready at s+τ is still inside the 5 min CPU initialization period,
// so its sample counts from the first sync at or after s+τ+30 s.
func TestNewPodReadyAfterOneWindow(t *testing.T) {
	cfg := DefaultConfig()
	order := testNow
	readyAt := order.Add(90 * time.Second)
	pod := Pod{Name: "order-2", Count: 16, Phase: PodRunning, StartTime: &order,
		Ready: &ReadyCondition{Status: true, LastTransitionTime: readyAt}}
	for _, c := range []struct {
		at        time.Duration // after readyAt
		wantReady bool
	}{{15 * time.Second, false}, {29 * time.Second, false}, {30 * time.Second, true}, {45 * time.Second, true}} {
		now := readyAt.Add(c.at)
		m := PodMetrics{pod.Name: {Value: 500, Timestamp: now, Window: 30 * time.Second}}
		g := GroupPods([]Pod{pod}, m, "cpu", cfg.CPUInitializationPeriod, cfg.InitialReadinessDelay, now)
		if (g.ReadyCount == 16) != c.wantReady || (g.Unready[pod.Name]) == c.wantReady {
			t.Errorf("%v after ready: %+v, want ready %v", c.at, g, c.wantReady)
		}
	}
}

// expand turns every cohort into Count separate pods with the same sample.
func expand(pods []Pod, metrics PodMetrics) ([]Pod, PodMetrics) {
	var out []Pod
	outM := PodMetrics{}
	listed := map[string]bool{}
	for _, p := range pods {
		listed[p.Name] = true
		for i := range p.size() {
			q := p
			q.Name, q.Count = fmt.Sprintf("%s#%d", p.Name, i), 1
			out = append(out, q)
			if m, ok := metrics[p.Name]; ok {
				outM[q.Name] = m
			}
		}
	}
	for name, m := range metrics {
		if !listed[name] {
			outM[name] = m
		}
	}
	return out, outM
}

// cohortCase is a pod population given as cohorts; run checks that every
// calculation answers the same as for the expanded, one-entry-per-pod list.
type cohortCase struct {
	name    string
	current int32
	pods    []Pod
	metrics PodMetrics
}

func (c cohortCase) run(t *testing.T) {
	t.Helper()
	pods, metrics := expand(c.pods, c.metrics)
	calc := testCalc
	for _, target := range []int32{30, 50, 100, 300} {
		a, errA := calc.ResourceReplicasDetail(c.current, target, "cpu", "", c.pods, c.metrics, testNow)
		b, errB := calc.ResourceReplicasDetail(c.current, target, "cpu", "", pods, metrics, testNow)
		if !reflect.DeepEqual(a, b) || fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Errorf("resource target %d: cohorts %+v %v, pods %+v %v", target, a, errA, b, errB)
		}
	}
	for _, target := range []int64{200, 600, 2000} {
		for _, res := range []string{"", "cpu"} {
			ra, ua, errA := calc.plainReplicas(c.current, target, res, c.pods, c.metrics, testNow)
			rb, ub, errB := calc.plainReplicas(c.current, target, res, pods, metrics, testNow)
			if ra != rb || ua != ub || fmt.Sprint(errA) != fmt.Sprint(errB) {
				t.Errorf("plain %q target %d: cohorts (%d, %d, %v), pods (%d, %d, %v)", res, target, ra, ua, errA, rb, ub, errB)
			}
		}
		ra, _, _ := calc.ObjectMetricReplicas(c.current, 3*target, target, c.pods)
		rb, _, _ := calc.ObjectMetricReplicas(c.current, 3*target, target, pods)
		if ra != rb {
			t.Errorf("object target %d: cohorts %d, pods %d", target, ra, rb)
		}
	}
	ga := GroupPods(c.pods, c.metrics, "cpu", calc.CPUInitializationPeriod, calc.DelayOfInitialReadinessStatus, testNow)
	gb := GroupPods(pods, metrics, "cpu", calc.CPUInitializationPeriod, calc.DelayOfInitialReadinessStatus, testNow)
	if ga.ReadyCount != gb.ReadyCount {
		t.Errorf("ready count: cohorts %d, pods %d", ga.ReadyCount, gb.ReadyCount)
	}
}

func cohort(name string, n int32, state byte, request int64) Pod {
	p := testPod(name, state, request)
	p.Count = n
	return p
}

func TestCohortsMatchSeparatePods(t *testing.T) {
	walk6, walk6m := saturated(6)
	walk30, walk30m := saturated(30)
	m := func(kv ...any) PodMetrics {
		out := PodMetrics{}
		for i := 0; i < len(kv); i += 2 {
			ts := testNow
			if kv[i].(string) == "hot" {
				ts = time.Time{}
			}
			out[kv[i].(string)] = PodMetric{Value: int64(kv[i+1].(int)), Timestamp: ts, Window: time.Minute}
		}
		return out
	}
	cases := []cohortCase{
		{name: "WalkSixOnOrder", current: 16, pods: walk6, metrics: walk6m},
		{name: "WalkThirtyOnOrder", current: 40, pods: walk30, metrics: walk30m},
		{name: "UnreadyAndMissing", current: 9, pods: []Pod{cohort("ready", 4, 'R', 2000), cohort("unready", 3, 'U', 2000), cohort("silent", 2, 'R', 2000)},
			metrics: m("ready", 1800, "unready", 100)},
		{name: "HotIgnoredAndSuperfluous", current: 10, pods: []Pod{cohort("ready", 5, 'R', 1000), cohort("hot", 3, 'H', 1000), cohort("gone", 2, 'F', 1000)},
			metrics: m("ready", 300, "hot", 900, "stray", 700)},
		{name: "ScaleDownMissing", current: 12, pods: []Pod{cohort("ready", 6, 'R', 4000), cohort("silent", 6, 'R', 4000)}, metrics: m("ready", 400)},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
