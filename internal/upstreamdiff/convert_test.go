package upstreamdiff

import (
	"context"
	"errors"
	"fmt"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corelisters "k8s.io/client-go/listers/core/v1"
	metricsclient "k8s.io/kubernetes/pkg/controller/podautoscaler/metrics"

	"github.com/capreport/capreport/analyze/hpa"
)

const namespace = "ns"

// expandedNames lists the upstream pod names a port entry stands for: the
// cohort's own name for its first pod, so that error messages naming the
// first pod of a cohort read the same on both sides, and derived names for
// the rest.
func expandedNames(p hpa.Pod) []string {
	n := max(int(p.Count), 1)
	names := []string{p.Name}
	for i := 1; i < n; i++ {
		names = append(names, fmt.Sprintf("%s-dup%d", p.Name, i))
	}
	return names
}

// toV1Pods turns port pods into the v1 pods upstream lists, cohorts expanded
// in place so that the list order is preserved.
func toV1Pods(pods []hpa.Pod, now time.Time) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range pods {
		for _, name := range expandedNames(p) {
			out = append(out, toV1Pod(p, name, now))
		}
	}
	return out
}

func toV1Pod(p hpa.Pod, name string, now time.Time) *v1.Pod {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Status:     v1.PodStatus{Phase: v1.PodPhase(p.Phase)},
	}
	if p.Deleting {
		ts := metav1.NewTime(now.Add(-time.Second))
		pod.DeletionTimestamp = &ts
	}
	if p.StartTime != nil {
		st := metav1.NewTime(*p.StartTime)
		pod.Status.StartTime = &st
	}
	// A condition of another type first, so that upstream has to search
	// for the Ready condition as it does on real pods.
	pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue}}
	if c := p.Ready; c != nil {
		status := v1.ConditionFalse
		if c.Status {
			status = v1.ConditionTrue
		}
		pod.Status.Conditions = append(pod.Status.Conditions, v1.PodCondition{
			Type: v1.PodReady, Status: status, LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
		})
	}
	always := v1.ContainerRestartPolicyAlways
	for _, c := range p.Containers {
		pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{Name: c.Name, Resources: v1.ResourceRequirements{Requests: toResourceList(c.Requests)}})
	}
	for _, c := range p.InitContainers {
		vc := v1.Container{Name: c.Name, Resources: v1.ResourceRequirements{Requests: toResourceList(c.Requests)}}
		if c.RestartableInit {
			vc.RestartPolicy = &always
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, vc)
	}
	if p.PodRequests != nil {
		pod.Spec.Resources = &v1.ResourceRequirements{Requests: toResourceList(p.PodRequests)}
	}
	pod.Spec.Overhead = toResourceList(p.Overhead)
	return pod
}

// toResourceList keeps nil as nil: a container without requests has no
// map at all on a real pod.
func toResourceList(m map[string]int64) v1.ResourceList {
	if m == nil {
		return nil
	}
	l := v1.ResourceList{}
	for name, milli := range m {
		l[v1.ResourceName(name)] = *resource.NewMilliQuantity(milli, resource.DecimalSI)
	}
	return l
}

// toMetricsInfo expands port samples over their cohorts; samples of names
// not in the pod list (superfluous metrics) stay single entries.
func toMetricsInfo(pods []hpa.Pod, metrics hpa.PodMetrics) metricsclient.PodMetricsInfo {
	out := metricsclient.PodMetricsInfo{}
	listed := map[string]bool{}
	for _, p := range pods {
		listed[p.Name] = true
		m, ok := metrics[p.Name]
		if !ok {
			continue
		}
		for _, name := range expandedNames(p) {
			out[name] = metricsclient.PodMetric{Value: m.Value, Timestamp: m.Timestamp, Window: m.Window}
		}
	}
	for name, m := range metrics {
		if !listed[name] {
			out[name] = metricsclient.PodMetric{Value: m.Value, Timestamp: m.Timestamp, Window: m.Window}
		}
	}
	return out
}

// expandSet maps a set of port cohort names to the upstream pod names.
func expandSet(pods []hpa.Pod, set map[string]bool) []string {
	out := []string{}
	for _, p := range pods {
		if set[p.Name] {
			out = append(out, expandedNames(p)...)
		}
	}
	return out
}

// fakeMetrics is a metrics client that answers from fixed values and fails
// on an empty answer the way the real client does (metrics/client.go).
type fakeMetrics struct {
	pods     metricsclient.PodMetricsInfo
	object   int64
	external []int64
}

func (f fakeMetrics) copyPods(api string) (metricsclient.PodMetricsInfo, time.Time, error) {
	if len(f.pods) == 0 {
		return nil, time.Time{}, fmt.Errorf("no metrics returned from %s metrics API", api)
	}
	// Upstream edits the map it gets; each call gets its own.
	out := make(metricsclient.PodMetricsInfo, len(f.pods))
	for k, v := range f.pods {
		out[k] = v
	}
	return out, time.Time{}, nil
}

func (f fakeMetrics) GetResourceMetric(context.Context, v1.ResourceName, string, labels.Selector, string) (metricsclient.PodMetricsInfo, time.Time, error) {
	return f.copyPods("resource")
}

func (f fakeMetrics) GetRawMetric(string, string, labels.Selector, labels.Selector) (metricsclient.PodMetricsInfo, time.Time, error) {
	return f.copyPods("custom")
}

func (f fakeMetrics) GetObjectMetric(string, string, *autoscalingv2.CrossVersionObjectReference, labels.Selector) (int64, time.Time, error) {
	return f.object, time.Time{}, nil
}

func (f fakeMetrics) GetExternalMetric(string, string, labels.Selector) ([]int64, time.Time, error) {
	if len(f.external) == 0 {
		return nil, time.Time{}, errors.New("no metrics returned from external metrics API")
	}
	return append([]int64(nil), f.external...), time.Time{}, nil
}

// fakeLister lists pods in a fixed order. An informer's order is arbitrary;
// a fixed one makes "the first pod whose request is missing" well defined,
// and the port takes it to be list order.
type fakeLister []*v1.Pod

func (l fakeLister) List(labels.Selector) ([]*v1.Pod, error) { return l, nil }

func (l fakeLister) Pods(string) corelisters.PodNamespaceLister { return l }

func (l fakeLister) Get(name string) (*v1.Pod, error) {
	for _, p := range l {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, errors.New("not found")
}
