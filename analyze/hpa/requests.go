package hpa

import (
	"fmt"
	"math/big"
	"strings"
)

// podRequests is calculateRequests (v1.34.0 replica_calculator.go): each
// listed pod's request for resource, in milli-units per pod (not
// multiplied by Count). A pod whose request cannot be computed fails the
// whole metric, as upstream.
func podRequests(pods []Pod, container, resource string) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, p := range pods {
		r, err := podRequest(p, container, resource)
		if err != nil {
			return nil, err
		}
		out[p.Name] = r
	}
	return out, nil
}

// podRequest takes the pod-level path when pod-level requests are set
// (IsPodLevelRequestsSet; PodLevelResources is on by default in v1.34) and
// the metric names no container, which takes precedence; otherwise it sums
// the containers' requests.
func podRequest(p Pod, container, resource string) (int64, error) {
	if container == "" && podLevelRequestsSet(p.PodRequests) {
		return podLevelRequest(p, resource)
	}
	return containerRequests(p, container, resource)
}

// containerRequests is calculatePodRequestsFromContainers as of v1.34.0:
// the sum over the containers that match (all of them when container is
// empty), visiting spec.containers first and then the restartable init
// containers in spec order, so that the first container lacking the
// request, which the error names, is upstream's. Regular init containers
// are not visited (upstream appends only those with restartPolicy Always
// to the list it sums), so a metric naming one matches nothing and the
// pod counts at 0 for it. Every matching container must request
// the resource. A pod without the named container matches none and counts
// at request 0: the "container not found" error came after v1.34
// (kubernetes#133415). The sum is int64 and wraps, as upstream's
// `request += containerRequest.MilliValue()` does.
func containerRequests(p Pod, container, resource string) (int64, error) {
	var sum int64
	for _, c := range p.Containers {
		r, err := matchingRequest(p, c, container, resource)
		if err != nil {
			return 0, err
		}
		sum += r
	}
	for _, c := range p.InitContainers {
		if !c.RestartableInit {
			continue
		}
		r, err := matchingRequest(p, c, container, resource)
		if err != nil {
			return 0, err
		}
		sum += r
	}
	return sum, nil
}

// matchingRequest is one step of calculatePodRequestsFromContainers' loop:
// 0 for a container the metric does not name, its request for one it
// names (every container when the metric names none), an error when that
// container does not request the resource.
func matchingRequest(p Pod, c Container, container, resource string) (int64, error) {
	if container != "" && c.Name != container {
		return 0, nil
	}
	r, ok := c.Requests[resource]
	if !ok {
		return 0, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, p.Name)
	}
	return r, nil
}

// podLevelRequest is calculatePodLevelRequests (v1.34.0
// replica_calculator.go): the resource's entry of component-helpers'
// PodRequests(pod, PodResourcesOptions{}), which fails only when the
// entry is absent, that is when neither the pod level, nor any container
// or init container, nor the overhead names the resource.
func podLevelRequest(p Pod, resource string) (int64, error) {
	r, ok := effectiveRequest(p, resource)
	if !ok {
		return 0, fmt.Errorf("missing pod-level request for %s in Pod %s", resource, p.Name)
	}
	return r, nil
}

// effectiveRequest is PodRequests (component-helpers v0.34.0
// resource/helpers.go) with empty options, for one resource: every option
// calculatePodLevelRequests leaves at its zero value is a no-op (no status
// resources, no substitutes for missing requests, neither level skipped)
// except ExcludeOverhead, whose zero value adds the overhead. It starts
// from AggregateContainerRequests, puts a pod-level request over it when
// the resource is one pod-level resources support (cpu, memory,
// hugepages-*), and adds spec.overhead on top (so over a pod-level value
// too). ok is false when the entry would be absent from the list.
//
// The arithmetic is exact, as Quantity's is: int64Amount.Add falls back to
// inf.Dec on overflow, and maxResourceList compares exactly. Only the
// final MilliValue() truncates, which for these milli-scaled values is
// big.Int.Int64 of the exact sum (resource.scaledValue at equal scales).
func effectiveRequest(p Pod, resource string) (int64, bool) {
	r := aggregateContainerRequest(p, resource)
	if v, ok := p.PodRequests[resource]; ok && supportedPodLevelResource(resource) {
		r = big.NewInt(v)
	}
	r = plusRequest(r, p.Overhead, resource)
	if r == nil {
		return 0, false
	}
	return r.Int64(), true
}

// aggregateContainerRequest is AggregateContainerRequests for one
// resource, after the KEP-753 formula its comment cites: the containers'
// and sidecars' sum, or, when larger, the most any init container needs
// while it runs. A sidecar keeps running, so it adds to the sum and to
// what every later init container runs beside; a regular init container
// runs beside the sidecars listed before it only. nil stands for an entry
// absent from the list: no container or init container names the
// resource.
func aggregateContainerRequest(p Pod, resource string) *big.Int {
	var sum *big.Int
	for _, c := range p.Containers {
		sum = plusRequest(sum, c.Requests, resource)
	}
	var sidecars, initPeak *big.Int
	for _, c := range p.InitContainers {
		var use *big.Int
		if c.RestartableInit {
			sum = plusRequest(sum, c.Requests, resource)
			sidecars = plusRequest(sidecars, c.Requests, resource)
			use = sidecars
		} else {
			use = plusRequest(sidecars, c.Requests, resource)
		}
		initPeak = largerRequest(initPeak, use)
	}
	return largerRequest(sum, initPeak)
}

// plusRequest is addResourceList for one resource: a new value when
// requests names the resource (the sum with acc when acc is present),
// acc itself otherwise. It never changes acc, so values can be shared.
func plusRequest(acc *big.Int, requests map[string]int64, resource string) *big.Int {
	v, ok := requests[resource]
	if !ok {
		return acc
	}
	out := big.NewInt(v)
	if acc != nil {
		out.Add(out, acc)
	}
	return out
}

// largerRequest is maxResourceList for one resource: next replaces acc
// when acc is absent or next is strictly greater.
func largerRequest(acc, next *big.Int) *big.Int {
	if next == nil || (acc != nil && next.Cmp(acc) <= 0) {
		return acc
	}
	return next
}

// podLevelRequestsSet is IsPodLevelRequestsSet: some pod-level request is
// of a supported resource.
func podLevelRequestsSet(requests map[string]int64) bool {
	for name := range requests {
		if supportedPodLevelResource(name) {
			return true
		}
	}
	return false
}

// supportedPodLevelResource is IsSupportedPodLevelResource (v0.34.0): cpu,
// memory and hugepages-<size>.
func supportedPodLevelResource(name string) bool {
	return name == "cpu" || name == "memory" || strings.HasPrefix(name, "hugepages-")
}
