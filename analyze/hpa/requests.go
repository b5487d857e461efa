package hpa

import (
	"fmt"
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
// empty). Every matching container must request the resource. A pod
// without the named container matches none and counts at request 0: the
// "container not found" error came after v1.34 (kubernetes#133415).
func containerRequests(p Pod, container, resource string) (int64, error) {
	var sum int64
	for _, c := range p.Containers {
		if container != "" && c.Name != container {
			continue
		}
		r, ok := c.Requests[resource]
		if !ok {
			return 0, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, p.Name)
		}
		sum += r
	}
	return sum, nil
}

// podLevelRequest is calculatePodLevelRequests: component-helpers'
// PodRequests (resource/helpers.go, v0.34.0) starts from the containers'
// aggregate, where a container that does not request the resource adds
// nothing, and overrides each supported resource set at pod level. The
// resource is missing only when neither the pod level nor any container
// sets it.
func podLevelRequest(p Pod, resource string) (int64, error) {
	if r, ok := p.PodRequests[resource]; ok && supportedPodLevelResource(resource) {
		return r, nil
	}
	var sum int64
	found := false
	for _, c := range p.Containers {
		if r, ok := c.Requests[resource]; ok {
			sum, found = sum+r, true
		}
	}
	if !found {
		return 0, fmt.Errorf("missing pod-level request for %s in Pod %s", resource, p.Name)
	}
	return sum, nil
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
