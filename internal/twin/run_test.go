package twin

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	external "k8s.io/metrics/pkg/apis/external_metrics/v1beta1"
	metrics "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/capreport/capreport/analyze/sim"
)

// app names every twin workload's Deployment, HPA and pod label.
const app = "svc"

// A run is one workload on the twin: its namespace, clock and service
// model, and what was seen of the controller.
type run struct {
	ns       string
	hpa      string // the HPA's name, when not app
	clock    *Clock
	workload *Workload
	pods     listersv1.PodLister
	pods0    int32 // pods at rest before the step
	horizon  int64 // model seconds observed after the step
	// stampDead, when positive, is the dead time (model seconds) the twin
	// stamps on each new pod as the time it turns ready (stampReady).
	stampDead int64

	mu       sync.Mutex
	stepped  bool        // the clock's origin is set
	syncs    []time.Time // the controller's metric requests
	orders   []sim.ScaleEvent
	peak     int32
	status   int32   // the last utilization the HPA status reported
	replicas []int32 // the Deployment's replicas in each model second 0…horizon
}

// ready counts the run's pods that are ready now.
func (r *run) ready() int {
	pods, _ := r.pods.Pods(r.ns).List(labels.Everything())
	n := 0
	for _, p := range pods {
		if p.DeletionTimestamp == nil && podReady(p) {
			n++
		}
	}
	return n
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// lastSync is the time of the controller's latest metric request for the
// run: an order is made at the sync that read the metric.
func (r *run) lastSync() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.syncs) == 0 {
		return time.Now()
	}
	return r.syncs[len(r.syncs)-1]
}

// runs is the MetricsSource of a plane's runs, by namespace.
type runs struct {
	mu   sync.Mutex
	byNS map[string]*run
}

func newRuns() *runs { return &runs{byNS: map[string]*run{}} }

func (rs *runs) add(r *run) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.byNS[r.ns] = r
}

func (rs *runs) get(ns string) *run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.byNS[ns]
}

// PodMetrics reports every running pod at the workload's CPU usage, over
// a 30-second (model) window, as metrics-server reports the kubelet's.
func (rs *runs) PodMetrics(ns string, sel labels.Selector) []metrics.PodMetrics {
	r := rs.get(ns)
	if r == nil {
		return nil
	}
	pods, _ := r.pods.Pods(ns).List(sel)
	usage := *resource.NewScaledQuantity(r.workload.CPUNano(), resource.Nano)
	now := metav1.NewTime(time.Now())
	var out []metrics.PodMetrics
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue // a pod whose containers have not started has no metrics
		}
		out = append(out, metrics.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns, Labels: p.Labels},
			Timestamp:  now,
			Window:     metav1.Duration{Duration: r.clock.Duration(float64(r.workload.opts.Window))},
			Containers: []metrics.ContainerMetrics{{Name: app, Usage: corev1.ResourceList{corev1.ResourceCPU: usage}}},
		})
	}
	return out
}

// ExternalMetric serves no external metric: the backlog reaches the
// controller through KEDA (backlogMilli).
func (rs *runs) ExternalMetric(string, string, labels.Selector) ([]external.ExternalMetricValue, bool) {
	return nil, false
}

// backlogMilli is the run's backlog in milli-units, for BacklogServer.
func (rs *runs) backlogMilli(ns string) (int64, bool) {
	r := rs.get(ns)
	if r == nil {
		return 0, false
	}
	return r.workload.BacklogMilli(), true
}

func (rs *runs) observe(_, ns string) {
	if r := rs.get(ns); r != nil {
		r.mu.Lock()
		r.syncs = append(r.syncs, time.Now())
		r.mu.Unlock()
	}
}

