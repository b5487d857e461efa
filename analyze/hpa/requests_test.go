package hpa

import (
	"testing"
)

// requestsCase is one case of upstream's TestCalculateRequests
// (k8s.io/kubernetes v1.34.0 replica_calculator_test.go, with the
// PodLevelResources gate on, its v1.34 default), or one named "derived: …"
// whose expectation is what v1.34.0's calculateRequests and
// component-helpers v0.34.0's PodRequests return for the same pod.
type requestsCase struct {
	name       string
	podLevel   map[string]int64
	containers []Container
	container  string
	resource   string
	want       map[string]int64 // nil when upstream errors
	wantErr    string           // upstream's exact error
}

func (c requestsCase) run(t *testing.T) {
	t.Helper()
	pods := []Pod{{Name: "test-pod", Phase: PodRunning, Containers: c.containers, PodRequests: c.podLevel}}
	got, err := podRequests(pods, c.container, c.resource)
	if c.wantErr != "" {
		if err == nil || err.Error() != c.wantErr {
			t.Fatalf("err = %v, want %q", err, c.wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if len(got) != len(c.want) || got["test-pod"] != c.want["test-pod"] {
		t.Errorf("requests = %v, want %v", got, c.want)
	}
}

func ctr(name string, requests map[string]int64) Container {
	return Container{Name: name, Requests: requests}
}

func cpu(m int64) map[string]int64 { return map[string]int64{"cpu": m} }

func TestCalculateRequests(t *testing.T) {
	two := []Container{ctr("container1", cpu(100)), ctr("container2", cpu(50))}
	firstLacks := []Container{ctr("container1", nil), ctr("container2", cpu(50))}
	sidecar := Container{Name: "restartable-container1", Requests: cpu(50), RestartableInit: true}
	cases := []requestsCase{
		{name: "Sum container requests if pod-level feature is disabled", containers: two, resource: "cpu", want: map[string]int64{"test-pod": 150}},
		{name: "Pod-level resources are enabled, but not set: fallback to sum container requests", containers: two, resource: "cpu", want: map[string]int64{"test-pod": 150}},
		{name: "Pod-level resources override container requests when feature enabled and pod resources specified",
			podLevel: cpu(800), containers: two, resource: "cpu", want: map[string]int64{"test-pod": 800}},
		{name: "Fail if at least one of the containers is missing requests and pod-level feature/requests are not set",
			containers: firstLacks, resource: "cpu", wantErr: "missing request for cpu in container container1 of Pod test-pod"},
		{name: "Pod-level resources override missing container requests when feature enabled and pod resources specified",
			podLevel: cpu(800), containers: firstLacks, resource: "cpu", want: map[string]int64{"test-pod": 800}},
		{name: "Container: if a container name is specified, calculate requests only for that container",
			containers: two, container: "container1", resource: "cpu", want: map[string]int64{"test-pod": 100}},
		{name: "Container: if a container name is specified, calculate requests only for that container and ignore pod-level requests",
			podLevel: cpu(800), containers: two, container: "container1", resource: "cpu", want: map[string]int64{"test-pod": 100}},
		// Upstream's pod also has a regular init container (20 m), which
		// the container path skips; the port does not model those.
		{name: "pod with restartable init containers", containers: []Container{ctr("container1", cpu(100)), sidecar},
			resource: "cpu", want: map[string]int64{"test-pod": 150}},

		// M1: v1.34.0 sums the matching containers; none match → 0.
		{name: "derived: pod lacks the named container", containers: []Container{ctr("container1", cpu(100))},
			container: "container2", resource: "cpu", want: map[string]int64{"test-pod": 0}},
		{name: "derived: named container lacks the request", containers: []Container{ctr("container1", cpu(100)), ctr("container2", nil)},
			container: "container2", resource: "cpu", wantErr: "missing request for cpu in container container2 of Pod test-pod"},
		{name: "derived: pod-level cpu, named container absent", podLevel: cpu(800), containers: []Container{ctr("container1", cpu(100))},
			container: "nope", resource: "cpu", want: map[string]int64{"test-pod": 0}},

		// M2: the pod-level path starts from the containers' aggregate
		// and overrides only supported resources set at pod level.
		{name: "derived: pod-level memory only, cpu metric sums the containers", podLevel: map[string]int64{"memory": 64000},
			containers: two, resource: "cpu", want: map[string]int64{"test-pod": 150}},
		{name: "derived: pod-level memory only, a container without cpu adds nothing", podLevel: map[string]int64{"memory": 64000},
			containers: firstLacks, resource: "cpu", want: map[string]int64{"test-pod": 50}},
		{name: "derived: pod-level memory only, no cpu anywhere", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("container1", nil), ctr("container2", map[string]int64{"memory": 5})},
			resource:   "cpu", wantErr: "missing pod-level request for cpu in Pod test-pod"},
		{name: "derived: pod-level sidecar counts in the aggregate", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("container1", cpu(100)), {Name: "sidecar", Requests: cpu(30), RestartableInit: true}},
			resource:   "cpu", want: map[string]int64{"test-pod": 130}},
		{name: "derived: only an unsupported pod-level resource: container path", podLevel: map[string]int64{"ephemeral-storage": 1000},
			containers: firstLacks, resource: "cpu", wantErr: "missing request for cpu in container container1 of Pod test-pod"},
		{name: "derived: only an unsupported pod-level resource, containers request cpu", podLevel: map[string]int64{"ephemeral-storage": 1000},
			containers: two, resource: "cpu", want: map[string]int64{"test-pod": 150}},
		{name: "derived: hugepages count as pod-level requests", podLevel: map[string]int64{"hugepages-2Mi": 2097152000},
			containers: firstLacks, resource: "cpu", want: map[string]int64{"test-pod": 50}},
		{name: "derived: pod-level hugepages metric", podLevel: map[string]int64{"hugepages-2Mi": 2097152000},
			containers: []Container{ctr("container1", nil)}, resource: "hugepages-2Mi", want: map[string]int64{"test-pod": 2097152000}},
		{name: "derived: unsupported pod-level value is not an override", podLevel: map[string]int64{"cpu": 800, "ephemeral-storage": 1000},
			containers: []Container{ctr("container1", map[string]int64{"ephemeral-storage": 7}), ctr("container2", nil)},
			resource:   "ephemeral-storage", want: map[string]int64{"test-pod": 7}},
		{name: "derived: unsupported pod-level value, no container sets it", podLevel: map[string]int64{"cpu": 800, "ephemeral-storage": 1000},
			containers: []Container{ctr("container1", nil)}, resource: "ephemeral-storage", wantErr: "missing pod-level request for ephemeral-storage in Pod test-pod"},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// containerResourceCase runs GetResourceReplicas on hand-built pods, for
// the request paths TestCalculateRequests pins; the expectations follow
// v1.34.0's GetResourceReplicas step by step (in the comments).
type containerResourceCase struct {
	name      string
	current   int32
	pods      []Pod
	metrics   PodMetrics
	container string
	target    int32

	want     int32
	wantUtil int32
	wantRaw  int64
}

func (c containerResourceCase) run(t *testing.T) {
	t.Helper()
	got, util, raw, err := testCalc.ResourceReplicas(c.current, c.target, "cpu", c.container, c.pods, c.metrics, testNow)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != c.want || util != c.wantUtil || raw != c.wantRaw {
		t.Errorf("got (%d, %d%%, %dm), want (%d, %d%%, %dm)", got, util, raw, c.want, c.wantUtil, c.wantRaw)
	}
}

// withoutContainer drops container name from pod i.
func withoutContainer(pods []Pod, i int, name string) []Pod {
	var kept []Container
	for _, c := range pods[i].Containers {
		if c.Name != name {
			kept = append(kept, c)
		}
	}
	pods[i].Containers = kept
	return pods
}

func TestReplicaCalcRequestPaths(t *testing.T) {
	// Five ready pods, c1 and c2 requesting 500 m each; test-pod-4 has no
	// c2, so the metrics API has no c2 sample for it (a missing pod).
	scaleUpPods, scaleUpMetrics := testPods("RRRRR", rep(1000, 5), []int64{1000, 1000, 1000, 1000, noMetric})
	scaleDownPods, scaleDownMetrics := testPods("RRRRR", rep(1000, 5), []int64{200, 200, 200, 200, noMetric})
	podLevelPods, podLevelMetrics := testPods("RR", rep(2000, 2), []int64{1500, 1500})
	for i := range podLevelPods {
		podLevelPods[i].PodRequests = map[string]int64{"memory": 64 << 20 * 1000}
	}
	cases := []containerResourceCase{
		// ready pods: 4000 m over 2000 m requested = 200 %; the missing
		// pod (request 0) re-enters at 0 on a scale-up, leaving 200 %,
		// over 5 pods: ceil(2.0 × 5) = 10. The port used to fail.
		{name: "derived: ContainerResource scale-up, a pod lacks the container", current: 5,
			pods: withoutContainer(scaleUpPods, 4, "c2"), metrics: scaleUpMetrics, container: "c2", target: 100,
			want: 10, wantUtil: 200, wantRaw: 1000},
		// 800/2000 = 40 %; on a scale-down the missing pod counts at its
		// request (0): still 40 %, ceil(0.4 × 5) = 2.
		{name: "derived: ContainerResource scale-down, a pod lacks the container", current: 5,
			pods: withoutContainer(scaleDownPods, 4, "c2"), metrics: scaleDownMetrics, container: "c2", target: 100,
			want: 2, wantUtil: 40, wantRaw: 200},
		// Pod-level requests set memory only: cpu is the containers' sum,
		// 3000/4000 = 75 % of a 50 % target: ceil(1.5 × 2) = 3.
		{name: "derived: pod-level requests without the metric's resource", current: 2,
			pods: podLevelPods, metrics: podLevelMetrics, target: 50,
			want: 3, wantUtil: 75, wantRaw: 1500},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
