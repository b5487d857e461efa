package hpa

import (
	"strings"
	"testing"
	"time"
)

// resourceCase is one upstream TestReplicaCalc… case for GetResourceReplicas
// (§14.1). Values are per pod (upstream's two containers summed).
type resourceCase struct {
	name     string // upstream test name, without TestReplicaCalc
	current  int32
	states   string
	requests []int64
	usage    []int64          // noMetric: pod has no sample
	extra    map[string]int64 // samples for pods not in the list
	target   int32
	tol      *Tolerances // nil: 0.1 both ways

	want     int32
	wantUtil int32
	wantRaw  int64
	wantErr  string // substring; empty: no error
}

func (c resourceCase) run(t *testing.T) {
	t.Helper()
	pods, metrics := testPods(c.states, c.requests, c.usage)
	for name, v := range c.extra {
		metrics[name] = PodMetric{Value: v, Timestamp: testNow, Window: time.Minute}
	}
	calc := testCalc
	if c.tol != nil {
		calc.Tolerances = *c.tol
	}
	got, util, raw, err := calc.ResourceReplicas(c.current, c.target, "cpu", "", pods, metrics, testNow)
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != c.want || util != c.wantUtil || raw != c.wantRaw {
		t.Errorf("got (%d, %d%%, %dm), want (%d, %d%%, %dm)", got, util, raw, c.want, c.wantUtil, c.wantRaw)
	}
}