// stepAtSync waits for the run's pods to rest (all ready, for a whole
// metric window), then sets the model's origin so that the step falls at
// second 0 with the controller's next sync 0.1 s into it, and arms the
// workload. The controller syncs one period after the end of its last
// sync, so the next sync is due as long after the last as the last was
// after the one before (a period and the time a sync takes).
func stepAtSync(ctx context.Context, r *run, period time.Duration) error {
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		return r.ready() == int(r.pods0), nil
	}); err != nil {
		return fmt.Errorf("the pods never became ready: %w", err)
	}
	select {
	case <-time.After(r.clock.Duration(31)):
	case <-ctx.Done():
		return ctx.Err()
	}
	prev, err := nextSync(ctx, r)
	if err != nil {
		return err
	}
	last, err := nextSync(ctx, r)
	if err != nil {
		return err
	}
	interval := last.Sub(prev)
	if interval < period || interval > 2*period {
		interval = period // a sync missed or retried: fall back to the flag
	}
	r.mu.Lock()
	r.clock.Origin = last.Add(interval - max(r.clock.Duration(0.1), syncLead))
	r.stepped = true
	r.mu.Unlock()
	time.Sleep(time.Until(r.clock.Origin))
	r.workload.SetStep(0)
	r.workload.Arm()
	go tick(ctx, r.clock, r.workload)
	return nil
}

// syncLead is the least real time by which the demand steps before the
// sync it is meant for. The controller's next sync comes one measured
// interval after the last, give or take the time a sync takes, which
// varies: with KEDA in the path, intervals of 1.57 to 1.62 s were seen
// for a period of 1.5 s (tenfold compression). A tenth of a model second
// is then 10 ms, and a sync 10 ms early read the demand before its step:
// every order came one period late (CI, f3-d1-w300 and f3-d1-w0). Past
// its first second the model's demand has stepped either way.
const syncLead = 50 * time.Millisecond

// nextSync waits for the controller's next metric request for the run.
func nextSync(ctx context.Context, r *run) (time.Time, error) {
	r.mu.Lock()
	seen := len(r.syncs)
	r.mu.Unlock()
	for {
		r.mu.Lock()
		if len(r.syncs) > seen {
			at := r.syncs[len(r.syncs)-1]
			r.mu.Unlock()
			return at, nil
		}
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// tick computes each model second as it begins.
func tick(ctx context.Context, c *Clock, w *Workload) {
	for s := c.Now() + 1; ; s++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(c.Real(s))):
			w.Advance()
		}
	}
}

// watchScale records, until the run's horizon, the Deployment's replica
// count (each change as an order at the sync that made it, and its value
// in every model second) and the HPA's reported utilization.
func watchScale(ctx context.Context, p *Plane, r *run) error {
	last := r.pods0
	r.peak = last
	r.replicas = make([]int32, r.horizon+1)
	seen := int64(-1)
	for {
		now := r.clock.Now()
		if now > r.horizon {
			// The seconds since the last look held the last count.
			for s := max(seen+1, 0); s <= r.horizon; s++ {
				r.replicas[s] = last
			}
			return nil
		}
		d, err := p.Client.AppsV1().Deployments(r.ns).Get(ctx, app, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n := *d.Spec.Replicas; n != last {
			r.orders = append(r.orders, sim.ScaleEvent{T: r.clock.Sync(r.lastSync(), 15), From: last, To: n})
			last = n
			r.peak = max(r.peak, n)
		}
		for s := max(seen+1, 0); s <= now; s++ {
			r.replicas[s] = last
		}
		seen = now
		if err := r.readStatus(ctx, p); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *run) readStatus(ctx context.Context, p *Plane) error {
	name := app
	if r.hpa != "" {
		name = r.hpa
	}
	h, err := p.Client.AutoscalingV2().HorizontalPodAutoscalers(r.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, m := range h.Status.CurrentMetrics {
		if m.Resource != nil && m.Resource.Current.AverageUtilization != nil {
			r.status = *m.Resource.Current.AverageUtilization
		}
	}
	return nil
}

// createWorkload creates the run's namespace and Deployment: pods0 pods
// on the kwok node, each with the given CPU request and limit and the
// dead time (model seconds) kwok keeps them unready for.
func createWorkload(ctx context.Context, p *Plane, r *run, requestMilli, limitMilli, deadTime int64) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}}
	if _, err := p.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return err
	}
	replicas := r.pods0
	cpu := func(m int64) resource.Quantity { return *resource.NewMilliQuantity(m, resource.DecimalSI) }
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: r.ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app},
					Annotations: map[string]string{DeadTimeAnnotation: deadTimeValue(r, deadTime)}},
				Spec: corev1.PodSpec{
					NodeName: node,
					Containers: []corev1.Container{{Name: app, Image: "capreport.dev/twin/service",
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: cpu(requestMilli)},
							Limits:   corev1.ResourceList{corev1.ResourceCPU: cpu(limitMilli)},
						}}},
				},
			},
		},
	}
	_, err := p.Client.AppsV1().Deployments(r.ns).Create(ctx, d, metav1.CreateOptions{})
	return err
}

