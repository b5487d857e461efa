package hpa

import (
	"strings"
	"testing"
)

// plainCase is one upstream case for GetMetricReplicas (§14.2, Pods metric)
// or, with resource set, GetRawResourceReplicas.
type plainCase struct {
	name     string
	current  int32
	states   string
	resource string // "": Pods metric
	values   []int64
	target   int64
	tol      *Tolerances

	want      int32
	wantUsage int64
	wantErr   string
}

func (c plainCase) run(t *testing.T) {
	t.Helper()
	pods, metrics := testPods(c.states, rep(2000, len(c.states)), c.values)
	calc := testCalc
	if c.tol != nil {
		calc.Tolerances = *c.tol
	}
	var (
		got   int32
		usage int64
		err   error
	)
	if c.resource == "" {
		got, usage, err = calc.MetricReplicas(c.current, c.target, pods, metrics, testNow)
	} else {
		got, usage, err = calc.RawResourceReplicas(c.current, c.target, c.resource, "", pods, metrics, testNow)
	}
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != c.want || usage != c.wantUsage {
		t.Errorf("got (%d, %d), want (%d, %d)", got, usage, c.want, c.wantUsage)
	}
}

func TestReplicaCalcPodsMetric(t *testing.T) {
	cases := []plainCase{
		{name: "ScaleUpCM", current: 3, states: "RRR", values: []int64{20000, 10000, 30000}, target: 15000, want: 4, wantUsage: 20000},
		// readiness is a CPU-only rule: the not-ready hot pod still counts
		{name: "ScaleUpCMUnreadyHotCpuNoLessScale", current: 3, states: "RRh", values: []int64{50000, 10000, 30000}, target: 15000, want: 6, wantUsage: 30000},
		{name: "ScaleUpCMUnreadyHotCpuScaleWouldScaleDown", current: 3, states: "hRh", values: []int64{50000, 15000, 30000}, target: 15000, want: 7, wantUsage: 31666},
		{name: "ScaleUpCMExternal", current: 1, states: "R", values: []int64{8600}, target: 4400, want: 2, wantUsage: 8600},
		{name: "ScaleDownCM", current: 5, states: "RRRRR", values: rep(12000, 5), target: 20000, want: 3, wantUsage: 12000},
		{name: "ToleranceCM", current: 3, states: "RRR", values: []int64{20000, 21000, 21000}, target: 20000, want: 3, wantUsage: 20666},
		{name: "ConfigurableToleranceCM", current: 3, states: "RRR", values: []int64{20000, 21000, 21000}, target: 20000, tol: &Tolerances{0.1, 0.01}, want: 4, wantUsage: 20666},
		// ratio exactly 1: missing pods are left out, not counted at 0
		{name: "PlainMetricMissingMetricsNoChangeEq", current: 5, states: "RRRRR", values: []int64{20000, 19000, 21000, noMetric, noMetric}, target: 20000, want: 5, wantUsage: 20000},
		// the missing pod at target would give ceil(0.725 × 3) = 3 > 2: hold
		{name: "DuringRollingUpdateWithMaxSurgeCM", current: 2, states: "RRR", values: []int64{10000, 10000, noMetric}, target: 17000, want: 2, wantUsage: 10000},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestRawResourceReplicas covers the AverageValue resource path, which
// shares calcPlainMetricReplicas but applies the CPU readiness rule.
func TestRawResourceReplicas(t *testing.T) {
	cases := []plainCase{
		// hot pod dropped for cpu; ready pods 1000,1400 → 1200 / 600 = 2;
		// the hot pod re-added at 0: 800/600 = 1.33 → ceil(4) = 4
		{name: "CPUHotPodAtZero", current: 3, states: "HRR", resource: "cpu", values: []int64{600, 1000, 1400}, target: 600, want: 4, wantUsage: 1200},
		// memory ignores readiness: average 1000 / 500 = 2 → 6
		{name: "MemoryIgnoresReadiness", current: 3, states: "HRR", resource: "memory", values: []int64{600, 1000, 1400}, target: 500, want: 6, wantUsage: 1000},
		{name: "AllUnready", current: 2, states: "PP", resource: "cpu", values: []int64{100, 100}, target: 500, wantErr: "did not receive metrics for targeted pods"},
		{name: "NoPodsMetrics", current: 2, states: "RR", resource: "cpu", target: 500, wantErr: "no metrics returned"},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
