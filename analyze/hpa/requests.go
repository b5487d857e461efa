package hpa

import "fmt"

// podRequests returns each listed pod's request for resource, in
// milli-units per pod (not multiplied by Count). Any pod lacking the request
// fails the whole metric, as upstream: utilization of an unrequested
// resource is undefined.
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

func podRequest(p Pod, container, resource string) (int64, error) {
	// A named container takes precedence over pod-level requests.
	if container == "" && len(p.PodRequests) > 0 {
		r, ok := p.PodRequests[resource]
		if !ok {
			return 0, fmt.Errorf("missing pod-level request for %s in Pod %s", resource, p.Name)
		}
		return r, nil
	}
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
		if container != "" {
			return sum, nil
		}
	}
	if container != "" {
		return 0, fmt.Errorf("container %s not found in Pod %s", container, p.Name)
	}
	return sum, nil
}
