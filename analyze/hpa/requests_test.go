package hpa

import (
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// requestsCase is one case of upstream's TestCalculateRequests
// (k8s.io/kubernetes v1.34.0 replica_calculator_test.go, with the
// PodLevelResources gate on, its v1.34 default), or one named "derived: …"
// whose expectation is what v1.34.0's calculateRequests and
// component-helpers v0.34.0's PodRequests return for the same pod.
type requestsCase struct {
	name       string
	podLevel   map[string]int64
	overhead   map[string]int64
	containers []Container
	inits      []Container // spec.initContainers
	container  string
	resource   string
	noPod      bool             // upstream's "void": an empty pod list
	want       map[string]int64 // nil when upstream errors
	wantErr    string           // upstream's exact error
}

func (c requestsCase) run(t *testing.T) {
	t.Helper()
	pods := []Pod{{Name: "test-pod", Phase: PodRunning, Containers: c.containers, InitContainers: c.inits, PodRequests: c.podLevel, Overhead: c.overhead}}
	if c.noPod {
		pods = nil
	}
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

func sidecarCtr(name string, requests map[string]int64) Container {
	return Container{Name: name, Requests: requests, RestartableInit: true}
}

func TestCalculateRequests(t *testing.T) {
	two := []Container{ctr("container1", cpu(100)), ctr("container2", cpu(50))}
	firstLacks := []Container{ctr("container1", nil), ctr("container2", cpu(50))}
	cases := []requestsCase{
		{name: "void", noPod: true, resource: "cpu", want: map[string]int64{}},
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
		// The container path sums the sidecar and skips the regular init
		// container.
		{name: "pod with restartable init containers", containers: []Container{ctr("container1", cpu(100))},
			inits:    []Container{ctr("init-container1", cpu(20)), sidecarCtr("restartable-container1", cpu(50))},
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
			containers: []Container{ctr("container1", cpu(100))}, inits: []Container{sidecarCtr("sidecar", cpu(30))},
			resource: "cpu", want: map[string]int64{"test-pod": 130}},
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

// M3 (issue 33): the pod-level path takes PodRequests' effective request,
// where a regular init container asking for more than the containers and
// the sidecars started before it sets the figure, and the overhead is
// added; the container path sees neither.
func TestCalculateRequestsInitContainersAndOverhead(t *testing.T) {
	cases := []requestsCase{
		{name: "derived: pod-level memory only, a larger regular init container sets cpu", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("app", cpu(200000))}, inits: []Container{ctr("init", cpu(500000))},
			resource: "cpu", want: map[string]int64{"test-pod": 500000}},
		{name: "derived: no pod-level requests, the regular init container is skipped",
			containers: []Container{ctr("app", cpu(200000))}, inits: []Container{ctr("init", cpu(500000))},
			resource: "cpu", want: map[string]int64{"test-pod": 200000}},
		// sum 100+40+300 = 440; init runs beside "before" only: 40+500 =
		// 540 (with "after" too it would be 840).
		{name: "derived: the init container runs beside the sidecars listed before it", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("app", cpu(100))},
			inits:      []Container{sidecarCtr("before", cpu(40)), ctr("init", cpu(500)), sidecarCtr("after", cpu(300))},
			resource:   "cpu", want: map[string]int64{"test-pod": 540}},
		// sum 140; init alone 150, beside "before" 190.
		{name: "derived: the init container with the sidecar before it outweighs the sum", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("app", cpu(100))},
			inits:      []Container{sidecarCtr("before", cpu(40)), ctr("init", cpu(150))},
			resource:   "cpu", want: map[string]int64{"test-pod": 190}},
		{name: "derived: only a regular init container names cpu", podLevel: map[string]int64{"memory": 64000},
			containers: []Container{ctr("app", nil)}, inits: []Container{ctr("init", cpu(70))},
			resource: "cpu", want: map[string]int64{"test-pod": 70}},
		{name: "derived: overhead adds to the pod-level path", podLevel: map[string]int64{"memory": 64000}, overhead: cpu(250),
			containers: []Container{ctr("app", cpu(100))}, resource: "cpu", want: map[string]int64{"test-pod": 350}},
		{name: "derived: overhead adds over a pod-level value", podLevel: cpu(800), overhead: cpu(250),
			containers: []Container{ctr("app", cpu(100))}, resource: "cpu", want: map[string]int64{"test-pod": 1050}},
		{name: "derived: overhead alone names the resource", podLevel: map[string]int64{"memory": 64000}, overhead: cpu(250),
			containers: []Container{ctr("app", nil)}, resource: "cpu", want: map[string]int64{"test-pod": 250}},
		{name: "derived: overhead is not added on the container path", overhead: cpu(250),
			containers: []Container{ctr("app", cpu(100))}, resource: "cpu", want: map[string]int64{"test-pod": 100}},
		{name: "derived: a metric naming a regular init container matches nothing",
			containers: []Container{ctr("app", cpu(100))}, inits: []Container{ctr("init", cpu(500))},
			container: "init", resource: "cpu", want: map[string]int64{"test-pod": 0}},
		{name: "derived: a metric naming a sidecar takes its request",
			containers: []Container{ctr("app", cpu(100))}, inits: []Container{sidecarCtr("side", cpu(30))},
			container: "side", resource: "cpu", want: map[string]int64{"test-pod": 30}},
		{name: "derived: containers are visited before sidecars for the error",
			containers: []Container{ctr("app", nil)}, inits: []Container{sidecarCtr("side", nil)},
			resource: "cpu", wantErr: "missing request for cpu in container app of Pod test-pod"},
		{name: "derived: a regular init container without the request is not an error",
			containers: []Container{ctr("app", cpu(100))}, inits: []Container{ctr("init", nil)},
			resource: "cpu", want: map[string]int64{"test-pod": 100}},
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
	initPods, initMetrics := testPods("RR", rep(200000, 2), []int64{250000, 250000})
	for i := range initPods {
		initPods[i].PodRequests = map[string]int64{"memory": 64 << 20 * 1000}
		initPods[i].InitContainers = []Container{{Name: "init", Requests: map[string]int64{"cpu": 500000}}}
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
		// Issue 33: the same, with a regular init container asking for
		// 500000 m beside containers asking for 200000 m. PodRequests
		// takes the larger, so 500000/1000000 = 50 % of a 100 % target:
		// ceil(0.5 × 2) = 1. Summing the containers alone gave 125 % and 3.
		{name: "derived: pod-level requests without the metric's resource, larger init container", current: 2,
			pods: initPods, metrics: initMetrics, target: 100,
			want: 1, wantUtil: 50, wantRaw: 250000},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// effectiveCase is one pod of component-helpers v0.34.0's
// resource/helpers_test.go with the requests upstream expects of
// PodRequests for it. Only cases whose options match what
// calculatePodLevelRequests passes (none) are taken, or ones where the
// option set makes no difference, as the comment on each says. Quantities
// are upstream's strings; want lists every resource PodRequests returns,
// and every other resource of probeResources must come back absent.
type effectiveCase struct {
	name       string
	podLevel   map[string]string
	overhead   map[string]string
	containers []map[string]string
	inits      []map[string]string // spec.initContainers, regular
	sidecarAt  []int               // indexes into inits with restartPolicy Always
	want       map[string]string
}

var probeResources = []string{"cpu", "memory", "storage", "ephemeral-storage", "hugepages-2Mi", "hugepages-1Gi"}

// milli is a quantity string's MilliValue, as upstream reads it.
func milli(s string) int64 {
	q := resource.MustParse(s)
	return q.MilliValue()
}

func milliOf(m map[string]string) map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m))
	for name, s := range m {
		out[name] = milli(s)
	}
	return out
}

func (c effectiveCase) pod() Pod {
	p := Pod{Name: "p", PodRequests: milliOf(c.podLevel), Overhead: milliOf(c.overhead)}
	for i, r := range c.containers {
		p.Containers = append(p.Containers, ctr(fmt.Sprintf("c%d", i), milliOf(r)))
	}
	for i, r := range c.inits {
		p.InitContainers = append(p.InitContainers, Container{Name: fmt.Sprintf("i%d", i), Requests: milliOf(r), RestartableInit: slices.Contains(c.sidecarAt, i)})
	}
	return p
}

func (c effectiveCase) run(t *testing.T) {
	t.Helper()
	p := c.pod()
	for _, name := range probeResources {
		got, ok := effectiveRequest(p, name)
		want, wantOK := c.want[name]
		switch {
		case ok != wantOK:
			t.Errorf("%s: present = %v, want %v", name, ok, wantOK)
		case ok && got != milli(want):
			t.Errorf("%s: %dm, want %s", name, got, want)
		}
	}
}

func TestEffectiveRequest(t *testing.T) {
	type rl = map[string]string
	cases := []effectiveCase{
		// TestPodRequestsAndLimits: getPod gives one container and one
		// regular init container the same requests; options are empty.
		{name: "just-limit-no-overhead", containers: []map[string]string{{}}, inits: []map[string]string{{}}, want: rl{}},
		{name: "just-overhead", containers: []map[string]string{{}}, inits: []map[string]string{{}},
			overhead: rl{"cpu": "5", "memory": "5"}, want: rl{"cpu": "5", "memory": "5"}},
		{name: "req-and-overhead", containers: []map[string]string{{"cpu": "1", "memory": "10"}}, inits: []map[string]string{{"cpu": "1", "memory": "10"}},
			overhead: rl{"cpu": "5", "memory": "5"}, want: rl{"cpu": "6", "memory": "15"}},

		// TestPodRequestsAndLimitsWithoutOverhead runs with
		// ExcludeOverhead, which is the same as a pod without one: the
		// overhead is left out here.
		{name: "two container no overhead - should just be sum of containers",
			containers: []map[string]string{{"cpu": "1", "memory": "5"}, {"cpu": "4", "memory": "12"}}, want: rl{"cpu": "5", "memory": "17"}},
		{name: "two container with overhead, massive init - should just be the largest init",
			containers: []map[string]string{{"cpu": "1", "memory": "5"}, {"cpu": "4", "memory": "12"}},
			inits:      []map[string]string{{"cpu": "1", "memory": "5"}, {"cpu": "40", "memory": "120"}}, want: rl{"cpu": "40", "memory": "120"}},

		// TestPodResourceRequests, the cases without UseStatusResources
		// (the HPA does not set it; status resources are not modelled).
		{name: "nil options, larger init container", containers: []map[string]string{{"cpu": "1"}}, inits: []map[string]string{{"cpu": "4"}}, want: rl{"cpu": "4"}},
		{name: "nil options, larger containers", containers: []map[string]string{{"cpu": "2"}, {"cpu": "3"}}, inits: []map[string]string{{"cpu": "2"}}, want: rl{"cpu": "5"}},
		{name: "pod overhead excluded (overhead left out)", containers: []map[string]string{{"cpu": "2"}, {"cpu": "3"}}, inits: []map[string]string{{"cpu": "2"}}, want: rl{"cpu": "5"}},
		{name: "pod overhead included", overhead: rl{"cpu": "1", "memory": "1Gi"},
			containers: []map[string]string{{"cpu": "2"}, {"cpu": "3"}}, inits: []map[string]string{{"cpu": "2"}}, want: rl{"cpu": "6", "memory": "1Gi"}},
		{name: "resized, infeasible, but don't use status", containers: []map[string]string{{"cpu": "4"}}, want: rl{"cpu": "4"}},
		{name: "resized, restartable init container, infeasible, but don't use status", inits: []map[string]string{{"cpu": "4"}}, sidecarAt: []int{0}, want: rl{"cpu": "4"}},
		{name: "restartable init container", containers: []map[string]string{{"cpu": "1"}}, inits: []map[string]string{{"cpu": "1"}}, sidecarAt: []int{0}, want: rl{"cpu": "2"}},
		{name: "multiple restartable init containers", containers: []map[string]string{{"cpu": "1"}},
			inits: []map[string]string{{"cpu": "5"}, {"cpu": "1"}, {"cpu": "2"}, {"cpu": "3"}}, sidecarAt: []int{1, 2, 3}, want: rl{"cpu": "7"}},
		{name: "multiple restartable and regular init containers", containers: []map[string]string{{"cpu": "1"}},
			inits: []map[string]string{{"cpu": "5"}, {"cpu": "1"}, {"cpu": "2"}, {"cpu": "5"}, {"cpu": "3"}}, sidecarAt: []int{1, 2, 4}, want: rl{"cpu": "8"}},
		{name: "restartable-init, init and regular", containers: []map[string]string{{"cpu": "100"}},
			inits: []map[string]string{{"cpu": "10"}, {"cpu": "200"}}, sidecarAt: []int{0}, want: rl{"cpu": "210"}},

		// TestPodLevelResourceRequests, the SkipPodLevelResources: false
		// cases, and one with true on a pod without pod-level resources,
		// where skipping them changes nothing.
		{name: "nil", want: rl{}},
		{name: "pod level memory resource with SkipPodLevelResources false", podLevel: rl{"memory": "2Mi"}, want: rl{"memory": "2Mi"}},
		{name: "pod level memory and container level cpu resources with SkipPodLevelResources false", podLevel: rl{"memory": "2Mi"},
			containers: []map[string]string{{"cpu": "2m"}}, want: rl{"memory": "2Mi", "cpu": "2m"}},
		{name: "pod level unsupported resources set at both pod-level and container-level with SkipPodLevelResources false", podLevel: rl{"storage": "2Mi"},
			containers: []map[string]string{{"storage": "3Mi"}}, want: rl{"storage": "3Mi"}},
		{name: "pod level unsupported resources set at pod-level with SkipPodLevelResources false", podLevel: rl{"storage": "2Mi"},
			containers: []map[string]string{{"memory": "3Mi"}}, want: rl{"memory": "3Mi"}},
		{name: "only container level resources set with SkipPodLevelResources false",
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, want: rl{"memory": "3Mi", "cpu": "2m"}},
		{name: "both container-level and pod-level resources set with SkipPodLevelResources false", podLevel: rl{"memory": "6Mi", "cpu": "8m"},
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, want: rl{"memory": "6Mi", "cpu": "8m"}},
		{name: "container-level resources and init container set with SkipPodLevelResources false",
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, inits: []map[string]string{{"memory": "5Mi", "cpu": "4m"}}, want: rl{"memory": "5Mi", "cpu": "4m"}},
		{name: "container-level resources and init container set with SkipPodLevelResources true (no pod-level resources to skip)",
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, inits: []map[string]string{{"memory": "5Mi", "cpu": "4m"}}, want: rl{"memory": "5Mi", "cpu": "4m"}},
		{name: "container-level resources and sidecar container set with SkipPodLevelResources false",
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, inits: []map[string]string{{"memory": "5Mi", "cpu": "4m"}}, sidecarAt: []int{0},
			want: rl{"memory": "8Mi", "cpu": "6m"}},
		{name: "container-level resources, init and sidecar container set with SkipPodLevelResources false",
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, inits: []map[string]string{{"memory": "5Mi", "cpu": "4m"}, {"memory": "6Mi", "cpu": "8m"}}, sidecarAt: []int{0},
			want: rl{"memory": "11Mi", "cpu": "12m"}},
		{name: "pod-level resources, container-level resources, init and sidecar container set with SkipPodLevelResources false", podLevel: rl{"memory": "15Mi", "cpu": "18m"},
			containers: []map[string]string{{"memory": "3Mi", "cpu": "2m"}}, inits: []map[string]string{{"memory": "5Mi", "cpu": "4m"}, {"memory": "6Mi", "cpu": "8m"}}, sidecarAt: []int{0},
			want: rl{"memory": "15Mi", "cpu": "18m"}},
		{name: "pod-level resources, hugepage request/limit single page size", podLevel: rl{"memory": "10Mi", "hugepages-2Mi": "2Mi"},
			want: rl{"memory": "10Mi", "hugepages-2Mi": "2Mi"}},
		{name: "pod-level resources, hugepage request/limit multiple page sizes", podLevel: rl{"cpu": "1", "hugepages-2Mi": "2Mi", "hugepages-1Gi": "1Gi"},
			want: rl{"cpu": "1", "hugepages-2Mi": "2Mi", "hugepages-1Gi": "1Gi"}},
		{name: "pod-level resources, container-level resources, hugepage request/limit single page size", podLevel: rl{"cpu": "1", "hugepages-2Mi": "10Mi"},
			containers: []map[string]string{{"hugepages-2Mi": "6Mi"}}, want: rl{"cpu": "1", "hugepages-2Mi": "10Mi"}},
		{name: "pod-level resources, container-level resources, hugepage request/limit multiple page sizes", podLevel: rl{"cpu": "1", "hugepages-2Mi": "10Mi", "hugepages-1Gi": "2Gi"},
			containers: []map[string]string{{"cpu": "1", "hugepages-1Gi": "2Gi"}}, want: rl{"cpu": "1", "hugepages-2Mi": "10Mi", "hugepages-1Gi": "2Gi"}},
		{name: "pod-level resources, container-level resources, hugepage request/limit multiple page sizes between pod-level and container-level",
			podLevel: rl{"cpu": "1", "hugepages-2Mi": "10Mi"}, containers: []map[string]string{{"memory": "4Mi", "hugepages-1Gi": "1Gi"}},
			want: rl{"cpu": "1", "memory": "4Mi", "hugepages-2Mi": "10Mi", "hugepages-1Gi": "1Gi"}},

		// TestAggregateContainerRequestsAndLimits, the request side of the
		// cases without UseStatusResources (no pod-level resources or
		// overhead, so PodRequests returns the aggregate as it is).
		{name: "one container with limits", containers: []map[string]string{{}}, want: rl{}},
		{name: "one container with requests", containers: []map[string]string{{"cpu": "9"}}, want: rl{"cpu": "9"}},
		{name: "two containers with requests", containers: []map[string]string{{"cpu": "9"}, {"cpu": "9"}}, want: rl{"cpu": "18"}},
		{name: "regular and init containers with requests", containers: []map[string]string{{"cpu": "9"}}, inits: []map[string]string{{"cpu": "9"}}, want: rl{"cpu": "9"}},
		{name: "regular, init and sidecar containers with requests", containers: []map[string]string{{"cpu": "9"}},
			inits: []map[string]string{{"cpu": "8"}, {"cpu": "6"}}, sidecarAt: []int{0}, want: rl{"cpu": "17"}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
