package analyze

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/capreport/capreport/analyze/inventory"
	"github.com/capreport/capreport/render"
)

// targetIndex finds rendered objects by kind and name.
type targetIndex struct {
	byKindName map[string][]*render.Object
	// notFollowed: what each build left out (unfollowed.go), where a
	// target not among the objects may be.
	notFollowed unfollowed
}

func newTargetIndex(objs []render.Object) *targetIndex {
	ix := &targetIndex{byKindName: map[string][]*render.Object{}}
	for i := range objs {
		o := &objs[i]
		k := o.Kind + "/" + o.Name
		ix.byKindName[k] = append(ix.byKindName[k], o)
	}
	return ix
}

// lookup finds the target of an autoscaler. Namespaces are compared as
// rendered: equal namespaces match; an empty namespace on either side
// matches too, because an object rendered without one lands in whatever
// namespace the release or `kubectl apply -n` gives both. Among matches,
// one from the autoscaler's own source (same chart value set or overlay) is
// preferred, then an exact namespace; the API group is not compared, since
// the autoscaler's apiVersion is often stale (extensions/v1beta1).
func (ix *targetIndex) lookup(kind, name, namespace string, from render.Origin) *render.Object {
	var best *render.Object
	bestScore := -1
	for _, o := range ix.byKindName[kind+"/"+name] {
		if o.Namespace != namespace && o.Namespace != "" && namespace != "" {
			continue
		}
		score := 0
		if o.Origin.Source == from.Source {
			score += 2
		}
		if o.Namespace == namespace {
			score++
		}
		if score > bestScore {
			best, bestScore = o, score
		}
	}
	return best
}

// podTemplateHolder: kinds whose spec.template is a pod template.
var podTemplateKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "Rollout": true,
	"ReplicationController": true, "DeploymentConfig": true,
}

// resolveTarget fills a Target from the rendered object. An Argo Rollout
// with spec.workloadRef borrows the referenced workload's pod template.
func resolveTarget(t *Target, obj *render.Object, ix *targetIndex) []string {
	t.Found = true
	t.Origin = obj.Origin
	t.Annotations = annotationsOf(obj.Doc)
	var problems []string
	spec, _ := obj.Doc["spec"].(map[string]any)
	if spec == nil {
		return nil
	}
	if r, ok := intValue(spec["replicas"]); ok {
		t.Replicas = ptrTo(int32(r))
	}
	if !podTemplateKinds[obj.Kind] {
		return nil
	}
	tmpl, _ := spec["template"].(map[string]any)
	if obj.Kind == "Rollout" && tmpl == nil {
		if ref, ok := spec["workloadRef"].(map[string]any); ok {
			kind, _ := ref["kind"].(string)
			name, _ := ref["name"].(string)
			if kind == "" {
				kind = "Deployment"
			}
			if w := ix.lookup(kind, name, obj.Namespace, obj.Origin); w != nil {
				if ws, ok := w.Doc["spec"].(map[string]any); ok {
					tmpl, _ = ws["template"].(map[string]any)
				}
			} else {
				problems = append(problems, fmt.Sprintf("Rollout %s refers to %s/%s through workloadRef, which is not in the rendered objects", obj.Name, kind, name))
			}
		}
	}
	if tmpl == nil {
		return problems
	}
	var pt corev1.PodTemplateSpec
	if err := decodeInto(tmpl, &pt); err != nil {
		return append(problems, fmt.Sprintf("%s %s: pod template does not decode: %v", obj.Kind, obj.Name, err))
	}
	add := func(c corev1.Container, sidecar bool) {
		cr := ContainerResources{
			Name:               c.Name,
			Sidecar:            sidecar,
			CPURequestMilli:    c.Resources.Requests.Cpu().MilliValue(),
			CPULimitMilli:      c.Resources.Limits.Cpu().MilliValue(),
			MemoryRequestBytes: c.Resources.Requests.Memory().Value(),
			MemoryLimitBytes:   c.Resources.Limits.Memory().Value(),
		}
		t.Containers = append(t.Containers, cr)
		t.CPURequestMilli += cr.CPURequestMilli
		t.CPULimitMilli += cr.CPULimitMilli
		t.MemoryRequestBytes += cr.MemoryRequestBytes
		t.MemoryLimitBytes += cr.MemoryLimitBytes
	}
	// Sidecars (init containers with restartPolicy Always) run beside the
	// app and count in the HPA's request sum; plain init containers do not.
	for _, c := range pt.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(c, true)
		}
	}
	for _, c := range pt.Spec.Containers {
		add(c, false)
	}
	return problems
}

// missingRequests lists the containers without a request for a resource
// that a Utilization metric needs; the HPA cannot compute utilization for
// such pods and does not scale on that metric.
func missingRequests(t Target, resourceName, container string) []string {
	var out []string
	for _, c := range t.Containers {
		if container != "" && c.Name != container {
			continue
		}
		req := c.CPURequestMilli
		if resourceName == string(corev1.ResourceMemory) {
			req = c.MemoryRequestBytes
		}
		if req == 0 {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

// annotationsOf returns metadata.annotations as strings.
func annotationsOf(doc map[string]any) map[string]string {
	md, _ := doc["metadata"].(map[string]any)
	raw, _ := md["annotations"].(map[string]any)
	return inventory.StringMap(raw)
}

func intValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == float64(int64(x)) && x >= 0 && x < 1<<31 {
			return int64(x), true
		}
	}
	return 0, false
}

// refString prints Kind/name for messages.
func refString(kind, name string) string {
	return strings.TrimPrefix(kind+"/"+name, "/")
}