func TestReplicaCalcResource(t *testing.T) {
	cases := []resourceCase{
		{name: "ScaleUp", current: 3, states: "RRR", requests: rep(2000, 3), usage: []int64{600, 1000, 1400}, target: 30, want: 5, wantUtil: 50, wantRaw: 1000},
		// would expect 5 if we didn't ignore the unready pod
		{name: "ScaleUpUnreadyLessScale", current: 3, states: "URR", requests: rep(2000, 3), usage: []int64{600, 1000, 1400}, target: 30, want: 4, wantUtil: 60, wantRaw: 1200},
		{name: "ScaleUpHotCpuLessScale", current: 3, states: "HRR", requests: rep(2000, 3), usage: []int64{600, 1000, 1400}, target: 30, want: 4, wantUtil: 60, wantRaw: 1200},
		// unready pods at 0 pull the ratio below 1: direction hold
		{name: "ScaleUpUnreadyNoScale", current: 3, states: "RUU", requests: rep(2000, 3), usage: []int64{800, 1000, 1400}, target: 30, want: 3, wantUtil: 40, wantRaw: 800},
		{name: "ScaleHotCpuNoScale", current: 3, states: "Rhh", requests: rep(2000, 3), usage: []int64{800, 1000, 1400}, target: 30, want: 3, wantUtil: 40, wantRaw: 800},
		{name: "ScaleUpIgnoresFailedPods", current: 2, states: "RRFF", requests: rep(2000, 4), usage: []int64{1000, 1400, noMetric, noMetric}, target: 30, want: 4, wantUtil: 60, wantRaw: 1200},
		{name: "ScaleUpIgnoresDeletionPods", current: 2, states: "RRDD", requests: rep(2000, 4), usage: []int64{1000, 1400, noMetric, noMetric}, target: 30, want: 4, wantUtil: 60, wantRaw: 1200},
		{name: "ScaleDown", current: 5, states: "RRRRR", requests: rep(2000, 5), usage: []int64{200, 600, 1000, 500, 500}, target: 50, want: 3, wantUtil: 28, wantRaw: 560},
		{name: "ScaleDownExcludeUnreadyPods", current: 5, states: "RRRUU", requests: rep(2000, 5), usage: []int64{200, 600, 1000, 500, 500}, target: 50, want: 2, wantUtil: 30, wantRaw: 600},
		{name: "ScaleDownExcludeUnscheduledPods", current: 5, states: "RPPPP", requests: rep(2000, 5), usage: []int64{200, noMetric, noMetric, noMetric, noMetric}, target: 50, want: 1, wantUtil: 10, wantRaw: 200},
		{name: "ScaleDownIgnoreHotCpuPods", current: 5, states: "RRRHH", requests: rep(2000, 5), usage: []int64{200, 600, 1000, 500, 500}, target: 50, want: 2, wantUtil: 30, wantRaw: 600},
		{name: "ScaleDownIgnoresFailedPods", current: 5, states: "RRRRRFF", requests: rep(2000, 7), usage: []int64{200, 600, 1000, 500, 500, noMetric, noMetric}, target: 50, want: 3, wantUtil: 28, wantRaw: 560},
		{name: "Tolerance", current: 3, states: "RRR", requests: []int64{1800, 2000, 2200}, usage: []int64{2020, 2060, 2040}, target: 100, want: 3, wantUtil: 102, wantRaw: 2040},
		{name: "SuperfluousMetrics", current: 4, states: "RRRR", requests: rep(2000, 4), usage: []int64{8000, 19000, 6000, 14000},
			extra: map[string]int64{podName(4): 6400, podName(5): 4000}, target: 100, want: 24, wantUtil: 587, wantRaw: 11750},
		{name: "MissingMetrics", current: 4, states: "RRRR", requests: rep(2000, 4), usage: []int64{800, 190, noMetric, noMetric}, target: 100, want: 3, wantUtil: 24, wantRaw: 495},
		{name: "MissingMetricsNoChangeEq", current: 2, states: "RR", requests: rep(2000, 2), usage: []int64{2000, noMetric}, target: 100, want: 2, wantUtil: 100, wantRaw: 2000},
		{name: "MissingMetricsNoChangeGt", current: 2, states: "RR", requests: rep(2000, 2), usage: []int64{3800, noMetric}, target: 100, want: 2, wantUtil: 190, wantRaw: 3800},
		{name: "MissingMetricsNoChangeLt", current: 2, states: "RR", requests: rep(2000, 2), usage: []int64{1200, noMetric}, target: 100, want: 2, wantUtil: 60, wantRaw: 1200},
		{name: "MissingMetricsUnreadyChange", current: 3, states: "URR", requests: rep(2000, 3), usage: []int64{200, 900, noMetric}, target: 50, want: 3, wantUtil: 45, wantRaw: 900},
		{name: "MissingMetricsHotCpuNoChange", current: 3, states: "HRR", requests: rep(2000, 3), usage: []int64{200, 900, noMetric}, target: 50, want: 3, wantUtil: 45, wantRaw: 900},
		{name: "MissingMetricsUnreadyScaleUp", current: 3, states: "URR", requests: rep(2000, 3), usage: []int64{200, 4000, noMetric}, target: 50, want: 4, wantUtil: 200, wantRaw: 4000},
		{name: "MissingMetricsUnreadyScaleDown", current: 4, states: "URRR", requests: rep(2000, 4), usage: []int64{200, 200, 200, noMetric}, target: 50, want: 3, wantUtil: 10, wantRaw: 200},
		// missing pod counted at 300 % of its request, not 100 %
		{name: "MissingMetricsScaleDownTargetOver100", current: 4, states: "URRR", requests: []int64{2000, 2000, 4000, 4000}, usage: []int64{400, 200, 200, noMetric}, target: 300, want: 2, wantUtil: 6, wantRaw: 200},
		{name: "DuringRollingUpdateWithMaxSurge", current: 2, states: "RRR", requests: rep(2000, 3), usage: []int64{200, 200, noMetric}, target: 50, want: 2, wantUtil: 10, wantRaw: 200},
		{name: "DisjointResourcesMetrics", current: 1, states: "R", requests: []int64{2000}, usage: []int64{noMetric},
			extra: map[string]int64{"an-older-pod-name": 100}, target: 100, wantErr: "no metrics returned matched known pods"},
		{name: "EmptyMetrics", current: 4, states: "RRR", requests: rep(2000, 3), target: 100, wantErr: "no metrics returned from resource metrics API"},
		{name: "EmptyCPURequest", current: 1, states: "R", requests: []int64{-1}, usage: []int64{400}, target: 100, wantErr: "missing request for"},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestReplicaCalcComputedToleranceAlgImplementation: 10 pods at 300 m with
// requests spread around 600 m (total 6000 m) read 50 %.
func TestReplicaCalcComputedToleranceAlgImplementation(t *testing.T) {
	requests := []int64{700, 500, 610, 590, 602, 598, 601, 599, 600, 600}
	cases := []resourceCase{
		{name: "OutsideTolerance", target: 56, want: 9},
		// 50/55 = 0.909 is within 0.1
		{name: "WithinTolerance", target: 55, want: 10},
	}
	for _, c := range cases {
		c.current, c.states, c.requests, c.usage = 10, strings.Repeat("R", 10), requests, rep(300, 10)
		c.wantUtil, c.wantRaw = 50, 300
		t.Run(c.name, c.run)
	}
}

func TestReplicaCalcConfigurableTolerance(t *testing.T) {
	cases := []resourceCase{
		{name: "ZeroTolerance", usage: []int64{1818, 2020, 2222}, tol: &Tolerances{0, 0}, want: 4, wantUtil: 101, wantRaw: 2020},
		{name: "LargeScaleUpTolerance", usage: []int64{3780, 3820, 3800}, tol: &Tolerances{0.1, 2.0}, want: 3, wantUtil: 190, wantRaw: 3800},
		{name: "SmallScaleUpTolerance", usage: []int64{2200, 2160, 2180}, tol: &Tolerances{2.0, 0.08}, want: 4, wantUtil: 109, wantRaw: 2180},
		{name: "LargeScaleDownTolerance", usage: []int64{1320, 1280, 1300}, tol: &Tolerances{0.36, 0.1}, want: 3, wantUtil: 65, wantRaw: 1300},
		{name: "SmallScaleDownTolerance", usage: []int64{1320, 1280, 1300}, tol: &Tolerances{0.34, 0.1}, want: 2, wantUtil: 65, wantRaw: 1300},
	}
	for _, c := range cases {
		c.current, c.states, c.requests, c.target = 3, "RRR", []int64{1800, 2000, 2200}, 100
		t.Run(c.name, c.run)
	}
}

// TestToleranceBoundaryInclusive pins the v1.33+ isWithin form: exactly
// 110 % of target holds, 111 % scales.
func TestToleranceBoundaryInclusive(t *testing.T) {
	tol := Tolerances{0.1, 0.1}
	for _, c := range []struct {
		ratio float64
		want  bool
	}{{110.0 / 100, true}, {111.0 / 100, false}, {90.0 / 100, true}, {89.0 / 100, false}, {55.0 / 50, true}} {
		if got := tol.isWithin(c.ratio); got != c.want {
			t.Errorf("isWithin(%v) = %v, want %v", c.ratio, got, c.want)
		}
	}
}

func TestResourceReplicasContainerAndPodLevelRequests(t *testing.T) {
	pods, metrics := testPods("RR", rep(2000, 2), []int64{1500, 1500})
	// container c1 requests 1000 m: 1500/1000 = 150 % of a 100 % target
	got, util, _, err := testCalc.ResourceReplicas(2, 100, "cpu", "c1", pods, metrics, testNow)
	if err != nil || got != 3 || util != 150 {
		t.Errorf("container c1: got (%d, %d%%, %v), want (3, 150%%, nil)", got, util, err)
	}
	// v1.34.0 counts a pod without the named container at request 0; with
	// no pod having it, no request is left to divide by.
	if _, _, _, err := testCalc.ResourceReplicas(2, 100, "cpu", "nope", pods, metrics, testNow); err == nil || !strings.Contains(err.Error(), "no metrics returned matched known pods") {
		t.Errorf("absent container: err = %v", err)
	}
	for i := range pods {
		pods[i].PodRequests = map[string]int64{"cpu": 3000}
	}
	got, util, _, err = testCalc.ResourceReplicas(2, 100, "cpu", "", pods, metrics, testNow)
	// 1500/3000 = 50 % of target: ceil(0.5 × 2) = 1
	if err != nil || got != 1 || util != 50 {
		t.Errorf("pod-level: got (%d, %d%%, %v), want (1, 50%%, nil)", got, util, err)
	}
	if _, _, _, err := testCalc.ResourceReplicas(2, 100, "memory", "", pods, metrics, testNow); err == nil || !strings.Contains(err.Error(), "missing pod-level request for memory") {
		t.Errorf("pod-level memory: err = %v", err)
	}
}