// deadTimeValue is DeadTimeAnnotation's value on the run's pod template.
func deadTimeValue(r *run, deadTime int64) string {
	if r.stampDead > 0 {
		return ReadyPending
	}
	return r.clock.Duration(float64(deadTime)).String()
}

// readyAt is the real time at which a pod the run's controller has just
// ordered turns ready: the dead time after the model's sync second that
// ordered it, as the model has it (docs/fidelity.md, "Dead time"). Before
// the step, a dead time from now.
func (r *run) readyAt() time.Time {
	r.mu.Lock()
	stepped := r.stepped
	r.mu.Unlock()
	if !stepped {
		return time.Now().Add(r.clock.Duration(float64(r.stampDead)))
	}
	return r.clock.Real(r.clock.Sync(r.lastSync(), 15) + r.stampDead)
}

// stampReady gives each of the plane's new pods that waits for it
// (ReadyPending) its run's ready time. kwok starts a pod only once it is
// stamped.
func stampReady(ctx context.Context, t testing.TB, p *Plane, rs *runs, informer cache.SharedIndexInformer) {
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Annotations[DeadTimeAnnotation] != ReadyPending {
			return
		}
		r := rs.get(pod.Namespace)
		if r == nil || r.stampDead <= 0 {
			return
		}
		at := r.readyAt().UTC().Format(time.RFC3339Nano)
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, DeadTimeAnnotation, at)
		go func() {
			_, err := p.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			if err != nil && ctx.Err() == nil {
				t.Errorf("%s/%s: stamping its ready time: %v", pod.Namespace, pod.Name, err)
			}
		}()
	}})
	if err != nil {
		t.Fatal(err)
	}
}

// createScaledObject creates the run's ScaledObject on its Deployment
// with spec (scaleTargetRef added).
func createScaledObject(ctx context.Context, p *Plane, r *run, spec map[string]any) error {
	spec["scaleTargetRef"] = map[string]any{"name": app}
	so := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
		"metadata": map[string]any{"name": app, "namespace": r.ns},
		"spec":     spec,
	}}
	gvr := schema.GroupVersionResource{Group: "keda.sh", Version: "v1alpha1", Resource: "scaledobjects"}
	_, err := p.Dynamic.Resource(gvr).Namespace(r.ns).Create(ctx, so, metav1.CreateOptions{})
	return err
}

// createHPA creates the run's HPA on its Deployment.
func createHPA(ctx context.Context, p *Plane, r *run, maxReplicas int32, m autoscalingv2.MetricSpec, b *autoscalingv2.HorizontalPodAutoscalerBehavior) error {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: r.ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: app},
			MaxReplicas:    maxReplicas,
			Metrics:        []autoscalingv2.MetricSpec{m},
			Behavior:       b,
		},
	}
	_, err := p.Client.AutoscalingV2().HorizontalPodAutoscalers(r.ns).Create(ctx, h, metav1.CreateOptions{})
	return err
}
