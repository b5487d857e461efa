package hpa

import (
	"math"
	"strings"
	"testing"
)

type objectKind int

const (
	objectValue objectKind = iota
	objectPerPod
	externalValue
	externalPerPod
)

// objectCase is one upstream Object/External case (§14.3). current is spec
// replicas for Value targets and status replicas for AverageValue ones;
// states gives the listed pods for Value targets.
type objectCase struct {
	name    string
	kind    objectKind
	current int32
	states  string
	values  []int64 // one for Object, the series for External
	target  int64
	tol     *Tolerances

	want       int32
	wantStatus int64
	wantErr    string // substring; empty: no error
}

func (c objectCase) run(t *testing.T) {
	t.Helper()
	pods, _ := testPods(c.states, nil, nil)
	calc := testCalc
	if c.tol != nil {
		calc.Tolerances = *c.tol
	}
	var (
		got    int32
		status int64
		err    error
	)
	switch c.kind {
	case objectValue:
		got, status, err = calc.ObjectMetricReplicas(c.current, c.values[0], c.target, pods)
	case objectPerPod:
		got, status, err = calc.ObjectPerPodMetricReplicas(c.current, c.values[0], c.target)
	case externalValue:
		got, status, err = calc.ExternalMetricReplicas(c.current, c.values, c.target, pods)
	case externalPerPod:
		got, status, err = calc.ExternalPerPodMetricReplicas(c.current, c.values, c.target)
	}
	if c.wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Fatalf("got (%d, %d, %v), want an error containing %q", got, status, err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != c.want || status != c.wantStatus {
		t.Errorf("got (%d, %d), want (%d, %d)", got, status, c.want, c.wantStatus)
	}
}

func TestReplicaCalcObjectExternal(t *testing.T) {
	up := &Tolerances{0.1, 0.01}
	cases := []objectCase{
		{name: "ScaleUpCMObject", kind: objectValue, current: 3, states: "RRR", values: []int64{20000}, target: 15000, want: 4, wantStatus: 20000},
		// 5× target, but only the one Running+Ready pod is multiplied
		{name: "ScaleUpCMObjectIgnoresUnreadyPods", kind: objectValue, current: 3, states: "URU", values: []int64{50000}, target: 10000, want: 5, wantStatus: 50000},
		{name: "ScaleDownCMObject", kind: objectValue, current: 5, states: "RRRRR", values: []int64{12000}, target: 20000, want: 3, wantStatus: 12000},
		{name: "ToleranceCMObject", kind: objectValue, current: 3, states: "RRR", values: []int64{20666}, target: 20000, want: 3, wantStatus: 20666},
		{name: "ConfigurableToleranceCMObject", kind: objectValue, current: 3, states: "RRR", values: []int64{20666}, target: 20000, tol: up, want: 4, wantStatus: 20666},
		{name: "ScaleUpCMPerPodObject", kind: objectPerPod, current: 3, values: []int64{20000}, target: 5000, want: 4, wantStatus: 6667},
		{name: "ScaleDownPerPodCMObject", kind: objectPerPod, current: 5, values: []int64{6000}, target: 2000, want: 3, wantStatus: 1200},
		{name: "TolerancePerPodCMObject", kind: objectPerPod, current: 4, values: []int64{20166}, target: 5000, want: 4, wantStatus: 5042},
		{name: "ConfigurableTolerancePerPodCMObject", kind: objectPerPod, current: 4, values: []int64{20208}, target: 5000, tol: up, want: 5, wantStatus: 5052},
		// 1.95× target, yet 3 → 2: only one pod is Running+Ready
		{name: "ScaleUpCMExternalIgnoresUnreadyPods", kind: externalValue, current: 3, states: "URU", values: []int64{8600}, target: 4400, want: 2, wantStatus: 8600},
		{name: "ScaleDownCMExternal", kind: externalValue, current: 5, states: "RRRRR", values: []int64{8600}, target: 14334, want: 3, wantStatus: 8600},
		{name: "ToleranceCMExternal", kind: externalValue, current: 3, states: "RRR", values: []int64{8600}, target: 8888, want: 3, wantStatus: 8600},
		{name: "ConfigurableToleranceCMExternal", kind: externalValue, current: 3, states: "RRR", values: []int64{8900}, target: 8800, tol: up, want: 4, wantStatus: 8900},
		{name: "ScaleUpPerPodCMExternal", kind: externalPerPod, current: 3, values: []int64{8600}, target: 2150, want: 4, wantStatus: 2867},
		{name: "ScaleDownPerPodCMExternal", kind: externalPerPod, current: 5, values: []int64{8600}, target: 2867, want: 3, wantStatus: 1720},
		{name: "TolerancePerPodCMExternal", kind: externalPerPod, current: 3, values: []int64{8600}, target: 2900, want: 3, wantStatus: 2867},
		{name: "ConfigurableTolerancePerPodCMExternal", kind: externalPerPod, current: 3, values: []int64{8600}, target: 2800, tol: up, want: 4, wantStatus: 2867},
		// v1.34 has #127050: the per-pod External path saturates.
		{name: "ExternalPerPodMetricReplicaOverflow", kind: externalPerPod, current: 1, values: []int64{math.MaxInt64}, target: 1, want: math.MaxInt32, wantStatus: math.MaxInt64},
		{name: "ExternalPerPodMetricUsageOverflow", kind: externalPerPod, current: 1, values: []int64{math.MaxInt64}, target: math.MaxInt64, want: 1, wantStatus: math.MaxInt64},
		// A sum that wraps negative saturates too (the guard's purpose).
		{name: "ExternalPerPodSumOverflow", kind: externalPerPod, current: 1, values: []int64{math.MaxInt64, 1}, target: math.MaxInt64, want: 1, wantStatus: math.MaxInt64},
		// No series: the metrics client fails (TestRESTClientExternalEmptyMetrics)
		// before either calculation runs, whatever the replica count.
		{name: "RESTClientExternalEmptyMetrics/Value", kind: externalValue, current: 3, states: "RRR", target: 4400,
			wantErr: "no metrics returned from external metrics API"},
		{name: "RESTClientExternalEmptyMetrics/AverageValue", kind: externalPerPod, current: 3, target: 2150,
			wantErr: "no metrics returned from external metrics API"},
		{name: "RESTClientExternalEmptyMetrics/AverageValue, 0 status replicas", kind: externalPerPod, current: 0, target: 2150,
			wantErr: "no metrics returned from external metrics API"},
		{name: "RESTClientExternalEmptyMetrics/Value, scaled to zero", kind: externalValue, current: 0, states: "P", values: []int64{}, target: 4400,
			wantErr: "no metrics returned from external metrics API"},
		// ScaleUpOverflow (Object Value, MaxInt64 against 1) is v1.35-only
		// (#126979 clamps to MaxInt32). v1.34 converts an out-of-range
		// float64 to int32 with no defined result, so no row asserts it.
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// TestUsageRatioFromZero: with current 0 (minReplicas 0) neither tolerance
// nor ready pods apply.
func TestUsageRatioFromZero(t *testing.T) {
	pods, _ := testPods("P", nil, nil)
	for _, c := range []struct {
		usage, target int64
		want          int32
	}{{0, 100, 0}, {50, 100, 1}, {105, 100, 2}} {
		got, _, err := testCalc.ObjectMetricReplicas(0, c.usage, c.target, pods)
		if err != nil || got != c.want {
			t.Errorf("usage %d: got (%d, %v), want %d", c.usage, got, err, c.want)
		}
	}
	if _, _, err := testCalc.ObjectMetricReplicas(3, 300, 100, nil); err == nil {
		t.Error("no pods: want an error")
	}
}
